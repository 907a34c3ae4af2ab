import { db, type Tx } from "@/db";
import type { Invoice, MerchantProfile, Order } from "@/db/schema";
import { saoPauloDay, saoPauloDayStart } from "@/lib/day-range";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { isUuid, newId, newOrderHash, newPaymentLinkId } from "@/lib/ids";
import { log } from "@/lib/log";
import { insertOrderIn, lockOrder } from "@/lib/orders/queries";
import { cancelPendingOrder } from "@/lib/orders/service";
import { keysetPage } from "@/lib/paging";
import { dueWindow, type DueTerms } from "@/lib/pix/due-amount";
import { providers } from "@/lib/providers";
import type { DueCharge, DueChargePayer, DueChargeRequest } from "@/lib/providers/pix/due-charges";
import { requireRail } from "@/lib/providers/rails";
import { changeInvoiceStatus } from "@/lib/invoice-state/transitions";
import { invoiceView } from "@/lib/invoice-state/views";
import type { InvoiceView } from "@/lib/invoice-state/schemas";
import { mailInvoiceToPayer } from "./mail";
import {
  insertInvoice,
  invoicesPage,
  lockInvoice,
  merchantInvoice,
  openPastExpiry,
  type InvoiceWithOrder,
} from "./queries";
import type { CreateInvoiceInput, ListInvoicesQuery } from "./schemas";
import { checkTerms, termsOfInput } from "./terms-check";

// Invoices with a due date (docs/api.md#invoices): made at the PSP as a charge with a due date (API Pix
// cobv), then recorded with the PIX order that takes its payment, in one transaction. The payment
// is applied by the received-PIX path every PIX order uses (lib/orders/pix-receipts.ts), which asks
// the invoice what the payment's day takes; expiry and cancellation remove the charge at the PSP
// first and close the order with the invoice.

/** The merchant needs a PIX key before the PSP collects for it (as for PIX orders). */
export function requireCollectingMerchant(merchant: MerchantProfile): void {
  requireRail("pix");
  if (!merchant.pixKey)
    throw new InvalidInput("The merchant has no registered PIX key: register one before creating invoices", {
      code: "pixKey.noneToCollect",
    });
}

export function payerOf(input: CreateInvoiceInput): DueChargePayer {
  const p = input.payer;
  return {
    name: p.name,
    ...(p.cpf ? { cpf: p.cpf } : { cnpj: p.cnpj! }),
    ...(p.email ? { email: p.email } : {}),
  };
}

/** The invoice's row before the PSP has a charge for it (a batch's) or once it has. */
export function invoiceValues(
  merchantId: string,
  input: CreateInvoiceInput,
  terms: DueTerms,
  txid: string,
  provider: string,
) {
  const { lastDay } = dueWindow(terms);
  return {
    merchantId,
    txid,
    provider,
    payerName: input.payer.name,
    payerCpf: input.payer.cpf ?? null,
    payerCnpj: input.payer.cnpj ?? null,
    payerEmail: input.payer.email ?? null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    ...terms,
    lastPayableDay: lastDay,
    expiresAt: new Date(saoPauloDayStart(lastDay, 1).getTime() - 1),
    notifyPayer: input.notifyPayer,
    metadata: input.metadata ?? {},
  };
}

/**
 * The PIX order that takes the invoice's payment: a PIX order like any other (refunds, MED, the
 * statement and exports read it), whose value is the original until it is paid, then what was paid.
 * Its references are the payer's and the merchant's (so order search finds it by them) and the
 * invoice's id, which tells the received-PIX path to ask the invoice what a payment must be
 * (lib/orders/pix-receipts.ts). It has no expiry of its own: the invoice's decides (expireInvoices).
 */
export function insertInvoiceOrder(
  tx: Tx,
  invoice: Pick<
    Invoice,
    | "id"
    | "merchantId"
    | "originalCentavos"
    | "reference"
    | "payerName"
    | "payerCpf"
    | "payerCnpj"
    | "payerEmail"
    | "description"
    | "metadata"
  >,
  charge: DueCharge,
) {
  const reference: Record<string, string> = { invoiceId: invoice.id, name: invoice.payerName };
  if (invoice.reference) reference.orderId = invoice.reference;
  if (invoice.payerCpf) reference.cpf = invoice.payerCpf;
  if (invoice.payerCnpj) reference.cnpj = invoice.payerCnpj;
  if (invoice.payerEmail) reference.email = invoice.payerEmail;
  if (invoice.description) reference.description = invoice.description;
  return insertOrderIn(tx, {
    merchantId: invoice.merchantId,
    kind: "pix",
    paymentLinkId: newPaymentLinkId(),
    hash: newOrderHash(),
    valueCentavos: invoice.originalCentavos,
    reference,
    // The invoice's metadata on its order too, so the order's events carry it.
    metadata: invoice.metadata,
    provider: charge.provider,
    providerRef: charge.txid,
    brcode: charge.brcode,
    txid: charge.txid,
  });
}

/** The invoice an order takes the payment of, when it is one's (its references name it). */
export const invoiceIdOfOrder = (order: Order): string | undefined => order.reference.invoiceId;

export function chargeRequest(input: CreateInvoiceInput, terms: DueTerms, txid: string): DueChargeRequest {
  return { txid, terms, payer: payerOf(input), ...(input.description ? { description: input.description } : {}) };
}

/** A new invoice, payable at once: the PSP's charge first, then the invoice and its order in one commit. */
export async function createInvoice(merchant: MerchantProfile, input: CreateInvoiceInput): Promise<InvoiceWithOrder> {
  requireCollectingMerchant(merchant);
  const terms = termsOfInput(input);
  checkTerms(terms, saoPauloDay());
  const dueCharges = providers().dueCharges;
  const charge = await dueCharges.create(chargeRequest(input, terms, dueCharges.newTxid()));
  const made = await db().transaction(async (tx) => {
    const invoiceRow = { id: newId(), ...invoiceValues(merchant.id, input, terms, charge.txid, charge.provider) };
    const order = await insertInvoiceOrder(tx, invoiceRow, charge);
    const invoice = await insertInvoice(tx, { ...invoiceRow, status: "OPEN", orderId: order.id });
    await bindIdempotencyKey(tx, { type: "invoice", id: invoice.id });
    return { invoice, order };
  });
  if (made.invoice.notifyPayer) mailInvoiceToPayer(made.invoice, made.order, merchant.companyName);
  return made;
}

/** One of the merchant's invoices as it stands: an OPEN one past its last day is expired first (the sweep may not have run yet). */
export async function findInvoice(merchantId: string, id: string): Promise<InvoiceWithOrder> {
  if (!isUuid(id)) throw new NotFound("Invoice not found");
  const found = await merchantInvoice(db(), merchantId, id.toLowerCase());
  if (!found) throw new NotFound("Invoice not found");
  if (found.invoice.status === "OPEN" && found.invoice.expiresAt.getTime() < Date.now()) {
    await expireInvoices(1, [found.invoice.id]);
    return (await merchantInvoice(db(), merchantId, found.invoice.id))!;
  }
  return found;
}

export async function listInvoices(
  merchantId: string,
  q: ListInvoicesQuery,
): Promise<{ invoices: InvoiceView[]; nextCursor: string | null }> {
  const rows = await invoicesPage(db(), merchantId, q);
  const { page, nextCursor } = keysetPage(rows, q.limit, (r) => ({ at: r.invoice.createdAt, id: r.invoice.id }));
  const now = new Date();
  return { invoices: page.map((r) => invoiceView(r.invoice, r.order, now)), nextCursor };
}

/**
 * Closes an OPEN invoice (`to`: EXPIRED or CANCELLED) once the PSP no longer takes payments for it:
 * the charge is removed there first, and a charge the PSP says was paid stays OPEN (its payment is
 * applied when read: a notification, the poll). Returns the invoice as closed, or undefined.
 */
async function closeAtPsp(invoice: Invoice, to: "EXPIRED" | "CANCELLED"): Promise<Invoice | "paid" | undefined> {
  const outcome = await providers().dueCharges.cancel(invoice.txid);
  if (outcome === "paid") return "paid";
  return db().transaction(async (tx) => {
    if (!invoice.orderId) return undefined;
    // The order first, then the invoice: the order a payment applies to is locked in that order too
    // (lib/orders/pix-receipts.ts), so the two never wait on each other.
    await lockOrder(tx, invoice.orderId);
    const locked = await lockInvoice(tx, invoice.id);
    if (!locked || locked.status !== "OPEN" || !locked.orderId) return undefined;
    const order: Order | undefined = await cancelPendingOrder(tx, locked.orderId);
    // The order was paid meanwhile (its invoice with it, in the same transaction): nothing to close.
    if (!order) return undefined;
    const closed = await changeInvoiceStatus(tx, locked, ["OPEN"], to, order);
    if (closed && to === "CANCELLED") await bindIdempotencyKey(tx, { type: "invoice", id: closed.id });
    return closed;
  });
}

/** OPEN invoices past their last payable day become EXPIRED, each with its event (the sweep, and expire-on-read). */
export async function expireInvoices(batch = 200, ids?: string[]): Promise<number> {
  let expired = 0;
  for (const invoice of await openPastExpiry(db(), batch, ids)) {
    try {
      const outcome = await closeAtPsp(invoice, "EXPIRED");
      if (outcome === "paid")
        log.info("invoice paid at its expiry: kept OPEN until the payment is read", { invoiceId: invoice.id });
      else if (outcome) expired++;
    } catch (err) {
      log.warn("the PSP could not be asked to remove an expired invoice's charge; it stays OPEN until it can", {
        invoiceId: invoice.id,
        err,
      });
    }
  }
  return expired;
}

/** The merchant cancels an OPEN invoice: its charge is removed at the PSP, its order cancelled. */
export async function cancelInvoice(merchantId: string, id: string): Promise<InvoiceWithOrder> {
  const { invoice } = await findInvoice(merchantId, id);
  if (invoice.status !== "OPEN")
    throw new Conflict(`Invoice is ${invoice.status}: only an OPEN invoice can be cancelled`, {
      code: "invoice.notOpen",
      values: { status: invoice.status },
    });
  const outcome = await closeAtPsp(invoice, "CANCELLED");
  if (outcome === "paid")
    throw new Conflict("The payer has already paid this invoice: its payment is being applied", {
      code: "invoice.alreadyPaid",
    });
  const after = await findInvoice(merchantId, id);
  if (!outcome && after.invoice.status !== "CANCELLED")
    throw new Conflict(`Invoice is ${after.invoice.status}: only an OPEN invoice can be cancelled`, {
      code: "invoice.notOpen",
      values: { status: after.invoice.status },
    });
  return after;
}
