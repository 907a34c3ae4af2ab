import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { events, invoices, orders, pixReceipts } from "@/db/schema";
import { saoPauloDay, saoPauloDayStart } from "@/lib/day-range";
import { resetEnvForTests } from "@/lib/env";
import { followBatches } from "@/lib/invoices/batches";
import { expireInvoices } from "@/lib/invoices/service";
import { termsOf } from "@/lib/invoice-state/terms";
import { reconcileReceivedPix } from "@/lib/pix-collection/reconcile";
import { addDays, daysBetween } from "@/lib/pix/business-days";
import { parseBrCode } from "@/lib/pix/brcode";
import { amountDue } from "@/lib/pix/due-amount";
import { registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { startWorker, stopWorker } from "@/lib/worker";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api } from "./helpers";
import { saveEnv } from "./support/env";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { waitFor } from "./support/wait";

// Invoices in live mode against the test PSP (tests/fixtures/pix-psp, cobv.ts): each is a cobv made with
// PUT /cobv/{txid}, every request and answer checked against the Central Bank's document; the amount our
// API shows for a day is the payload the charge's location serves for it; payments before, on and after
// the due date are notified, read back (GET /pix/{e2eid}) and credited what was paid; a lost notification
// is found by the poll; expiry and cancellation remove the charge at the PSP first; batches go through
// PUT /lotecobv/{id} and come back charge by charge.

const RECEIVER_KEY = "b3f1a8c2-5b7e-4c3a-9e1f-2a4b6c8d0e77";
const PAYOUT_KEY = "pagamentos-invoices@pixcrypto.example";
const WEBHOOK_TOKEN = "live-invoices-test-webhook-token-012345";

let psp: PixPsp;
let receiver: HttpsReceiver;
const savedEnv = saveEnv();
const today = saoPauloDay();

function body(extra: Record<string, unknown> = {}) {
  return {
    value: 200,
    dueDate: addDays(today, 8),
    daysAfterDue: 20,
    payer: { name: "Ana Lima", cnpj: "11.222.333/0001-81", email: "financeiro@example.com" },
    fine: { modalidade: 2, percent: 2 },
    interest: { modalidade: 3, percent: 1 },
    discount: { modalidade: 1, dates: [{ date: addDays(today, 3), value: 15 }] },
    description: "Serviços de novembro",
    ...extra,
  };
}

async function create(apiKey: string, extra: Record<string, unknown> = {}) {
  const res = await api("POST", "/api/v1/invoices", { apiKey, body: body(extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.invoice;
}

const invoiceOf = async (apiKey: string, id: string) =>
  (await api("GET", `/api/v1/invoices/${id}`, { apiKey })).body.invoice;
const txidOf = async (id: string) => (await db().select().from(invoices).where(eq(invoices.id, id)))[0].txid;
/** Noon of a São Paulo day: when a payer pays "on" it. */
const noonOf = (day: string) => new Date(saoPauloDayStart(day).getTime() + 12 * 3_600_000);

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  receiver = await startHttpsReceiver(psp, { mtls: "skip" });
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, webhookToken: WEBHOOK_TOKEN }),
  );
  resetEnvForTests();
  await registerPixWebhooks(`${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`);
});

afterEach(() => {
  // Every request we sent and every answer the PSP gave followed the Central Bank's document.
  expect(psp.violations).toEqual([]);
  Object.assign(psp.faults, { dropNotifications: false, batchDelayMs: 0, refuseCobv: () => [] });
});

afterAll(async () => {
  await stopWorker();
  await receiver.close();
  await psp.close();
  savedEnv.restore();
});

describe("live invoices through API Pix cobv", () => {
  it("is a cobv at the PSP with our terms; its BR Code is the PSP's, whose payload asks what our API shows, day by day", async () => {
    const { apiKey } = await liveMerchant();
    const invoice = await create(apiKey);
    const txid = await txidOf(invoice.id);
    expect(txid).toMatch(/^[a-zA-Z0-9]{32}$/);
    const cobv = psp.cobvs.get(txid)!;
    expect(cobv).toMatchObject({
      status: "ATIVA",
      chave: RECEIVER_KEY,
      calendario: { dataDeVencimento: addDays(today, 8), validadeAposVencimento: 20 },
      devedor: { cnpj: "11222333000181", nome: "Ana Lima", email: "financeiro@example.com" },
      valor: {
        original: "200.00",
        multa: { modalidade: 2, valorPerc: "2.00" },
        juros: { modalidade: 3, valorPerc: "1.00" },
        desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(today, 3), valorPerc: "15.00" }] },
      },
      solicitacaoPagador: "Serviços de novembro",
    });
    expect(invoice.brcode).toBe(cobv.pixCopiaECola);
    const code = parseBrCode(invoice.brcode);
    expect(code.kind).toBe("dynamic");
    // "Valor hoje" is what the payer's bank is served today…
    const served = await psp.readPayload(code.url!);
    expect(served.status).toBe(200);
    expect(served.payload.valor.final).toBe(invoice.amountDue.value.toFixed(2));
    // …and on every day it can be paid, before, on and after the due date.
    const [row] = await db().select().from(invoices).where(eq(invoices.id, invoice.id));
    for (let day = today; daysBetween(day, invoice.lastPayableDay) >= 0; day = addDays(day, 1)) {
      const ours = amountDue(termsOf(row), day);
      const theirs = await psp.readPayload(code.url!, { dpp: day });
      expect(ours.payable && (ours.totalCentavos / 100).toFixed(2), day).toBe(theirs.payload.valor.final);
    }
    expect((await psp.readPayload(code.url!, { dpp: addDays(invoice.lastPayableDay, 1) })).status).toBe(410);
  });

  it("paid before the due date: notified, read back, credited the discounted amount once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    await startWorker();
    const invoice = await create(apiKey);
    const pix = await psp.pay(await txidOf(invoice.id));
    expect(pix.valor).toBe("185.00");
    await waitFor(
      "PAID",
      () => invoiceOf(apiKey, invoice.id),
      (i) => i.status === "PAID",
    );
    const paid = await invoiceOf(apiKey, invoice.id);
    expect(paid.payment).toMatchObject({
      day: today,
      value: 185,
      discount: 15,
      fine: 0,
      interest: 0,
      endToEndId: pix.endToEndId,
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(18500);
    expect(psp.requests.some((r) => r.method === "GET" && r.path.endsWith(`/pix/${pix.endToEndId}`))).toBe(true);
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.endToEndId, pix.endToEndId));
    expect(receipt).toMatchObject({ applied: true, source: "notification", valueCentavos: 18500 });
  });

  it("paid on the due date: the original; after it: the fine and the month's interest pro rata, what the PSP took", async () => {
    const { merchant, apiKey } = await liveMerchant();
    await startWorker();
    const onTime = await create(apiKey);
    await psp.pay(await txidOf(onTime.id), { horario: noonOf(onTime.effectiveDueDate) });
    await waitFor(
      "PAID",
      () => invoiceOf(apiKey, onTime.id),
      (i) => i.status === "PAID",
    );
    expect((await invoiceOf(apiKey, onTime.id)).payment).toMatchObject({ value: 200, fine: 0, interest: 0 });

    const late = await create(apiKey);
    const day = addDays(late.effectiveDueDate, 6);
    const pix = await psp.pay(await txidOf(late.id), { horario: noonOf(day) });
    // 2% of 200.00 = 4.00; 1% a month for 6 days = 200.00 × 0.01 × 6/30 = 0.40.
    expect(pix.valor).toBe("204.40");
    expect(pix.componentesValor).toEqual({
      original: { valor: "200.00" },
      multa: { valor: "4.00" },
      juros: { valor: "0.40" },
    });
    await waitFor(
      "PAID",
      () => invoiceOf(apiKey, late.id),
      (i) => i.status === "PAID",
    );
    const paid = await invoiceOf(apiKey, late.id);
    expect(paid.payment).toMatchObject({ day, value: 204.4, original: 200, fine: 4, interest: 0.4 });
    expect(paid.order).toMatchObject({ status: "COMPLETED" });
    const order = (await api("GET", `/api/v1/order/${paid.order.id}`, { apiKey })).body.order;
    expect(order).toMatchObject({ value: 204.4, status: "COMPLETED" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(20000 + 20440);
  });

  it("with the notification lost, the reconciliation poll pays it", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const invoice = await create(apiKey);
    psp.faults.dropNotifications = true;
    await psp.pay(await txidOf(invoice.id));
    await reconcileReceivedPix();
    expect((await invoiceOf(apiKey, invoice.id)).status).toBe("PAID");
    expect(await balanceMatchesLedger(merchant.id)).toBe(18500);
  });

  it("a Pix of another amount than the day's is kept as unapplied funds; the invoice stays OPEN", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const invoice = await create(apiKey);
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(await txidOf(invoice.id), { valor: "200.00", force: true });
    await reconcileReceivedPix();
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.endToEndId, pix.endToEndId));
    expect(receipt).toMatchObject({ applied: false, unappliedReason: "wrong_value", orderId: invoice.order.id });
    expect((await invoiceOf(apiKey, invoice.id)).status).toBe("OPEN");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("not paid by its last day: the charge is removed at the PSP, then EXPIRED with its event", async () => {
    await stopWorker();
    const { apiKey } = await liveMerchant();
    const invoice = await create(apiKey, { dueDate: addDays(today, 1), daysAfterDue: 0, discount: undefined });
    await db().execute(sql`update invoices set expires_at = now() - interval '1 second' where id = ${invoice.id}`);
    await expireInvoices(500);
    expect(psp.cobvs.get(await txidOf(invoice.id))!.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    const after = await invoiceOf(apiKey, invoice.id);
    expect(after).toMatchObject({ status: "EXPIRED", order: { status: "CANCELLED" } });
    const [event] = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, invoice.id), eq(events.type, "invoice.status_changed")));
    expect(event.data).toMatchObject({ status: "EXPIRED", previousStatus: "OPEN" });
  });

  it("paid at its expiry but not yet notified: the PSP refuses the removal, the invoice waits, the poll pays it", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const invoice = await create(apiKey, { discount: undefined });
    psp.faults.dropNotifications = true;
    await psp.pay(await txidOf(invoice.id));
    await db().execute(sql`update invoices set expires_at = now() - interval '1 second' where id = ${invoice.id}`);
    expect(await expireInvoices(500)).toBe(0);
    expect((await db().select().from(invoices).where(eq(invoices.id, invoice.id)))[0].status).toBe("OPEN");
    await reconcileReceivedPix();
    expect((await db().select().from(invoices).where(eq(invoices.id, invoice.id)))[0].status).toBe("PAID");
    expect(await balanceMatchesLedger(merchant.id)).toBe(20000);
  });

  it("cancelled by the merchant: PATCH /cobv removes the charge; a paid one answers 409", async () => {
    const { apiKey } = await liveMerchant();
    const invoice = await create(apiKey);
    const res = await api("POST", `/api/v1/invoices/${invoice.id}/cancel`, { apiKey });
    expect(res.body.invoice).toMatchObject({ status: "CANCELLED" });
    expect(psp.cobvs.get(await txidOf(invoice.id))!.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    await stopWorker();
    const paid = await create(apiKey);
    psp.faults.dropNotifications = true;
    await psp.pay(await txidOf(paid.id));
    const refused = await api("POST", `/api/v1/invoices/${paid.id}/cancel`, { apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe("The payer has already paid this invoice: its payment is being applied");
  });

  it("a charge the PSP refuses is a 400 with the PSP's words, and nothing is recorded", async () => {
    const { merchant, apiKey } = await liveMerchant();
    psp.faults.refuseCobv = () => [{ razao: "O CPF ou CNPJ do devedor é inválido.", propriedade: "cobv.devedor" }];
    const res = await api("POST", "/api/v1/invoices", { apiKey, body: body() });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "The PIX provider refused the charge: Cobrança inválida.: A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o schema ou está semanticamente errada. (cobv.devedor: O CPF ou CNPJ do devedor é inválido.)",
    );
    expect(await db().select().from(invoices).where(eq(invoices.merchantId, merchant.id))).toEqual([]);
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });

  it("a batch is one PUT /lotecobv/{id}; the PSP makes or refuses each charge, and the sweep brings each back", async () => {
    await stopWorker();
    const { apiKey } = await liveMerchant();
    psp.faults.refuseCobv = (b) =>
      b.devedor?.nome === "Recusado" ? [{ razao: "O devedor não pode ser cobrado.", propriedade: "cobv.devedor" }] : [];
    psp.faults.batchDelayMs = 100;
    const res = await api("POST", "/api/v1/invoices/batches", {
      apiKey,
      body: {
        description: "Lote de teste",
        invoices: [
          body({ reference: "b-1" }),
          body({ payer: { name: "Recusado", cpf: "529.982.247-25" } }),
          body({ value: "x" }),
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.batch).toMatchObject({ status: "PROCESSING", counts: { processing: 2, created: 0, refused: 1 } });
    const lotes = [...psp.lotes.values()];
    const lote = lotes[lotes.length - 1];
    expect(lote).toMatchObject({ descricao: "Lote de teste" });
    expect(lote.items).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 150));
    await followBatches();
    const batch = (await api("GET", `/api/v1/invoices/batches/${res.body.batch.id}`, { apiKey })).body.batch;
    expect(batch).toMatchObject({ status: "DONE", counts: { processing: 0, created: 1, refused: 2 } });
    const [made, refused, invalid] = batch.items;
    expect(made).toMatchObject({ index: 0, status: "CREATED", invoice: { status: "OPEN", reference: "b-1" } });
    expect(made.invoice.brcode).toBe(psp.cobvs.get(await txidOf(made.invoice.id))!.pixCopiaECola);
    expect(refused).toMatchObject({ index: 1, status: "REFUSED", invoice: { status: "REFUSED" } });
    expect(refused.error).toContain("cobv.devedor: O devedor não pode ser cobrado.");
    expect(refused.invoice.problem.violations).toEqual([
      { property: "cobv.devedor", reason: "O devedor não pode ser cobrado." },
    ]);
    expect(invalid).toMatchObject({ index: 2, status: "REFUSED", invoice: null });
    // The invoice the batch made is paid like any other.
    psp.faults.dropNotifications = true;
    await psp.pay(await txidOf(made.invoice.id));
    await reconcileReceivedPix();
    expect((await invoiceOf(apiKey, made.invoice.id)).status).toBe("PAID");
  });

  it("its order refunds through PUT /pix/{e2eid}/devolucao/{id}, up to what was paid", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const invoice = await create(apiKey);
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(await txidOf(invoice.id));
    await reconcileReceivedPix();
    const refund = await api("POST", `/api/v1/order/${invoice.order.id}/refund`, { apiKey, body: {} });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(refund.body.refund).toMatchObject({ value: 185 });
    await waitFor(
      "refunded",
      async () => psp.received.get(pix.endToEndId)?.devolucoes?.[0]?.status,
      (s) => s === "DEVOLVIDO",
    );
    expect(psp.received.get(pix.endToEndId)!.devolucoes![0].valor).toBe("185.00");
    await waitFor(
      "balance 0",
      () => balanceMatchesLedger(merchant.id),
      (b) => b === 0,
    );
  });
});
