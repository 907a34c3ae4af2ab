import { db } from "@/db";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { applyReceivedPix, type ReceiptOutcome } from "@/lib/orders/pix-receipts";
import { receiptExists } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { applyPixReturns } from "@/lib/med/returns";

// Confirming a notified PIX (docs/providers.md "PIX collection"): what the PSP answers when the Pix is read
// back is what counts; the notification that named it (./receiver.ts) is only a hint.

/** Reads one notified PIX back from the PSP and applies what it says (lib/worker works it). */
export const pixConfirmQueue = jobQueue<{ endToEndId: string; returns?: boolean }>("pix-confirm", {
  retryLimit: 20,
  retryDelay: 2,
  retryBackoff: true,
  expireInSeconds: 120,
});

/**
 * The PSP's word on a notified PIX: applied when it has it, ignored (and logged) when it does not. With
 * `returns` (the notice mentioned a devolução we did not ask for) a Pix recorded before is read again,
 * and its devoluções applied as the PSP lists them, never as the notice says.
 */
export async function confirmNotifiedPix(
  endToEndId: string,
  opts: { returns?: boolean } = {},
): Promise<ReceiptOutcome | null> {
  if (!opts.returns && (await receiptExists(db(), endToEndId))) return { duplicate: true };
  const pix = await providers().pix.readPayment(endToEndId);
  if (!pix) {
    log.warn("notified PIX unknown to the PSP: ignored (a forged or misdirected notification)", { endToEndId });
    return null;
  }
  const outcome = await applyReceivedPix(pix, "notification");
  if (pix.returns?.length) await applyPixReturns(pix, "notification");
  if (!outcome.duplicate)
    log.info("PIX received", {
      endToEndId,
      applied: outcome.applied,
      reason: outcome.reason,
      orderId: outcome.order?.id,
    });
  return outcome;
}
