import { db } from "@/db";
import type { Invoice, InvoiceBatch, MerchantProfile } from "@/db/schema";
import { saoPauloDay } from "@/lib/day-range";
import { DomainError, NotFound } from "@/lib/errors";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { describeZodError } from "@/lib/http/validation";
import { isUuid } from "@/lib/ids";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import {
  DueChargeRefused,
  describeDueChargeProblem,
  type BatchItem,
  type DueCharge,
  type DueChargeProblem,
} from "@/lib/providers/pix/due-charges";
import { merchantById } from "@/lib/merchants/queries";
import { mailInvoiceToPayer } from "./mail";
import {
  batchInvoices,
  closeBatchIfDone,
  insertBatch,
  insertInvoice,
  lockInvoice,
  merchantBatch,
  processingBatches,
} from "./queries";
import { createInvoiceBody, type BatchView, type CreateBatchInput, type CreateInvoiceInput } from "./schemas";
import { chargeRequest, invoiceValues, insertInvoiceOrder, requireCollectingMerchant } from "./service";
import { changeInvoiceStatus } from "@/lib/invoice-state/transitions";
import { invoiceView } from "@/lib/invoice-state/views";
import { checkTerms, termsOfInput } from "./terms-check";

// Batches of invoices (API Pix lotecobv, docs/api.md#invoice-batches): every invoice of the request is
// checked on its own; those our checks refuse are answered at once and never sent, the others are
// recorded PROCESSING (committed before anything leaves) and sent to the PSP in one PUT /lotecobv/{id}.
// The PSP makes them one by one: GET /lotecobv/{id} says which it made (CRIADA: its code is read with
// GET /cobv/{txid}, and the invoice becomes OPEN with its order) and which it refused (NEGADA, with the
// PSP's problem: REFUSED). The sweep asks until none is left PROCESSING.

const problemError = (problem: DueChargeProblem) => `Refused by the PIX provider: ${describeDueChargeProblem(problem)}`;

export async function createBatch(merchant: MerchantProfile, input: CreateBatchInput): Promise<InvoiceBatch> {
  requireCollectingMerchant(merchant);
  const today = saoPauloDay();
  const dueCharges = providers().dueCharges;
  const accepted: { index: number; input: CreateInvoiceInput }[] = [];
  const refusals: { index: number; error: string }[] = [];
  input.invoices.forEach((raw, index) => {
    const parsed = createInvoiceBody.safeParse(raw);
    if (!parsed.success) return refusals.push({ index, error: describeZodError(parsed.error) });
    try {
      checkTerms(termsOfInput(parsed.data), today);
      accepted.push({ index, input: parsed.data });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      refusals.push({ index, error: err.message });
    }
  });
  const made = await db().transaction(async (tx) => {
    const batch = await insertBatch(tx, {
      merchantId: merchant.id,
      description: input.description,
      size: input.invoices.length,
      refusals,
      status: accepted.length ? "PROCESSING" : "DONE",
    });
    const rows: Invoice[] = [];
    for (const a of accepted) {
      const terms = termsOfInput(a.input);
      const values = invoiceValues(merchant.id, a.input, terms, dueCharges.newTxid(), dueCharges.name);
      rows.push(await insertInvoice(tx, { ...values, status: "PROCESSING", batchId: batch.id, batchIndex: a.index }));
    }
    await bindIdempotencyKey(tx, { type: "invoice_batch", id: batch.id });
    return { batch, rows };
  });
  if (made.rows.length === 0) return made.batch;
  const requests = made.rows.map((row) => {
    const a = accepted.find((x) => x.index === row.batchIndex)!;
    return chargeRequest(a.input, termsOfInput(a.input), row.txid);
  });
  try {
    const items = await dueCharges.createBatch({
      id: made.batch.pspBatchId,
      description: made.batch.description,
      items: requests,
    });
    if (items) await applyBatchItems(made.batch, items, merchant.companyName);
  } catch (err) {
    if (err instanceof DueChargeRefused) await refuseAll(made.batch, err.problem);
    // Any other failure decides nothing: the sweep reads the batch, and sends it again if the PSP has none.
    else log.warn("batch not confirmed by the PSP yet; the sweep follows it", { batchId: made.batch.id, err });
  }
  return (await merchantBatch(db(), merchant.id, made.batch.id))!;
}

/** The PSP refused the whole batch (a 400 to its PUT): every invoice of it is REFUSED with that problem. */
async function refuseAll(batch: InvoiceBatch, problem: DueChargeProblem): Promise<void> {
  for (const { invoice } of await batchInvoices(db(), batch.id))
    if (invoice.status === "PROCESSING") await refuseInvoice(invoice, problem);
  await closeBatchIfDone(db(), batch.id);
}

async function refuseInvoice(invoice: Invoice, problem: DueChargeProblem): Promise<void> {
  await db().transaction(async (tx) => {
    const locked = await lockInvoice(tx, invoice.id);
    if (locked?.status === "PROCESSING")
      await changeInvoiceStatus(tx, locked, ["PROCESSING"], "REFUSED", null, { problem });
  });
}

/** The PSP made the charge: its code is read back (unless the provider gave it), and the invoice becomes OPEN with its order. */
async function openInvoice(invoice: Invoice, company: string, given?: DueCharge): Promise<void> {
  const dueCharges = providers().dueCharges;
  let charge = given;
  if (!charge) {
    const read = await dueCharges.read(invoice.txid);
    // Listed as made but not readable yet (a read that lags): the next sweep asks again.
    if (!read) return;
    charge = { txid: invoice.txid, brcode: read.brcode, provider: dueCharges.name, location: read.location };
  }
  const opened = await db().transaction(async (tx) => {
    const locked = await lockInvoice(tx, invoice.id);
    if (locked?.status !== "PROCESSING") return null;
    const order = await insertInvoiceOrder(tx, locked, charge);
    const after = await changeInvoiceStatus(tx, locked, ["PROCESSING"], "OPEN", order, { orderId: order.id });
    return after ? { invoice: after, order } : null;
  });
  if (opened?.invoice.notifyPayer) mailInvoiceToPayer(opened.invoice, opened.order, company);
}

async function applyBatchItems(batch: InvoiceBatch, items: BatchItem[], company: string): Promise<void> {
  const byTxid = new Map(items.map((i) => [i.txid, i]));
  for (const { invoice } of await batchInvoices(db(), batch.id)) {
    if (invoice.status !== "PROCESSING") continue;
    const item = byTxid.get(invoice.txid);
    if (!item || item.status === "EM_PROCESSAMENTO") continue;
    if (item.status === "NEGADA") await refuseInvoice(invoice, item.problem);
    else await openInvoice(invoice, company, item.charge);
  }
  await closeBatchIfDone(db(), batch.id);
}

/** The sweep's step: what the PSP says of each batch still PROCESSING. */
export async function followBatches(limit = 20): Promise<number> {
  const dueCharges = providers().dueCharges;
  let followed = 0;
  for (const batch of await processingBatches(db(), limit)) {
    try {
      const items = await dueCharges.readBatch(batch.pspBatchId);
      const merchant = await merchantById(db(), batch.merchantId);
      await applyBatchItems(batch, items, merchant?.companyName ?? "");
      followed++;
    } catch (err) {
      log.warn("batch not read from the PSP; the next sweep asks again", { batchId: batch.id, err });
    }
  }
  return followed;
}

export async function findBatch(merchantId: string, id: string): Promise<InvoiceBatch> {
  const batch = isUuid(id) ? await merchantBatch(db(), merchantId, id.toLowerCase()) : null;
  if (!batch) throw new NotFound("Invoice batch not found");
  return batch;
}

/** The batch with each invoice of the request at its place: made, still processing, or refused and why. */
export async function batchView(batch: InvoiceBatch): Promise<BatchView> {
  const rows = await batchInvoices(db(), batch.id);
  const now = new Date();
  const items: BatchView["items"] = [
    ...batch.refusals.map((r) => ({ index: r.index, status: "REFUSED" as const, invoice: null, error: r.error })),
    ...rows.map(({ invoice, order }) => ({
      index: invoice.batchIndex ?? 0,
      status:
        invoice.status === "PROCESSING"
          ? ("PROCESSING" as const)
          : invoice.status === "REFUSED"
            ? ("REFUSED" as const)
            : ("CREATED" as const),
      invoice: invoiceView(invoice, order, now),
      error: invoice.status === "REFUSED" && invoice.problem ? problemError(invoice.problem) : null,
    })),
  ].sort((a, b) => a.index - b.index);
  const count = (s: string) => items.filter((i) => i.status === s).length;
  return {
    id: batch.id,
    description: batch.description,
    status: batch.status,
    createdAt: batch.createdAt.toISOString(),
    counts: { processing: count("PROCESSING"), created: count("CREATED"), refused: count("REFUSED") },
    items,
  };
}
