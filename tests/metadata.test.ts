import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { events } from "@/db/schema";
import { exportQuery, exportStream } from "@/lib/dashboard/server/exports";
import { translator } from "@/lib/i18n";
import { saoPauloDay } from "@/lib/day-range";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { addDays } from "@/lib/pix/business-days";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { api, seedMerchant } from "./helpers";

// The merchant's own reference and metadata (docs/api.md#metadata-and-your-references): sent once on a create, then on
// every view, list row, export and webhook of the object, so a shop needs no map from our ids to its sales.

const META = { saleId: "sale-1001", channel: "loja-online" };
const eventsOf = (subjectId: string) =>
  db().select().from(events).where(eq(events.subjectId, subjectId)).orderBy(asc(events.seq));

async function csvOf(name: "orders" | "withdrawals", merchantId: string, format: "csv" | "excel" = "csv") {
  const stream = exportStream(name, merchantId, exportQuery.parse({ format }), translator("pt-BR"));
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await new Response(stream).arrayBuffer());
}

describe("metadata and the merchant's reference on PIX, exchange-wallet and Lightning orders", () => {
  it("a PIX order created with orderId sale-1001 shows it and its metadata on creation, lookup, list, webhook and export", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 25.9, orderId: "sale-1001", name: "Maria Souza", metadata: META },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.pixOrder.reference).toEqual({ orderId: "sale-1001", name: "Maria Souza" });
    expect(created.body.pixOrder.metadata).toEqual(META);
    const id = created.body.pixOrder._id;

    const lookup = await api("GET", `/api/v1/order/${id}`, { apiKey });
    expect(lookup.body.order).toMatchObject({ reference: { orderId: "sale-1001" }, metadata: META });

    const list = await api("GET", "/api/v1/orders?type=pix", { apiKey });
    expect(list.body.orders[0]).toMatchObject({ id, reference: { orderId: "sale-1001" }, metadata: META });

    const paid = await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey });
    expect(paid.body.order.metadata).toEqual(META);
    const [event] = await eventsOf(id);
    expect(event.type).toBe("order.status_changed");
    expect(event.data).toMatchObject({ status: "COMPLETED", reference: { orderId: "sale-1001" }, metadata: META });

    const csv = await csvOf("orders", merchant.id);
    expect(csv.split("\r\n")[0]).toContain("Metadados");
    expect(csv).toContain(`"${JSON.stringify(META).replaceAll('"', '""')}"`);
    expect(await csvOf("orders", merchant.id, "excel")).toContain("saleId: sale-1001; channel: loja-online");
  });

  it("exchange-wallet and Lightning orders echo their references and metadata; none sent answers {}", async () => {
    const { apiKey } = await seedMerchant();
    const exchange = await api("POST", "/api/v1/order/create", {
      apiKey,
      body: { value: 10, payerId: "cliente-77", merchant: { subMerchantId: "loja-centro" }, metadata: META },
    });
    expect(exchange.status).toBe(201);
    expect(exchange.body.order).toMatchObject({
      reference: { payerId: "cliente-77", subMerchantId: "loja-centro" },
      metadata: META,
    });
    const lightning = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 10 } });
    expect(lightning.status).toBe(201);
    expect(lightning.body.order).toMatchObject({ reference: {}, metadata: {} });
  });

  it.each([
    ["a key over 40 characters", { ["k".repeat(41)]: "v" }, /metadata\.k{41}: key must be 1 to 40 characters/],
    ["an empty key", { "": "v" }, /key must be 1 to 40 characters/],
    ["a value over 500 characters", { note: "x".repeat(501) }, /metadata\.note: must be at most 500 characters/],
    ["a value that is not a string", { qty: 3 }, /metadata\.qty: must be a string/],
    ["more than 50 keys", Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])), /at most 50 keys/],
    ["an array", ["a"], /metadata: must be an object whose values are strings/],
    ["a key PostgreSQL cannot store", { "a\u0000b": "v" }, /metadata\.\(a field name\)/],
  ])("→ 400 in each endpoint's error shape for %s", async (_, metadata, message) => {
    const { apiKey } = await seedMerchant();
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10, metadata } });
    expect(pix.status).toBe(400);
    expect(pix.body.message).toMatch(message);
    const exchange = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 10, metadata } });
    expect(exchange.status).toBe(400);
    expect(exchange.body).toMatchObject({ success: false, error: expect.stringMatching(message) });
  });

  it("takes exactly 50 keys of 40 characters with values of 500", async () => {
    const { apiKey } = await seedMerchant();
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [String(i).padStart(40, "k"), "v".repeat(500)]),
    );
    const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 10, metadata } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.metadata).toEqual(metadata);
  });
});

describe("metadata on refunds, deposits, Crypto-PIX, withdrawals and invoices", () => {
  it("a refund carries its own metadata, and its event its order's reference", async () => {
    const { apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 20, orderId: "sale-2002", metadata: META },
    });
    const id = created.body.pixOrder._id;
    await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey });
    const refund = await api("POST", `/api/v1/order/${id}/refund`, {
      apiKey,
      body: { value: 5, metadata: { returnId: "rma-9" } },
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(refund.body.refund.metadata).toEqual({ returnId: "rma-9" });
    const lookup = await api("GET", `/api/v1/order/${id}`, { apiKey });
    expect(lookup.body.refunds[0].metadata).toEqual({ returnId: "rma-9" });
    const refundEvents = (await eventsOf(id)).filter((e) => e.type === "refund.status_changed");
    expect(refundEvents.length).toBeGreaterThan(0);
    expect(refundEvents[0].data).toMatchObject({
      metadata: { returnId: "rma-9" },
      order: { reference: { orderId: "sale-2002" }, metadata: META },
    });
    const bad = await api("POST", `/api/v1/order/${id}/refund`, { apiKey, body: { metadata: { a: 1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: expect.stringMatching(/metadata\.a: must be a string/) });
  });

  it("an on-chain deposit keeps the spec's metadata keys and adds the merchant's beside them; the spec's keys are refused", async () => {
    const { apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 100, asset: "USDT", network: "polygon", metadata: META },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { paymentLinkId, id, amount } = created.body.order;
    expect(created.body.order.metadata).toMatchObject({ ...META, orderId: id, network: "polygon" });
    const lookup = await api("GET", `/api/v1/onchain/order/${paymentLinkId}`, { apiKey });
    expect(lookup.body.order.metadata).toMatchObject({ ...META, orderId: id, walletIndex: expect.any(Number) });
    await api("POST", `/api/v1/sandbox/onchain/${paymentLinkId}/transfer`, {
      apiKey,
      body: { amount: String(amount) },
    });
    const [event] = (await eventsOf(id)).filter((e) => e.type === "onchain.deposit.status_changed");
    expect(event.data).toMatchObject({ status: "COMPLETED", metadata: { ...META, orderId: id } });

    const reserved = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 100, asset: "USDT", network: "polygon", metadata: { orderId: "mine" } },
    });
    expect(reserved.status).toBe(400);
    expect(reserved.body.message).toMatch(/metadata\.orderId: is a key the service writes itself/);
  });

  it("a Crypto-PIX payment shows its metadata on the pay result, the lookup and its events", async () => {
    const { apiKey } = await seedMerchant();
    const qrcode = encodeStaticBrCode({
      pixKey: "padaria@example.com",
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos: 10_000,
      txid: "PEDIDO123",
    });
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: { qrcode, network: "bsc", metadata: META },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.metadata).toEqual(META);
    const lookup = await api("GET", `/api/v1/crypto-pix/order/${res.body.data.payCryptoPixId}`, { apiKey });
    expect(lookup.body.metadata).toEqual(META);
    const paid = await api("POST", `/api/v1/sandbox/crypto-pix/${res.body.data.payCryptoPixId}/transfer`, {
      apiKey,
      body: { amount: String(res.body.data.cryptoValue) },
    });
    expect(paid.body.payment.metadata).toEqual(META);
  });

  it("a pix-out shows its metadata on its answer, its lookup, the list, its events and the export", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const created = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 2_500, metadata: META } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.metadata).toEqual(META);
    expect(await processWithdrawal(created.body.id)).toBe(true);
    const lookup = await api("GET", `/api/v1/withdrawals/${created.body.id}`, { apiKey });
    expect(lookup.body.withdrawal).toMatchObject({ status: "COMPLETED", metadata: META });
    const list = await api("GET", "/api/v1/withdrawals", { apiKey });
    expect(list.body.withdrawals[0].metadata).toEqual(META);
    const evs = await eventsOf(created.body.id);
    expect(evs.map((e) => e.data.metadata)).toEqual(evs.map(() => META));
    expect(await csvOf("withdrawals", merchant.id, "excel")).toContain("saleId: sale-1001; channel: loja-online");
  });

  it("an invoice keeps its metadata, and its PIX order (whose events the shop receives) carries it too", async () => {
    const { apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/invoices", {
      apiKey,
      body: {
        value: 100,
        dueDate: addDays(saoPauloDay(), 10),
        payer: { name: "Maria Souza", cpf: "529.982.247-25" },
        reference: "contrato-77",
        metadata: META,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.invoice.metadata).toEqual(META);
    const order = await api("GET", `/api/v1/order/${res.body.invoice.order.id}`, { apiKey });
    expect(order.body.order).toMatchObject({ reference: { orderId: "contrato-77" }, metadata: META });
  });
});
