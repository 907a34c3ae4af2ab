import { db } from "@/db";
import type { CryptoPixInvoice } from "@/db/schema";
import { raiseAttention } from "@/lib/attention/attention";
import { paymentById } from "./queries";

// A hold invoice whose PIX was made but that the node will not settle: the PIX is paid and the sats are
// not ours until it is, and once lnd cancels the held HTLC (invoices.holdexpirydelta blocks before it
// expires) they are the payer's again. The settle is retried at every run of the invoice actions; an
// operator is told (lib/attention/attention.ts: log, metric, OPERATOR_ALERT_EMAIL) once it has kept failing
// for SETTLE_ATTENTION_AFTER_MS since the PIX was made, or at once when the node's answer says no
// retry can help. The attention is cleared when the settle succeeds.

/** Long enough for a node restart or a network blip to pass unannounced, a small share of the ≥ 3 h LND_HOLD_MIN_BLOCKS_LEFT keeps before lnd's cancel. */
export const SETTLE_ATTENTION_AFTER_MS = 5 * 60_000;

/** lnd's answers after which the invoice can never be settled (invoices/errors.go): it cancelled it, or does not know it. */
const HOPELESS = /invoice already canceled|unable to locate invoice/i;

/** After a settle attempt failed with `error`: the operator is told when it is time to. */
export async function noteSettleFailure(invoice: CryptoPixInvoice, error: string): Promise<void> {
  const hopeless = HOPELESS.test(error);
  // The payment was closed (COMPLETED) in the transaction that decided the settle.
  const pixMadeAt = (await paymentById(db(), invoice.paymentId))?.closedAt ?? invoice.updatedAt;
  if (!hopeless && Date.now() - pixMadeAt.getTime() < SETTLE_ATTENTION_AFTER_MS) return;
  const expiry = invoice.htlcExpiryHeight
    ? ` The payer's HTLC expires at block ${invoice.htlcExpiryHeight}; lnd cancels it invoices.holdexpirydelta blocks before.`
    : "";
  const why = hopeless
    ? `PIX made at ${pixMadeAt.toISOString()}, but the node can no longer settle the hold invoice (${error}): the payer's sats went back after the PIX was paid.`
    : `PIX made at ${pixMadeAt.toISOString()}, but the node has refused to settle the hold invoice since (${error}); retried at every sweep.${expiry}`;
  await raiseAttention("hold_invoice", invoice.paymentId, why);
}
