import { z } from "zod";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { db } from "@/db";
import { applyReceivedPix, type ReceiptOutcome } from "@/lib/orders/pix-receipts";
import { receiptExists } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { followRefund } from "@/lib/refunds/machine";

// API Pix notifications (CONTRACT §10): `{ pix: [ { endToEndId, txid, valor, horario, … } ] }`,
// posted by the PSP to our URL + "/pix". The body is not signed and a registration can point at
// anyone's URL, so nothing in it is believed: each end-to-end id is only a hint to read that Pix back
// from the PSP (GET /pix/{e2eid}), and what the PSP answers is what is applied. A forged
// notification therefore changes nothing, and a duplicate is a second read of a payment already
// counted. The receiver answers at once; the reads run in the "pix-confirm" queue, so a PSP's retry
// timer never waits on ours.

// Only what tells us which payments to read is required; everything else the PSP adds is allowed.
export const pixNotificationBody = z
  .object({
    pix: z
      .array(z.looseObject({ endToEndId: z.string().regex(/^[a-zA-Z0-9]{32}$/, "must be a 32-character end-to-end id") }), {
        error: "must be an array of received PIX",
      })
      .max(1000),
  })
  .meta({ description: "An API Pix notification: the received PIX, each read back from the PSP before it counts" });

/** Reads one notified PIX back from the PSP and applies what it says (lib/worker works it). */
export const pixConfirmQueue = jobQueue<{ endToEndId: string }>("pix-confirm", { retryLimit: 20, retryDelay: 2, retryBackoff: true, expireInSeconds: 120 });

/** Our refund's id from the devolução id we gave the PSP (its uuid without dashes); null for any other id. */
function refundIdOf(devolucaoId: unknown): string | null {
  if (typeof devolucaoId !== "string" || !/^[0-9a-f]{32}$/.test(devolucaoId)) return null;
  const h = devolucaoId;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export async function acceptPixNotification(body: z.output<typeof pixNotificationBody>): Promise<number> {
  // A devolução that reached its final state is notified too: its refund is read back by its own job.
  for (const item of body.pix) {
    const devolucoes = Array.isArray(item.devolucoes) ? (item.devolucoes as unknown[]) : [];
    for (const d of devolucoes) {
      const refundId = refundIdOf(d && typeof d === "object" ? (d as Record<string, unknown>).id : null);
      if (refundId) await followRefund(refundId);
    }
  }
  const ids = [...new Set(body.pix.map((p) => p.endToEndId))];
  // One job per end-to-end id at a time: a duplicate notification while its read is queued adds nothing.
  for (const endToEndId of ids) await pixConfirmQueue.send({ endToEndId }, { singletonKey: endToEndId });
  // The job is what guarantees the read; reading right away too saves its pickup delay. Whichever
  // comes second finds the payment recorded and asks the PSP nothing.
  for (const endToEndId of ids.slice(0, INLINE_READS)) {
    void confirmNotifiedPix(endToEndId).catch((err: unknown) => log.warn("notified PIX not read yet; its job retries", { endToEndId, err }));
  }
  return ids.length;
}

// A notification can carry many PIX (PSPs batch them); beyond this many, the queue reads the rest.
const INLINE_READS = 20;

/** The PSP's word on a notified PIX: applied when it has it, ignored (and logged) when it does not. */
export async function confirmNotifiedPix(endToEndId: string): Promise<ReceiptOutcome | null> {
  if (await receiptExists(db(), endToEndId)) return { duplicate: true };
  const pix = await providers().pix.readPayment(endToEndId);
  if (!pix) {
    log.warn("notified PIX unknown to the PSP: ignored (a forged or misdirected notification)", { endToEndId });
    return null;
  }
  const outcome = await applyReceivedPix(pix, "notification");
  if (!outcome.duplicate) log.info("PIX received", { endToEndId, applied: outcome.applied, reason: outcome.reason, orderId: outcome.order?.id });
  return outcome;
}
