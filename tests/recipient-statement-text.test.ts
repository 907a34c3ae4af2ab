import { describe, expect, it } from "vitest";
import { getRecipientDetail } from "@/lib/dashboard/server/recipients";
import { getStatement, statementQuery } from "@/lib/dashboard/server/statement";
import { exportQuery, exportStream } from "@/lib/dashboard/server/exports";
import { translator } from "@/lib/i18n";
import { runAutoPayouts } from "@/lib/recipients/auto-payouts";
import { saoPauloDayStart } from "@/lib/day-range";
import { api, seedMerchant } from "./helpers";

// The statements' text on the dashboard (docs/dashboard.md, Recebedores): a recipient's entries are said
// in the reader's language from what they are about (the order a part came from or was taken back
// for, the automatic payout's day), while the API's `description` stays the service's English text;
// the merchant's own credit of a split sale says it is the merchant's part, on the page and in the export;
// the orders export lists each sale's parts and what they come to.

async function splitSale() {
  const seeded = await seedMerchant();
  const { apiKey } = seeded;
  const made = await api("POST", "/api/v1/recipients", {
    apiKey,
    body: {
      name: "Maria Souza",
      document: "52998224725",
      pixKey: "maria@example.com",
      payoutSchedule: { interval: "daily" },
    },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const recipient = made.body.recipient;
  const order = await api("POST", "/api/v1/order/create/pix", {
    apiKey,
    body: { value: 100, orderId: "sale-1001", name: "João Lima", splits: [{ recipientId: recipient.id, value: 30 }] },
  });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  const orderId = order.body.pixOrder._id as string;
  expect((await api("POST", `/api/v1/sandbox/orders/${orderId}/pay`, { apiKey })).status).toBe(200);
  return { ...seeded, recipient, orderId };
}

describe("a recipient's statement on the dashboard", () => {
  it("names the order of a split credit and of a refund's take-back, and an automatic payout's day; the API keeps its English text", async () => {
    const { merchant, apiKey, recipient, orderId } = await splitSale();
    const refund = await api("POST", `/api/v1/order/${orderId}/refund`, { apiKey, body: { value: 10 } });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    const slot = recipient.payoutSchedule.nextSlot as string;
    await runAutoPayouts(new Date(saoPauloDayStart(slot).getTime() + 3_600_000));

    const detail = (await getRecipientDetail(merchant.id, recipient.id))!;
    const byKind = new Map(detail.statement.entries.map((e) => [e.kind, e]));
    expect([...byKind.keys()].sort()).toEqual(["payout_debit", "split_credit", "split_refund"]);
    for (const kind of ["split_credit", "split_refund"]) {
      expect(detail.sources[byKind.get(kind)!.id].order).toMatchObject({
        type: "order",
        id: orderId,
        title: { by: "reference", text: "sale-1001" },
        customer: "João Lima",
      });
    }
    expect(detail.sources[byKind.get("payout_debit")!.id]).toEqual({ slot });
    // Every kind the page can show has its own label in both catalogs.
    for (const locale of ["pt-BR", "en"] as const) {
      const t = translator(locale);
      for (const kind of [...byKind.keys(), "split_med_return", "split_refund_reversal", "payout_reversal"])
        expect(t(`recipients.entry.${kind}` as never)).not.toBe(t("recipients.entry.other"));
    }

    // The API's text is the service's, unchanged.
    const statement = await api("GET", `/api/v1/recipients/${recipient.id}/statement`, { apiKey });
    const descriptions = statement.body.entries.map((e: { description: string }) => e.description);
    expect(descriptions).toContain(`Automatic PIX payout (${slot})`);
    expect(descriptions.some((d: string) => /^split of pix order /.test(d))).toBe(true);
  });
});

describe("the merchant's statement of a split sale", () => {
  it("marks the credit as the merchant's part, on the page and in the export", async () => {
    const { merchant } = await splitSale();
    const plain = await seedMerchant();
    const line = (await getStatement(merchant.id, statementQuery.parse({}))).lines.find(
      (l) => l.kind === "order_credit",
    )!;
    expect(line.amountCentavos).toBe(7_000);
    expect(line.source).toMatchObject({ type: "order", split: true });

    const t = translator("pt-BR");
    const csv = await new Response(exportStream("statement", merchant.id, exportQuery.parse({}), t)).text();
    expect(csv).toContain(`Pagamento recebido · Pedido sale-1001 (João Lima) · ${t("statement.splitPart")}`);

    // An order without a split says nothing of it.
    const order = await api("POST", "/api/v1/order/create/pix", { apiKey: plain.apiKey, body: { value: 5 } });
    await api("POST", `/api/v1/sandbox/orders/${order.body.pixOrder._id}/pay`, { apiKey: plain.apiKey });
    const plainLine = (await getStatement(plain.merchant.id, statementQuery.parse({}))).lines[0];
    expect(plainLine.source).toMatchObject({ type: "order", split: false });
  });
});

describe("the orders export of a split sale", () => {
  it("lists each part (recipient, value, state) and their total: codes in csv, words in excel", async () => {
    const { merchant, orderId } = await splitSale();
    const t = translator("pt-BR");
    const exported = (format: "csv" | "excel") =>
      new Response(exportStream("orders", merchant.id, exportQuery.parse({ format }), t)).text();
    const table = (csv: string, sep: string) =>
      csv
        .replace(/^\uFEFF/, "")
        .split("\r\n")
        .filter(Boolean)
        .map((l) => l.split(sep));

    const [header, ...lines] = table(await exported("csv"), ",");
    const row = lines.find((l) => l[header.indexOf(t("export.col.id"))] === orderId)!;
    expect(row[header.indexOf(t("export.col.splits"))]).toBe("Maria Souza: 30.00 CREDITED");
    expect(row[header.indexOf(t("export.col.splitsTotal"))]).toBe("30.00");

    const [xHeader, ...xLines] = table(await exported("excel"), ";");
    const xRow = xLines.find((l) => l[xHeader.indexOf(t("export.col.id"))] === orderId)!;
    expect(xRow[xHeader.indexOf(t("export.col.splits"))]).toMatch(/^Maria Souza: R\$\s30,00 Creditado$/);
    expect(xRow[xHeader.indexOf(t("export.col.splitsTotal"))]).toBe("30,00");
  });
});
