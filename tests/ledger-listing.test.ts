import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { ledgerEntries } from "@/db/schema";
import { decodeCryptoPixId } from "@/lib/ids";
import { balanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { api, seedMerchant, specOf } from "./helpers";

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Created = { id: string; type: string; paymentLinkId: string | null };

/** Creates one order of a kind through the API and returns its list identity. */
async function createOrder(apiKey: string, type: string, value = 10): Promise<Created> {
  switch (type) {
    case "pix": {
      const r = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } });
      expect(r.status).toBe(200);
      return { id: r.body.pixOrder._id, type, paymentLinkId: r.body.pixOrder.paymentLinkId };
    }
    case "exchange":
    case "lightning": {
      const r = await api("POST", type === "exchange" ? "/api/v1/order/create" : "/api/v1/order/create/lightning", {
        apiKey,
        body: { value },
      });
      expect(r.status).toBe(201);
      return { id: r.body.order.id, type, paymentLinkId: r.body.order.paymentLinkId };
    }
    case "onchain": {
      const r = await api("POST", "/api/v1/onchain/deposit", {
        apiKey,
        body: { value, asset: "USDT", network: "bsc" },
      });
      expect(r.status).toBe(201);
      return { id: r.body.order.id, type, paymentLinkId: r.body.order.paymentLinkId };
    }
    case "crypto_pix": {
      const qrcode = encodeStaticBrCode({
        pixKey: "fornecedor@example.com",
        merchantName: "Fornecedor LTDA",
        merchantCity: "SAO PAULO",
        amountCentavos: Math.round(value * 100),
      });
      const r = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
      expect(r.status).toBe(201);
      return { id: decodeCryptoPixId(r.body.data.payCryptoPixId)!, type, paymentLinkId: null };
    }
  }
  throw new Error(type);
}

async function listAll(apiKey: string, query = ""): Promise<any[]> {
  const res = await api("GET", `/api/v1/orders?limit=100${query}`, { apiKey });
  expect(res.status).toBe(200);
  expect(res.body.nextCursor).toBeNull();
  return res.body.orders;
}

describe("GET /api/v1/account", () => {
  it("→ 200 { merchant: { companyName, pixKey, balance } } with the balance in centavos, with either header", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 123_456, companyName: "Padaria Pão Quente" });
    for (const authHeader of ["authorization", "bearer"] as const) {
      const res = await api("GET", "/api/v1/account", { apiKey, authHeader });
      expect(res.status).toBe(200);
      expect(res.body.merchant).toMatchObject({
        companyName: "Padaria Pão Quente",
        pixKey: "52998224725",
        balance: 123_456,
      });
      expect(res.body.merchant.id).toBe(merchant.id);
      expect(Number.isInteger(res.body.merchant.balance)).toBe(true);
    }
  });

  it("→ 401 { message } without a key or with a revoked/unknown one", async () => {
    const none = await api("GET", "/api/v1/account");
    expect(none.status).toBe(401);
    expect(specOf(none.body)).toEqual({ message: expect.stringContaining("Missing API key") });
    const bad = await api("GET", "/api/v1/account", { apiKey: "sk_test_" + "Z".repeat(40) });
    expect(bad.status).toBe(401);
    expect(specOf(bad.body)).toEqual({ message: "Invalid API key" });
  });
});

describe("GET /api/v1/orders", () => {
  it("lists every kind of order newest first, filters by type and status, and shows another merchant none of them", async () => {
    const { apiKey } = await seedMerchant();
    // Lightning first: its createdAt is the invoice's whole-second timestamp.
    const created: Created[] = [];
    for (const type of ["lightning", "pix", "exchange", "onchain", "crypto_pix"]) {
      created.push(await createOrder(apiKey, type, 10 + created.length));
      await sleep(5);
    }
    const all = await listAll(apiKey);
    expect(all.map((o) => [o.type, o.id])).toEqual(created.map((c) => [c.type, c.id]).reverse());
    for (const o of all) {
      expect(o.status).toBe("PENDING");
      expect(o.value).toBe(10 + created.findIndex((c) => c.id === o.id));
      expect(new Date(o.createdAt).toISOString()).toBe(o.createdAt);
    }
    const times = all.map((o) => Date.parse(o.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const pixRow = all.find((o) => o.type === "pix");
    expect(pixRow.paymentLinkId).toBe(created[1].paymentLinkId);
    expect(pixRow.link).toBe(`http://localhost:3000/pay/${created[1].paymentLinkId}`);
    expect(pixRow).not.toHaveProperty("payCryptoPixId");
    // A listed Crypto-PIX payment carries the id its lookup takes.
    const cpRow = all.find((o) => o.type === "crypto_pix");
    const cp = await api("GET", `/api/v1/crypto-pix/order/${cpRow.payCryptoPixId}`, { apiKey });
    expect(cp.status).toBe(200);
    expect(cp.body).toMatchObject({ value: 14, status: "PENDING" });

    for (const c of created) {
      const only = await listAll(apiKey, `&type=${c.type}`);
      expect(only.map((o) => o.id)).toEqual([c.id]);
    }

    // Pay the PIX and the exchange order; the status filter sees exactly them.
    for (const c of [created[1], created[2]]) {
      expect((await api("POST", `/api/v1/sandbox/orders/${c.id}/pay`, { apiKey })).status).toBe(200);
    }
    const completed = await listAll(apiKey, "&status=COMPLETED");
    expect(completed.map((o) => o.id)).toEqual([created[2].id, created[1].id]);
    const pendingLightning = await listAll(apiKey, "&status=PENDING&type=lightning");
    expect(pendingLightning.map((o) => o.id)).toEqual([created[0].id]);
    expect(await listAll(apiKey, "&status=REFUNDED")).toEqual([]);

    const other = await seedMerchant();
    const foreign = await api("GET", "/api/v1/orders", { apiKey: other.apiKey });
    expect(foreign.status).toBe(200);
    expect(foreign.body).toEqual({ orders: [], nextCursor: null });
  });

  it("pages 25 orders with limit 7 through nextCursor without gaps or repeats", async () => {
    const { apiKey } = await seedMerchant();
    const kinds = ["pix", "exchange", "onchain", "crypto_pix", "lightning"];
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await createOrder(apiKey, kinds[i % kinds.length], 6 + i)).id);

    const full = await listAll(apiKey);
    expect(full).toHaveLength(25);
    expect(new Set(full.map((o) => o.id))).toEqual(new Set(ids));

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=7&cursor=${encodeURIComponent(cursor)}` : "?limit=7";
      const res = await api("GET", `/api/v1/orders${q}`, { apiKey });
      expect(res.status).toBe(200);
      pages.push(res.body.orders.map((o: { id: string }) => o.id));
      cursor = res.body.nextCursor;
      expect(pages.length).toBeLessThan(10);
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 4]);
    expect(pages.flat()).toEqual(full.map((o) => o.id));

    // A filtered listing pages too.
    const pix: string[] = [];
    cursor = null;
    do {
      const q: string = cursor ? `?type=pix&limit=2&cursor=${encodeURIComponent(cursor)}` : "?type=pix&limit=2";
      const res = await api("GET", `/api/v1/orders${q}`, { apiKey });
      pix.push(...res.body.orders.map((o: { id: string }) => o.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pix).toEqual(full.filter((o) => o.type === "pix").map((o) => o.id));
    expect(pix).toHaveLength(5);
  });

  it("→ 400 { message } on an invalid type, status, limit or cursor; 401 { message } without a key", async () => {
    const { apiKey } = await seedMerchant();
    const forged = Buffer.from(JSON.stringify({ at: "yesterday", id: "x" })).toString("base64url");
    for (const q of [
      "?type=bitcoin",
      "?status=DONE",
      "?limit=0",
      "?limit=101",
      "?limit=x",
      "?cursor=%%%",
      "?cursor=abc",
      `?cursor=${forged}`,
    ]) {
      const res = await api("GET", `/api/v1/orders${q}`, { apiKey });
      expect(res.status, q).toBe(400);
      expect(specOf(res.body), q).toEqual({ message: expect.any(String) });
    }
    const typed = await api("GET", "/api/v1/orders?type=bitcoin", { apiKey });
    expect(typed.body.message).toContain("type");
    const unauth = await api("GET", "/api/v1/orders");
    expect(unauth.status).toBe(401);
    expect(specOf(unauth.body)).toEqual({ message: expect.any(String) });
  });
});

describe("ledger invariant", () => {
  it("after orders paid, deposits, withdrawals and failures, the balance shown == SUM(ledger_entries) to the centavo", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const pix = await createOrder(apiKey, "pix", 100);
    const ex = await createOrder(apiKey, "exchange", 50.5);
    const ln = await createOrder(apiKey, "lightning", 20);
    for (const o of [pix, ex, ln]) {
      const paid = await api("POST", `/api/v1/sandbox/orders/${o.id}/pay`, { apiKey });
      expect(paid.status).toBe(200);
    }
    // Paying twice credits once.
    expect((await api("POST", `/api/v1/sandbox/orders/${pix.id}/pay`, { apiKey })).status).toBe(409);

    const dep = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 10, asset: "USDT", network: "bsc" },
    });
    expect(dep.status).toBe(201);
    const transfer = await api("POST", `/api/v1/sandbox/onchain/${dep.body.order.paymentLinkId}/transfer`, {
      apiKey,
      body: { amount: dep.body.order.amount },
    });
    expect(transfer.status).toBe(200);
    expect(transfer.body.order.status).toBe("COMPLETED");
    const account = async () => (await api("GET", "/api/v1/account", { apiKey })).body.merchant.balance;
    // 10000 + 5050 + 2000 + 1000
    expect(await account()).toBe(18_050);

    const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 5_000 } });
    const failing = await api("POST", "/api/v1/order/pix-out", {
      apiKey,
      body: { value: 3_000, pixKey: "payout.fail@example.com" },
    });
    const chain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { toAddress: TO, value: 10, network: "bsc" },
    });
    const tooMuch = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 1_000_000 } });
    expect([out.status, failing.status, chain.status, tooMuch.status]).toEqual([201, 201, 200, 400]);
    // 18050 − 5000 − 3000 − (1000 + 5 + 30)
    expect(await account()).toBe(9_015);
    for (const id of [out.body.id, failing.body.id, chain.body.id]) expect(await processWithdrawal(id)).toBe(true);
    expect(await account()).toBe(12_015);

    expect(await balanceOf(db(), merchant.id)).toBe(12_015);
    expect(await ledgerSum(db(), merchant.id)).toBe(12_015);
    const entries = await db()
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.merchantId, merchant.id))
      .orderBy(ledgerEntries.id);
    expect(entries.map((e) => [e.kind, e.amountCentavos])).toEqual([
      ["order_credit", 10_000],
      ["order_credit", 5_050],
      ["order_credit", 2_000],
      ["deposit_credit", 1_000],
      ["withdrawal_debit", -5_000],
      ["withdrawal_debit", -3_000],
      ["withdrawal_debit", -1_035],
      ["withdrawal_reversal", 3_000],
    ]);
  });

  it("holds for every merchant in the database", async () => {
    // One statement, one snapshot: the folded part plus what is not folded yet, against the ledger.
    const rows = await db().execute<{ id: string }>(sql`
      select m.id from merchants m
      where m.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = m.id), 0)
        <> coalesce((select sum(l.amount_centavos) from ledger_entries l where l.merchant_id = m.id), 0)`);
    expect(rows.map((r) => r.id)).toEqual([]);
    const [neg] = await db().execute<{ n: number }>(
      sql`select count(*)::int as n from merchants where balance_centavos < 0`,
    );
    expect(neg.n).toBe(0);
  });
});
