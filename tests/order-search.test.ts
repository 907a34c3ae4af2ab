import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "@/db";
import { listDashboardOrders } from "@/lib/dashboard/server/orders";
import { merchantOrders } from "@/lib/orders/every-order";
import { orderSearchCondition, parseOrderSearch } from "@/lib/orders/search";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { api, seedMerchant } from "./helpers";

async function search(apiKey: string, q: string, extra = ""): Promise<any[]> {
  const res = await api("GET", `/api/v1/orders?q=${encodeURIComponent(q)}${extra}`, { apiKey });
  expect(res.status).toBe(200);
  return res.body.orders;
}

/** One merchant with an order of every kind carrying references, and another merchant with look-alikes. */
async function seed() {
  const { merchant, apiKey } = await seedMerchant();
  const pix = await api("POST", "/api/v1/order/create/pix", {
    apiKey,
    body: { value: 25.9, orderId: "PEDIDO-1042", name: "Maria Souza", cpf: "529.982.247-25" },
  });
  const company = await api("POST", "/api/v1/order/create/pix", {
    apiKey,
    body: { value: 1234.56, orderId: "NF_77%", name: "Padaria Pão Quente", cnpj: "11.222.333/0001-81" },
  });
  const lightning = await api("POST", "/api/v1/order/create/lightning", {
    apiKey,
    body: { value: 35, email: "joao@example.com", name: "João Pereira" },
  });
  const exchange = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 150, payerId: "cliente-77" } });
  const onchain = await api("POST", "/api/v1/onchain/deposit", {
    apiKey,
    body: { value: 40, asset: "USDT", network: "bsc" },
  });
  const qrcode = encodeStaticBrCode({
    pixKey: "fornecedor@example.com",
    merchantName: "Fornecedor LTDA",
    merchantCity: "SAO PAULO",
    amountCentavos: 5000,
  });
  const cryptoPix = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
  for (const r of [pix, company]) expect(r.status).toBe(200);
  for (const r of [lightning, exchange, onchain, cryptoPix]) expect(r.status).toBe(201);
  const other = await seedMerchant();
  await api("POST", "/api/v1/order/create/pix", {
    apiKey: other.apiKey,
    body: { value: 25.9, orderId: "PEDIDO-1042", name: "Maria Souza" },
  });
  return {
    merchant,
    apiKey,
    pix: pix.body.pixOrder,
    company: company.body.pixOrder,
    lightning: lightning.body.order,
    exchange: exchange.body.order,
    onchain: onchain.body.order,
    payCryptoPixId: cryptoPix.body.data.payCryptoPixId as string,
  };
}

describe("GET /api/v1/orders?q= (order search)", () => {
  it("finds an order by the merchant's own orderId, in any case and in part, and never another merchant's", async () => {
    const s = await seed();
    for (const q of ["PEDIDO-1042", "pedido-1042", "1042", "dido-10"]) {
      expect((await search(s.apiKey, q)).map((o) => o.id)).toEqual([s.pix._id]);
    }
  });

  it("finds by the customer's name, e-mail and payer id", async () => {
    const s = await seed();
    expect((await search(s.apiKey, "maria souza")).map((o) => o.id)).toEqual([s.pix._id]);
    expect((await search(s.apiKey, "Souza")).map((o) => o.id)).toEqual([s.pix._id]);
    expect((await search(s.apiKey, "João")).map((o) => o.id)).toEqual([s.lightning.id]);
    expect((await search(s.apiKey, "joao@example")).map((o) => o.id)).toEqual([s.lightning.id]);
    expect((await search(s.apiKey, "cliente-77")).map((o) => o.id)).toEqual([s.exchange.id]);
    expect((await search(s.apiKey, "Pão Quente")).map((o) => o.id)).toEqual([s.company._id]);
  });

  it("finds a name whatever its accents: Joao finds João, Pao Quente finds Pão Quente", async () => {
    const s = await seed();
    for (const q of ["Joao", "joao pereira", "JOÃO", "Joáo"])
      expect((await search(s.apiKey, q)).map((o) => o.id)).toEqual([s.lightning.id]);
    expect((await search(s.apiKey, "Pao Quente")).map((o) => o.id)).toEqual([s.company._id]);
    const page = await listDashboardOrders(s.merchant.id, { q: "Joao Pereira", page: 1, limit: 20 });
    expect(page.orders.map((o) => o.id)).toEqual([s.lightning.id]);
  });

  it("finds by CPF and CNPJ typed with or without their mask", async () => {
    const s = await seed();
    for (const q of ["529.982.247-25", "52998224725", "982.247"])
      expect((await search(s.apiKey, q)).map((o) => o.id)).toEqual([s.pix._id]);
    for (const q of ["11.222.333/0001-81", "11222333000181"])
      expect((await search(s.apiKey, q)).map((o) => o.id)).toEqual([s.company._id]);
  });

  it("finds by the beginning of an order id, a payment link id, part of a deposit address, and a payCryptoPixId", async () => {
    const s = await seed();
    expect((await search(s.apiKey, s.pix._id.slice(0, 8))).map((o) => o.id)).toEqual([s.pix._id]);
    expect((await search(s.apiKey, s.pix._id.slice(0, 13))).map((o) => o.id)).toEqual([s.pix._id]);
    expect((await search(s.apiKey, s.pix._id.toUpperCase())).map((o) => o.id)).toEqual([s.pix._id]);
    expect((await search(s.apiKey, s.lightning.paymentLinkId)).map((o) => o.id)).toEqual([s.lightning.id]);
    expect((await search(s.apiKey, s.onchain.paymentLinkId)).map((o) => o.id)).toEqual([s.onchain.id]);
    expect((await search(s.apiKey, s.onchain.address.slice(5, 17))).map((o) => o.id)).toEqual([s.onchain.id]);
    const cp = await search(s.apiKey, s.payCryptoPixId);
    expect(cp.map((o) => [o.type, o.payCryptoPixId])).toEqual([["crypto_pix", s.payCryptoPixId]]);
    expect((await search(s.apiKey, "Fornecedor")).map((o) => o.type)).toEqual(["crypto_pix"]);
  });

  it("finds by amount, typed the Brazilian or the English way", async () => {
    const s = await seed();
    for (const q of ["25,90", "25.90", "R$ 25,90", "25,9"])
      expect((await search(s.apiKey, q)).map((o) => o.id)).toEqual([s.pix._id]);
    for (const q of ["1.234,56", "1,234.56", "1234,56"])
      expect((await search(s.apiKey, q)).map((o) => o.id)).toEqual([s.company._id]);
    // 150 is the exchange order's amount; it also combines with the other filters.
    expect((await search(s.apiKey, "150", "&type=exchange")).map((o) => o.id)).toEqual([s.exchange.id]);
    expect(await search(s.apiKey, "150", "&type=pix")).toEqual([]);
  });

  it("treats % and _ as text, not wildcards, and matches nothing on one or two characters that are not an amount", async () => {
    const s = await seed();
    expect((await search(s.apiKey, "NF_77%")).map((o) => o.id)).toEqual([s.company._id]);
    expect(await search(s.apiKey, "%")).toEqual([]);
    expect(await search(s.apiKey, "__")).toEqual([]);
    expect(await search(s.apiKey, "xz")).toEqual([]);
    expect(await search(s.apiKey, "zzqxw")).toEqual([]);
  });

  it("pages search results with nextCursor", async () => {
    const { apiKey } = await seedMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api("POST", "/api/v1/order/create/pix", {
        apiKey,
        body: { value: 10 + i, name: `Cliente Recorrente ${i}` },
      });
      ids.push(r.body.pixOrder._id);
    }
    await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 99, name: "Outra Pessoa" } });
    const seen: string[] = [];
    let cursor = "";
    for (;;) {
      const res = await api("GET", `/api/v1/orders?q=recorrente&limit=2${cursor}`, { apiKey });
      expect(res.status).toBe(200);
      seen.push(...res.body.orders.map((o: { id: string }) => o.id));
      if (!res.body.nextCursor) break;
      cursor = `&cursor=${res.body.nextCursor}`;
    }
    // Every match once, across pages (two orders made within the same millisecond may come in either order).
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it("→ 400 { message } for a q longer than 100 characters", async () => {
    const { apiKey } = await seedMerchant();
    const res = await api("GET", `/api/v1/orders?q=${"a".repeat(101)}`, { apiKey });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty("message");
  });

  it("the dashboard's search box finds the same orders", async () => {
    const s = await seed();
    const page = await listDashboardOrders(s.merchant.id, { q: "maria", page: 1, limit: 20 });
    expect(page.orders.map((o) => o.id)).toEqual([s.pix._id]);
    const byAmount = await listDashboardOrders(s.merchant.id, { q: "1.234,56", page: 1, limit: 20 });
    expect(byAmount.orders.map((o) => o.id)).toEqual([s.company._id]);
  });

  it("reaches each table's trigram index: the query spells the indexed expression exactly", async () => {
    const s = await seed();
    // "joao": folded like the indexed text, accents and all (search_fold), and still an index lookup.
    const condition = orderSearchCondition(parseOrderSearch("joao"))!;
    let plan = "";
    // Tiny tables are cheaper to scan: with scans forbidden and the merchant's btree indexes dropped
    // (in a transaction rolled back), the trigram indexes are all that could serve.
    const rollback = new Error("rollback");
    await db()
      .transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        await tx.execute(
          sql`drop index orders_merchant_created, orders_merchant_value, onchain_orders_merchant_created, onchain_orders_merchant_value, crypto_pix_merchant_created, crypto_pix_merchant_value`,
        );
        const rows = await tx.execute<{ "QUERY PLAN": string }>(
          sql`explain select id from ${merchantOrders(s.merchant.id)} where ${condition}`,
        );
        plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
        throw rollback;
      })
      .catch((err) => {
        if (err !== rollback) throw err;
      });
    for (const index of ["orders_search", "onchain_orders_search", "crypto_pix_search"])
      expect(plan).toContain(`Bitmap Index Scan on ${index}`);
  });
});
