import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "@/db";
import { idempotencyKeys } from "@/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { api, seedMerchant } from "./helpers";

// Idempotency-Key and refusals (docs/api.md#idempotency-and-rate-limits): a 4xx wrote nothing, so it is
// not stored, whichever layer refused it (the schema, or a service: an unknown network, an unreadable BR
// Code, a bad PIX key, an insufficient balance); the same key with the corrected body, or the same body
// once the refusal's cause is gone, is then processed as a first request and its success is what is stored.

const keyRows = (merchantId: string) =>
  db().select().from(idempotencyKeys).where(eq(idempotencyKeys.merchantId, merchantId));

const brCode = (amountCentavos: number) =>
  encodeStaticBrCode({
    pixKey: "padaria@example.com",
    merchantName: "Padaria Pao Quente",
    merchantCity: "Sao Paulo",
    amountCentavos,
    txid: "PEDIDO123",
  });

describe("Idempotency-Key after a refusal", () => {
  it.each([
    {
      what: "pix-out with a PIX key that is not one",
      path: "/api/v1/order/pix-out",
      bad: { value: 10_00, pixKey: "not a key" },
      code: "pix_key_invalid",
      good: { value: 10_00, pixKey: "maria@example.com" },
      status: 201,
    },
    {
      what: "a deposit on an unknown network",
      path: "/api/v1/onchain/deposit",
      bad: { value: 50, asset: "USDT", network: "solana" },
      code: "network_not_supported",
      good: { value: 50, asset: "USDT", network: "polygon" },
      status: 201,
    },
    {
      what: "Crypto-PIX with an unreadable BR Code",
      path: "/api/v1/crypto-pix/onchain/pay",
      bad: { qrcode: "00020126not-a-br-code", network: "bsc" },
      code: "brcode_invalid",
      good: { qrcode: brCode(25_00), network: "bsc" },
      status: 201,
    },
    {
      what: "an on-chain withdrawal on an unknown network",
      path: "/api/v1/onchain/withdraw/initiate",
      bad: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 10, network: "eth" },
      code: "network_not_supported",
      good: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 10, network: "polygon" },
      status: 200,
    },
  ])("POST $path → $code is not stored: the corrected body under the same key succeeds ($what)", async (c) => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const headers = { "idempotency-key": `fix-${c.code}` };
    const refused = await api("POST", c.path, { apiKey, body: c.bad, headers });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.code).toBe(c.code);
    expect(await keyRows(merchant.id)).toEqual([]);

    const again = await api("POST", c.path, { apiKey, body: c.bad, headers });
    expect(again.status).toBe(400);
    expect(again.headers.get("idempotent-replayed")).toBeNull();

    const fixed = await api("POST", c.path, { apiKey, body: c.good, headers });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(c.status);
    const replay = await api("POST", c.path, { apiKey, body: c.good, headers });
    expect(replay.status).toBe(c.status);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(fixed.body);
    const rows = await keyRows(merchant.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: "done", responseStatus: c.status });
  });

  it("an insufficient balance is not stored: the same body under the same key goes through once the money is there", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_00 });
    const headers = { "idempotency-key": "poor-then-paid" };
    const body = { value: 50_00, pixKey: "maria@example.com" };
    const poor = await api("POST", "/api/v1/order/pix-out", { apiKey, body, headers });
    expect(poor.status).toBe(400);
    expect(poor.body.code).toBe("insufficient_balance");
    expect(await keyRows(merchant.id)).toEqual([]);
    await db().transaction((tx) =>
      postLedgerEntry(tx, {
        merchantId: merchant.id,
        kind: "adjustment",
        amountCentavos: 100_00,
        refType: "test",
        refId: crypto.randomUUID(),
      }),
    );
    const paid = await api("POST", "/api/v1/order/pix-out", { apiKey, body, headers });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const replay = await api("POST", "/api/v1/order/pix-out", { apiKey, body, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(paid.body);
  });

  it("a 409 of the service (a sandbox payment of an order that is not PENDING) is not stored either", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 12 } });
    const id = created.body.order.id as string;
    const pay = (key: string) =>
      api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey, headers: { "idempotency-key": key } });
    expect((await pay("first")).status).toBe(200);
    const second = await pay("second");
    expect(second.status).toBe(409);
    expect(second.body.code).toBe("order_not_pending");
    const rows = await keyRows(merchant.id);
    expect(rows.map((r) => r.key)).toEqual(["first"]);
  });
});
