import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import v8 from "node:v8";
import vm from "node:vm";
import { sql } from "drizzle-orm";
import { db } from "@/db";
import { exportQuery, exportStream } from "@/lib/dashboard/server/exports";
import { getStatement, statementQuery } from "@/lib/dashboard/server/statement";
import { translator } from "@/lib/i18n";
import { balanceOf, ledgerSum, postLedgerEntry, type LedgerPosting } from "@/lib/ledger/ledger";
import { statementPages } from "@/lib/ledger/statement";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { api, seedMerchant } from "./helpers";

const t = translator("pt-BR");

async function post(
  merchantId: string,
  kind: LedgerPosting["kind"],
  amountCentavos: number,
  refType = "test",
  refId: string = randomUUID(),
) {
  return db().transaction((tx) => postLedgerEntry(tx, { merchantId, kind, amountCentavos, refType, refId }));
}

/** Moves an entry to a São Paulo local time ("2026-10-31 23:30"). */
async function dateEntry(refId: string, local: string) {
  await db().execute(
    sql`update ledger_entries set created_at = (${local}::timestamp at time zone 'America/Sao_Paulo') where ref_id = ${refId}`,
  );
}

/** The file's text with its BOM kept (Response.text() would drop it). */
async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await new Response(stream).arrayBuffer());
}

/** A parsed CSV of ours: no field in these tests holds a quote or line break. */
function rows(csv: string, separator = ","): string[][] {
  return csv
    .replace(/^\uFEFF/, "")
    .split("\r\n")
    .filter(Boolean)
    .map((l) => l.split(separator));
}

/** Every statement entry of a merchant, oldest first, as the export reads them. */
async function allEntries(merchantId: string, pageSize = 1000) {
  const out = [];
  for await (const page of statementPages(db(), { merchantId }, pageSize)) out.push(...page);
  return out;
}

describe("ledger running balance", () => {
  it("each entry shows the balance right after it, in id order, and the last one equals the balance", async () => {
    const { merchant } = await seedMerchant();
    const amounts = [10_000, 2_590, -5_000, 123, -7_000, 40_000];
    for (const a of amounts) await post(merchant.id, a > 0 ? "order_credit" : "withdrawal_debit", a);
    let running = 0;
    const expected = amounts.map((a) => (running += a));
    // Pages of 4 carry the balance from one page to the next.
    expect((await allEntries(merchant.id, 4)).map((e) => e.balanceAfterCentavos)).toEqual(expected);
    expect(await balanceOf(db(), merchant.id)).toBe(running);
    // The dashboard's page (newest first) shows the same balances.
    const s = await getStatement(merchant.id, statementQuery.parse({}));
    expect(s.lines.map((l) => l.balanceAfterCentavos)).toEqual([...expected].reverse());
  });

  it("stays a consistent chain when 30 payments land at once, none of them waiting on the merchant row", async () => {
    const { merchant } = await seedMerchant({ balanceCentavos: 1_000 });
    await Promise.all(Array.from({ length: 30 }, (_, i) => post(merchant.id, "order_credit", 100 + i)));
    let previous = 0;
    for (const e of await allEntries(merchant.id, 7)) {
      expect(e.balanceAfterCentavos).toBe(previous + e.amountCentavos);
      previous = e.balanceAfterCentavos;
    }
    expect(previous).toBe(await ledgerSum(db(), merchant.id));
    expect(previous).toBe(await balanceOf(db(), merchant.id));
  });

  it("a second posting for the same event moves nothing and writes no entry", async () => {
    const { merchant } = await seedMerchant();
    const ref = randomUUID();
    expect(await post(merchant.id, "order_credit", 500, "order", ref)).toBe(true);
    expect(await post(merchant.id, "order_credit", 500, "order", ref)).toBe(false);
    expect((await allEntries(merchant.id)).map((e) => e.balanceAfterCentavos)).toEqual([500]);
  });
});

describe("statement page", () => {
  async function monthOfEntries() {
    const { merchant } = await seedMerchant();
    const refs = {
      before: randomUUID(),
      first: randomUUID(),
      refund: randomUUID(),
      last: randomUUID(),
      after: randomUUID(),
    };
    await post(merchant.id, "adjustment", 50_000, "opening_balance", refs.before);
    await post(merchant.id, "order_credit", 10_000, "order", refs.first);
    await post(merchant.id, "withdrawal_debit", -3_000, "withdrawal", refs.refund);
    await post(merchant.id, "order_credit", 2_500, "onchain_order", refs.last);
    await post(merchant.id, "order_credit", 1_000, "order", refs.after);
    // 23:30 on Oct 31 in São Paulo is already Nov 1 in UTC: days are São Paulo's.
    await dateEntry(refs.before, "2026-10-31 23:30");
    await dateEntry(refs.first, "2026-11-01 00:10");
    await dateEntry(refs.refund, "2026-11-15 12:00");
    await dateEntry(refs.last, "2026-11-30 23:59");
    await dateEntry(refs.after, "2026-12-01 00:01");
    return { merchant, refs };
  }

  it("lists a month's entries newest first with the balance after each, and the balances around it", async () => {
    const { merchant, refs } = await monthOfEntries();
    const s = await getStatement(merchant.id, statementQuery.parse({ from: "2026-11-01", to: "2026-11-30" }));
    expect(s.lines.map((l) => [l.kind, l.amountCentavos, l.balanceAfterCentavos])).toEqual([
      ["order_credit", 2_500, 59_500],
      ["withdrawal_debit", -3_000, 57_000],
      ["order_credit", 10_000, 60_000],
    ]);
    expect(s.openingCentavos).toBe(50_000);
    expect(s.closingCentavos).toBe(59_500);
    expect(s.lines.map((l) => l.source)).toEqual([
      { type: "order", id: refs.last },
      { type: "withdrawal", id: refs.refund },
      { type: "order", id: refs.first },
    ]);
    const all = await getStatement(merchant.id, statementQuery.parse({}));
    expect(all.lines).toHaveLength(5);
    expect(all.openingCentavos).toBeNull();
    expect(all.closingCentavos).toBe(60_500);
  });

  it("filters by kind, keeping each entry's real running balance", async () => {
    const { merchant } = await monthOfEntries();
    const s = await getStatement(merchant.id, statementQuery.parse({ kind: "withdrawal_debit" }));
    expect(s.lines.map((l) => [l.amountCentavos, l.balanceAfterCentavos])).toEqual([[-3_000, 57_000]]);
  });

  it("pages through older entries with nextBefore, and drops malformed filters instead of failing", async () => {
    const { merchant } = await seedMerchant();
    for (let i = 1; i <= 120; i++) await post(merchant.id, "order_credit", i);
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const s = await getStatement(merchant.id, statementQuery.parse({ before: before ? String(before) : undefined }));
      seen.push(...s.lines.map((l) => l.amountCentavos));
      if (!s.nextBefore) break;
      before = s.nextBefore;
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
    expect(statementQuery.parse({ from: "2026-02-30", to: "x", kind: "nope", before: "-1" })).toEqual({});
  });

  it("links a refund's entry to its order", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 30 } });
    const orderId = created.body.pixOrder._id;
    expect((await api("POST", `/api/v1/sandbox/orders/${orderId}/pay`, { apiKey })).status).toBe(200);
    expect((await api("POST", `/api/v1/order/${orderId}/refund`, { apiKey, body: { value: 10 } })).status).toBe(201);
    const s = await getStatement(merchant.id, statementQuery.parse({}));
    const named = {
      title: { by: "kind", kind: "pix", valueCentavos: 3_000, shortId: orderId.slice(0, 8) },
      customer: null,
      split: false,
    };
    expect(s.lines.map((l) => [l.kind, l.amountCentavos, l.balanceAfterCentavos, l.source])).toEqual([
      ["refund_debit", -1_000, 2_000, { type: "order", id: orderId, ...named }],
      ["order_credit", 3_000, 3_000, { type: "order", id: orderId, ...named }],
    ]);
  });

  it("names each entry's order as the merchant knows it: its reference and customer (lib/orders/title.ts)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 30, orderId: "1234", name: "Maria Souza" },
    });
    const named = await api("POST", "/api/v1/order/create/lightning", {
      apiKey,
      body: { value: 20, name: "João Pereira" },
    });
    for (const id of [created.body.pixOrder._id, named.body.order.id])
      expect((await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey })).status).toBe(200);
    const s = await getStatement(merchant.id, statementQuery.parse({}));
    expect(s.lines.map((l) => l.source)).toEqual([
      {
        type: "order",
        id: named.body.order.id,
        title: { by: "customer", text: "João Pereira" },
        customer: null,
        split: false,
      },
      {
        type: "order",
        id: created.body.pixOrder._id,
        title: { by: "reference", text: "1234" },
        customer: "Maria Souza",
        split: false,
      },
    ]);
  });
});

describe("CSV exports", () => {
  it("statement: a São Paulo month, with exact amounts and running balances, in both formats", async () => {
    const { merchant } = await seedMerchant();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await post(merchant.id, "order_credit", 123_456, "order", ids[0]);
    await post(merchant.id, "withdrawal_debit", -100_005, "withdrawal", ids[1]);
    await post(merchant.id, "order_credit", 99, "order", ids[2]);
    await dateEntry(ids[0], "2026-10-31 23:30");
    await dateEntry(ids[1], "2026-11-01 00:10");
    await dateEntry(ids[2], "2026-11-30 23:59");
    const csv = await text(
      exportStream("statement", merchant.id, exportQuery.parse({ from: "2026-11-01", to: "2026-11-30" }), t),
    );
    expect(csv.startsWith("\uFEFF")).toBe(false);
    const [header, ...lines] = rows(csv);
    expect(header).toEqual([
      "Data",
      "Tipo",
      "Descrição",
      "Valor (BRL)",
      "Saldo após (BRL)",
      "Tipo de referência",
      "Referência",
      "Nº do lançamento",
      "Pedido",
      "ID do pedido",
    ]);
    expect(lines.map((l) => l.slice(0, 7))).toEqual([
      ["2026-11-01T00:10:00-03:00", "withdrawal_debit", "Saque", "-1000.05", "234.51", "withdrawal", ids[1]],
      ["2026-11-30T23:59:00-03:00", "order_credit", "Pagamento recebido", "0.99", "235.50", "order", ids[2]],
    ]);
    const excel = await text(
      exportStream(
        "statement",
        merchant.id,
        exportQuery.parse({ format: "excel", to: "2026-10-31" }),
        translator("en"),
      ),
    );
    expect(excel.split("\r\n")[0]).toMatch(/^\uFEFFDate;Type;Description;Amount \(BRL\);/);
    // Excel is read by a person: the entry's type and its reference's type in words, never the API's codes.
    expect(rows(excel, ";")[1].slice(0, 6)).toEqual([
      "2026-10-31 23:30:00",
      "Payment received",
      "Payment received",
      "1234,56",
      "1234,56",
      "Order",
    ]);
  });

  it("statement: each row names its order as the dashboard does, and a refund's row the order it refunded", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 25.9, orderId: "sale-1001", name: "Maria Souza" },
    });
    const orderId = created.body.pixOrder._id;
    await api("POST", `/api/v1/sandbox/orders/${orderId}/pay`, { apiKey });
    const refund = await api("POST", `/api/v1/order/${orderId}/refund`, { apiKey, body: { value: 5 } });
    expect(refund.status).toBe(201);
    const [header, ...lines] = rows(await text(exportStream("statement", merchant.id, exportQuery.parse({}), t)));
    const col = (name: string) => header.indexOf(name);
    const byKind = (kind: string) => lines.find((l) => l[col("Tipo")] === kind)!;
    const credit = byKind("order_credit");
    expect(credit[col("Descrição")]).toBe("Pagamento recebido · Pedido sale-1001 (Maria Souza)");
    expect(credit[col("ID do pedido")]).toBe(orderId);
    const debit = byKind("refund_debit");
    expect(debit[col("Descrição")]).toBe("Devolução ao pagador · Pedido sale-1001 (Maria Souza)");
    expect(debit[col("Pedido")]).toBe("Pedido sale-1001 (Maria Souza)");
    // The reference stays the refund's own id (what the API answers); the order is beside it.
    expect(debit[col("Referência")]).toBe(refund.body.refund.id);
    expect(debit[col("ID do pedido")]).toBe(orderId);
  });

  it("orders: every kind with BRL and crypto amounts, rates, references, tx hashes; formula-like references neutralised", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 25.9, orderId: "=cmd|'/c calc'!A1", name: "Maria Souza", cpf: "529.982.247-25" },
    });
    await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 35, email: "joao@example.com" } });
    const onchain = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 40, asset: "USDT", network: "bsc" },
    });
    const tx = `0x${"ab".repeat(32)}`;
    expect(
      (
        await api("POST", `/api/v1/sandbox/onchain/${onchain.body.order.paymentLinkId}/transfer`, {
          apiKey,
          body: { amount: onchain.body.order.cryptoValue ?? 100, txHash: tx },
        })
      ).status,
    ).toBe(200);
    const qrcode = encodeStaticBrCode({
      pixKey: "fornecedor@example.com",
      merchantName: "Fornecedor LTDA",
      merchantCity: "SAO PAULO",
      amountCentavos: 5000,
    });
    await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });

    const csv = await text(exportStream("orders", merchant.id, exportQuery.parse({}), translator("en")));
    const [header, ...lines] = rows(csv.replace(/"[^"]*"/g, (q) => q.replace(/,/g, "\u0000")));
    const col = (name: string) => header.indexOf(name);
    const byType = Object.fromEntries(lines.map((l) => [l[col("Type")], l]));
    expect(Object.keys(byType).sort()).toEqual(["crypto_pix", "lightning", "onchain", "pix"]);
    expect(byType.pix[col("Value (BRL)")]).toBe("25.90");
    expect(byType.pix[col("Your order id")]).toBe("'=cmd|'/c calc'!A1");
    expect(byType.pix[col("Name")]).toBe("Maria Souza");
    expect(byType.pix[col("CPF/CNPJ")]).toBe("52998224725");
    expect(byType.lightning[col("Asset")]).toBe("BTC");
    expect(byType.lightning[col("Network")]).toBe("lightning");
    expect(Number(byType.lightning[col("Crypto amount")])).toBeGreaterThan(0);
    expect(Number(byType.lightning[col("Rate (BRL per unit)")])).toBeGreaterThan(0);
    expect(byType.lightning[col("E-mail")]).toBe("joao@example.com");
    expect(byType.onchain[col("Status")]).toBe("COMPLETED");
    expect(byType.onchain[col("Asset")]).toBe("USDT");
    expect(byType.onchain[col("Transaction hashes")]).toBe(tx);
    expect(byType.onchain[col("Address")]).toBe(onchain.body.order.address);
    expect(byType.onchain[col("Crypto received")]).not.toBe("");
    expect(byType.crypto_pix[col("Name")]).toBe("Fornecedor LTDA");
    expect(byType.crypto_pix[col("PIX key")]).toBe("fornecedor@example.com");
    for (const l of lines) expect(l).toHaveLength(header.length);
  });

  it("withdrawals: value, fees, debit, token amount, rate and the masked destination", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_000, accountType: "business" });
    expect(
      (await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 12_345, pixKey: "52998224725" } })).status,
    ).toBeLessThan(300);
    const onchain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { value: 100, token: "USDT", network: "bsc", toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" },
    });
    expect(onchain.status).toBeLessThan(300);
    const csv = await text(exportStream("withdrawals", merchant.id, exportQuery.parse({}), translator("en")));
    const [header, ...lines] = rows(csv);
    const col = (name: string) => header.indexOf(name);
    const pix = lines.find((l) => l[col("Type")] === "pix_out")!;
    const chain = lines.find((l) => l[col("Type")] === "onchain")!;
    expect(pix[col("Value (BRL)")]).toBe("123.45");
    expect(pix[col("Destination")]).toBe("***.982.247-**");
    expect(chain[col("Value (BRL)")]).toBe("100.00");
    expect(chain[col("Service fee (BRL)")]).toBe("0.50");
    expect(Number(chain[col("Debited (BRL)")].replace(",", "."))).toBeGreaterThan(100.5);
    expect(chain[col("Destination")]).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(Number(chain[col("Crypto amount")])).toBeGreaterThan(0);
    expect(Number(chain[col("Rate (BRL per unit)")])).toBeGreaterThan(0);
  });

  it("withdrawals in excel: kinds, statuses and failure reasons in the user's words, the provider's text in its own column; csv keeps the codes", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_000, accountType: "business" });
    const made = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 5_000, pixKey: "52998224725" } });
    const refused = await api("POST", "/api/v1/order/pix-out", {
      apiKey,
      body: { value: 7_000, pixKey: "52998224725" },
    });
    const odd = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 9_000, pixKey: "52998224725" } });
    const fail = (id: string, reason: string) =>
      db().execute(sql`update withdrawals set status = 'FAILED', failure_reason = ${reason} where id = ${id}`);
    await fail(refused.body.id, "Recipient bank rejected the transfer (sandbox failing key)");
    await fail(odd.body.id, "weird upstream thing 42");
    expect(made.status).toBeLessThan(300);
    const excel = await text(exportStream("withdrawals", merchant.id, exportQuery.parse({ format: "excel" }), t));
    const [header, ...lines] = rows(excel, ";");
    const col = (name: string) => header.indexOf(name);
    const byValue = (v: string) => lines.find((l) => l[col("Valor (BRL)")] === v)!;
    expect(byValue("50,00")[col("Tipo")]).toBe("Saque PIX");
    expect(byValue("50,00")[col("Status")]).toMatch(/^(Pendente|Concluído)$/);
    expect(byValue("70,00")[col("Status")]).toBe("Falhou");
    expect(byValue("70,00")[col("Motivo da falha")]).toBe("O banco de quem ia receber recusou a transferência.");
    expect(byValue("70,00")[col("Resposta do provedor")]).toBe(
      "Recipient bank rejected the transfer (sandbox failing key)",
    );
    expect(byValue("90,00")[col("Motivo da falha")]).toBe(t("failure.unknown"));
    expect(byValue("90,00")[col("Resposta do provedor")]).toBe("weird upstream thing 42");
    const csv = await text(exportStream("withdrawals", merchant.id, exportQuery.parse({}), t));
    const [csvHeader, ...csvLines] = rows(csv);
    expect(csvHeader).not.toContain("Resposta do provedor");
    const failed = csvLines.find((l) => l[csvHeader.indexOf("Valor (BRL)")] === "70.00")!;
    expect([
      failed[csvHeader.indexOf("Tipo")],
      failed[csvHeader.indexOf("Status")],
      failed[csvHeader.indexOf("Motivo da falha")],
    ]).toEqual(["pix_out", "FAILED", "Recipient bank rejected the transfer (sandbox failing key)"]);
  });

  it("refuses impossible dates, an inverted range and unknown formats with a catalog message", () => {
    const issue = (q: Record<string, string>) => {
      const r = exportQuery.safeParse(q);
      return r.success ? null : r.error.issues[0].message;
    };
    expect(issue({ from: "2026-02-30" })).toBe("export.invalidDate");
    expect(issue({ from: "2026-11-30", to: "2026-11-01" })).toBe("export.invalidRange");
    expect(issue({ format: "xlsx" })).toBe("export.invalidFormat");
    expect(issue({ kind: "bonus" })).toBe("export.invalidKind");
    expect(issue({ from: "2026-11-01", to: "2026-11-30", format: "excel", kind: "order_credit" })).toBeNull();
  });

  it("streams 200,000 statement entries in constant memory", async () => {
    const { merchant } = await seedMerchant();
    const N = 200_000;
    // Seeding 200,000 rows is CPU-bound: on a loaded machine it outlasts the pool's 30 s statement_timeout.
    await db().transaction(async (tx) => {
      await tx.execute(sql`set local statement_timeout = 0`);
      await tx.execute(sql`
        insert into ledger_entries (merchant_id, kind, amount_centavos, ref_type, ref_id, description, created_at)
        select ${merchant.id}, 'adjustment', 100 + n % 1000, 'load', 'load-' || n, null, now() - (${N} - n) * interval '1 second'
        from generate_series(1, ${N}) n`);
      // The balance stays the ledger's sum (other tests check it for every merchant).
      await tx.execute(
        sql`update merchants set balance_centavos = (select sum(amount_centavos) from ledger_entries where merchant_id = ${merchant.id}) where id = ${merchant.id}`,
      );
    });
    expect(await balanceOf(db(), merchant.id)).toBe(await ledgerSum(db(), merchant.id));
    // Page by page, the same way the export reads: it must see all of them, in order.
    let count = 0;
    for await (const page of statementPages(db(), { merchantId: merchant.id }, 5_000)) count += page.length;
    expect(count).toBe(N);

    // What stays reachable while streaming: the heap after a full collection, sampled along the way.
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const retained = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const reader = exportStream("statement", merchant.id, exportQuery.parse({}), t).getReader();
    let bytes = 0;
    let lines = 0;
    let chunks = 0;
    const base = retained();
    const samples: number[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      bytes += r.value.byteLength;
      for (const b of r.value) if (b === 10) lines++;
      if (++chunks % 20 === 0) samples.push(retained() - base);
    }
    expect(lines).toBe(N + 1);
    expect(bytes).toBeGreaterThan(15_000_000);
    const peak = Math.max(...samples);
    console.log(
      `statement export: ${N} rows, ${(bytes / 1e6).toFixed(1)} MB in ${chunks} chunks; retained heap over the start, every 20 chunks (MB): ${samples.map((s) => (s / 1e6).toFixed(1)).join(" ")}`,
    );
    // Flat: holding the file, or its rows, would retain more than the file's size; one page is ~100 kB.
    expect(samples.length).toBeGreaterThanOrEqual(9);
    expect(peak).toBeLessThan(4_000_000);
    // CPU-bound: ~15 s idle, 50 s at load 14 with the other files beside it.
  }, 240_000);
});
