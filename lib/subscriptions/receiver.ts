import { db } from "@/db";
import { isRunning, jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { parseRecurringNotice } from "@/lib/providers/recurring/types";
import { followCycle, followRecurrence } from "./engine";
import { cycleByTxid, subscriptionByIdRec } from "./queries";

// The PSP's Pix Automático notifications (API Pix webhookrec, webhookcobr): hints only. Each
// recurrence or charge they name is read back from the PSP and what it answers is applied
// (./engine.ts), in a job retried with backoff; repeated or out-of-order notices change nothing,
// and one the PSP never sends is made up for by the sweep's poll.

export type SubscriptionNotice = { idRec: string } | { txid: string };

export const subscriptionNoticeQueue = jobQueue<SubscriptionNotice>("subscription-notice", {
  retryLimit: 20,
  retryDelay: 2,
  retryBackoff: true,
  expireInSeconds: 120,
});

/** Reads back what one notice names (the queue's worker). */
export async function confirmSubscriptionNotice(notice: SubscriptionNotice): Promise<void> {
  if ("idRec" in notice) {
    const sub = await subscriptionByIdRec(db(), notice.idRec);
    if (!sub) return log.warn("Pix Automático notice for an unknown recurrence ignored", { idRec: notice.idRec });
    await followRecurrence(sub.id);
    return;
  }
  const cycle = await cycleByTxid(db(), notice.txid);
  if (!cycle) return log.warn("Pix Automático notice for an unknown charge ignored", { txid: notice.txid });
  await followCycle(cycle.id);
}

/** A notification body: each id it names queued to be read back (at once where no job runner runs). */
export async function acceptRecurringNotification(body: unknown): Promise<number> {
  const notice = parseRecurringNotice(body);
  const items: SubscriptionNotice[] = [
    ...[...new Set(notice.recs)].map((idRec) => ({ idRec })),
    ...[...new Set(notice.charges.map((c) => c.txid))].map((txid) => ({ txid })),
  ];
  for (const item of items) {
    if (isRunning()) {
      await subscriptionNoticeQueue.send(item, { singletonKey: "idRec" in item ? item.idRec : item.txid });
    } else {
      await confirmSubscriptionNotice(item);
    }
  }
  return items.length;
}
