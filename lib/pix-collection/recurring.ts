import { z } from "zod";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import {
  parseRecurringNotice,
  type CycleChargeReport,
  type RecurrenceReport,
  type RecurringProvider,
} from "@/lib/providers/recurring/types";
import { processSlot } from "@/lib/singleton";

// Pix Automático notifications (docs/providers.md ("Pix Automático")): `{ recs: [RecNotification] }` posted
// to our URL + "/rec" (PUT /webhookrec) and `{ cobsr: [CobRNotification] }` to our URL + "/cobr"
// (PUT /webhookcobr). As with received PIX (./receiver.ts), nothing in them is believed: each idRec and
// txid is only a hint to read that recurrence or charge back from the PSP (GET /rec/{idRec},
// GET /cobr/{txid}), and what the PSP answers is what the subscriptions domain is handed. A forged notice
// changes nothing; a repeated or late one is a read of the current state, so notices that arrive twice or
// out of order cannot move a subscription backwards. The receiver answers at once and reads after; a
// read that fails is only a delay, since the domain's poll (listRecurrences, listCharges) finds the change.

/** What the subscriptions domain does with what the PSP answered (registered once, at its start). */
export type RecurringSink = {
  recurrence(report: RecurrenceReport): Promise<void>;
  charge(report: CycleChargeReport): Promise<void>;
};

const sink = processSlot<RecurringSink>("pix-automatico-sink");

/** The domain's handler of read-back reports. Until one is set, notices are read and only logged. */
export function setRecurringSink(s: RecurringSink | undefined): void {
  sink.value = s;
}

// Items are read one by one (parseRecurringNotice), so one the PSP words differently cannot refuse the batch.
export const recurringNotificationBody = z
  .looseObject({
    recs: z.array(z.unknown(), { error: "must be an array of recurrences" }).max(1000).optional(),
    cobsr: z.array(z.unknown(), { error: "must be an array of recurring charges" }).max(1000).optional(),
  })
  .meta({
    description:
      "A Pix Automático notification: the recurrences (recs) or recurring charges (cobsr) that changed, each read back from the PSP before it counts",
  });

/** The ids a notice names, deduplicated; the reads start now and are not awaited. Returns how many. */
export function acceptRecurringNotification(
  body: z.output<typeof recurringNotificationBody>,
  provider: () => RecurringProvider = () => providers().recurring,
): { hints: number; done: Promise<void> } {
  const notice = parseRecurringNotice(body);
  const recs = [...new Set(notice.recs)];
  const txids = [...new Set(notice.charges.map((c) => c.txid))];
  const skipped = (body.recs?.length ?? 0) + (body.cobsr?.length ?? 0) - notice.recs.length - notice.charges.length;
  if (skipped > 0) log.warn("Pix Automático notification items we cannot read: skipped", { skipped });
  const done = Promise.all([
    ...recs.map((idRec) => readBackRecurrence(provider(), idRec)),
    ...txids.map((txid) => readBackCharge(provider(), txid)),
  ]).then(() => undefined);
  return { hints: recs.length + txids.length, done };
}

/** Reads a notified recurrence back and hands the PSP's word to the domain; never throws. */
export async function readBackRecurrence(provider: RecurringProvider, idRec: string): Promise<void> {
  try {
    const report = await provider.readRecurrence(idRec);
    if (!report) {
      log.warn("notified recurrence unknown to the PSP: ignored (a forged or misdirected notification)", { idRec });
      return;
    }
    if (sink.value) await sink.value.recurrence(report);
    else log.info("recurrence read back; no subscriptions handler registered", { idRec, status: report.status });
  } catch (err) {
    log.warn("notified recurrence not read yet; the poll finds it", { idRec, err });
  }
}

/** Reads a notified recurring charge back and hands the PSP's word to the domain; never throws. */
export async function readBackCharge(provider: RecurringProvider, txid: string): Promise<void> {
  try {
    const report = await provider.readCharge(txid);
    if (!report) {
      log.warn("notified recurring charge unknown to the PSP: ignored (a forged or misdirected notification)", {
        txid,
      });
      return;
    }
    if (sink.value) await sink.value.charge(report);
    else log.info("recurring charge read back; no subscriptions handler registered", { txid, status: report.status });
  } catch (err) {
    log.warn("notified recurring charge not read yet; the poll finds it", { txid, err });
  }
}
