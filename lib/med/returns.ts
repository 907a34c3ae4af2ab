import { and, eq, isNull, sql } from "drizzle-orm";
import { orderSplitViews, planTakeBack } from "@/lib/splits/service";
import { db, type Executor } from "@/db";
import { orderRefunds, pixReceipts, pixReturns, type PixReturn } from "@/db/schema";
import { raiseAttention } from "@/lib/attention/attention";
import { recordEvent } from "@/lib/events/outbox";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { DEFAULT_LOCALE, formatMoney, isMessageKey, translate } from "@/lib/i18n";
import { log } from "@/lib/log";
import { mailInBackground } from "@/lib/mail/background";
import { sendMail } from "@/lib/mail/mailer";
import { medReturnMail } from "@/lib/mail/messages";
import { centavosToBrl, formatBrl } from "@/lib/money";
import { orderById } from "@/lib/orders/queries";
import { plainOrderName } from "@/lib/orders/title";
import { orderView } from "@/lib/orders/views";
import type { PixReturnReport, ReceivedPix } from "@/lib/providers/pix/types";
import { teamToTell } from "@/lib/identity/money-mail";
import { returnHolds } from "./holds";

// Devoluções we did not ask for (docs/providers.md "MED devoluções"). The payer's bank can have a PIX
// we received returned through the Central Bank's MED (natureza MED_OPERACIONAL, MED_FRAUDE,
// MED_PIX_AUTOMATICO), or the PSP can make one from its portal: either way the money left our account
// and the devolução is listed inside the Pix, often with no natureza at all (Efí's SDK typings show
// none; absent reads as the document's ORIGINAL). Whoever sees it first (a notification read back, the
// poll, reconciliation) records it here, once per (end-to-end id, devolução id). Once the PSP says it
// was returned (DEVOLVIDO), the merchant whose order the Pix credited is debited (med_debit, even below
// zero: lib/ledger), the order gets `order.disputed`, and the merchant's owners and admins are mailed,
// after the commit, whatever the natureza: it only names the devolução. One of a Pix that credited
// nobody debits no one: it waits for an operator.

export type ReturnSource = PixReturn["source"];

/** Our own refund's id as we gave it to the PSP (a uuid without dashes), or null. */
function ourRefundId(returnId: string): string | null {
  if (!/^[0-9a-f]{32}$/.test(returnId)) return null;
  return `${returnId.slice(0, 8)}-${returnId.slice(8, 12)}-${returnId.slice(12, 16)}-${returnId.slice(16, 20)}-${returnId.slice(20)}`;
}

export type ReturnOutcome = { recorded: number; debited: PixReturn[] };

/**
 * Records every devolução of `pix` that is not one of our refunds, and debits the merchant for each
 * MED one the PSP has returned. Idempotent: a devolução seen again changes only its status.
 */
export async function applyPixReturns(pix: ReceivedPix, source: ReturnSource): Promise<ReturnOutcome> {
  const outcome: ReturnOutcome = { recorded: 0, debited: [] };
  for (const report of pix.returns ?? []) {
    const refundId = ourRefundId(report.id);
    if (
      refundId &&
      (await db().select({ id: orderRefunds.id }).from(orderRefunds).where(eq(orderRefunds.id, refundId))).length > 0
    )
      continue;
    const applied = await applyOne(pix, report, source);
    if (applied.recorded) outcome.recorded++;
    if (applied.debited) outcome.debited.push(applied.debited);
  }
  for (const row of outcome.debited) mailMerchant(row);
  return outcome;
}

async function applyOne(
  pix: ReceivedPix,
  r: PixReturnReport,
  source: ReturnSource,
): Promise<{ recorded: boolean; debited: PixReturn | null }> {
  const result = await db().transaction(async (tx) => {
    // Who the Pix credited, if anyone: its applied receipt names the order and its merchant.
    const [receipt] = await tx
      .select({ orderId: pixReceipts.orderId, merchantId: pixReceipts.merchantId, applied: pixReceipts.applied })
      .from(pixReceipts)
      .where(eq(pixReceipts.endToEndId, pix.endToEndId));
    const credited = receipt?.applied ? receipt : null;
    const inserted = await tx
      .insert(pixReturns)
      .values({
        endToEndId: pix.endToEndId,
        returnId: r.id,
        rtrId: r.rtrId,
        natureza: r.natureza,
        valueCentavos: r.valueCentavos,
        status: r.status,
        orderId: receipt?.orderId ?? null,
        merchantId: credited?.merchantId ?? null,
        description: r.description,
        requestedAt: r.requestedAt,
        returnedAt: r.returnedAt,
        source,
      })
      .onConflictDoNothing()
      .returning({ id: pixReturns.id });
    // Seen before: only its progress at the PSP can have changed (EM_PROCESSAMENTO → DEVOLVIDO).
    const progressed = await tx
      .update(pixReturns)
      .set({ status: r.status, rtrId: r.rtrId, returnedAt: r.returnedAt, updatedAt: sql`now()` })
      .where(
        and(
          eq(pixReturns.endToEndId, pix.endToEndId),
          eq(pixReturns.returnId, r.id),
          sql`${pixReturns.status} = 'EM_PROCESSAMENTO' and ${r.status} <> 'EM_PROCESSAMENTO'`,
        ),
      )
      .returning({ id: pixReturns.id });
    const changed = inserted.length > 0 || progressed.length > 0;
    const [row] = await tx
      .select()
      .from(pixReturns)
      .where(and(eq(pixReturns.endToEndId, pix.endToEndId), eq(pixReturns.returnId, r.id)))
      .for("update");
    if (row.status !== "DEVOLVIDO" || row.debitedAt !== null || !row.merchantId || !row.orderId) {
      return { recorded: inserted.length > 0, changed, debited: null, row };
    }
    const [debited] = await tx
      .update(pixReturns)
      .set({ debitedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(pixReturns.id, row.id), isNull(pixReturns.debitedAt)))
      .returning();
    const order = await orderById(tx, row.orderId);
    // A split order's devolução is taken back from each part pro rata (lib/splits), even below zero;
    // the merchant is debited its own share.
    const takeBack = order
      ? await planTakeBack(
          tx,
          { orderId: order.id },
          order,
          order.valueCentavos,
          await takenBackBefore(tx, order.id, row.valueCentavos),
          row.valueCentavos,
          "split_med_return",
          "pix_return",
        )
      : null;
    await takeBack?.apply(tx, row.id);
    const merchantShare = takeBack ? takeBack.merchantCentavos : row.valueCentavos;
    if (merchantShare > 0)
      await postLedgerEntry(tx, {
        merchantId: row.merchantId,
        kind: "med_debit",
        amountCentavos: -merchantShare,
        refType: "pix_return",
        refId: row.id,
        description: `PIX ${row.endToEndId} returned to its payer (devolução ${row.returnId}, natureza ${row.natureza})`,
      });
    // An infraction's hold on this PIX becomes this debit: released in the same transaction.
    await returnHolds(tx, row.endToEndId, row.merchantId);
    if (order) {
      await recordEvent(tx, {
        merchantId: row.merchantId,
        type: "order.disputed",
        subjectType: "order",
        subjectId: order.id,
        data: { ...orderView(order, await orderSplitViews(tx, order)), dispute: disputeView(debited) },
      });
    }
    return { recorded: inserted.length > 0, changed, debited, row };
  });
  const { row } = result;
  if (result.recorded)
    log.warn("PIX returned without our asking", {
      endToEndId: row.endToEndId,
      natureza: row.natureza,
      status: row.status,
      source,
    });
  // Money left our account and nobody was debited for it: an operator decides what it was (once, on
  // news: a resolved one is not raised again by the next poll).
  if (
    result.changed &&
    !result.debited &&
    row.status !== "NAO_REALIZADO" &&
    row.debitedAt === null &&
    !row.merchantId
  ) {
    const why = `the PSP made a devolução of ${formatBrl(row.valueCentavos)} of PIX ${row.endToEndId} (${row.natureza}, id ${row.returnId}) that is none of our refunds, and that PIX credited no merchant`;
    await raiseAttention("pix_return", row.id, why);
  }
  return { recorded: result.recorded, debited: result.debited };
}

/**
 * What refunds (not FAILED) and MED returns took back of an order before the devolução being applied
 * (`current`, already recorded as returned): where a split order's pro rata share of it starts.
 */
async function takenBackBefore(ex: Executor, orderId: string, current: number): Promise<number> {
  const [row] = await ex.execute<{ refunded: string }>(
    sql`select coalesce(sum(value_centavos), 0) as refunded from order_refunds where order_id = ${orderId} and status <> 'FAILED'`,
  );
  return Number(row.refunded) + (await returnedByMed(ex, orderId)) - current;
}

/** A devolução as events, the order page and the receipt show it. */
export function disputeView(r: PixReturn) {
  return {
    id: r.id,
    endToEndId: r.endToEndId,
    natureza: r.natureza,
    value: centavosToBrl(r.valueCentavos),
    status: r.status,
    returnedAt: (r.returnedAt ?? r.debitedAt ?? r.updatedAt).toISOString(),
  };
}

/** The devoluções the MED made of an order's PIX, oldest first (the order page and the payer's receipt). */
export async function disputesOfOrder(orderId: string): Promise<PixReturn[]> {
  return db().select().from(pixReturns).where(eq(pixReturns.orderId, orderId)).orderBy(pixReturns.createdAt);
}

/** What MED devoluções have taken back of an order, in centavos (what is left to refund shrinks by it). */
export async function returnedByMed(ex: Executor, orderId: string): Promise<number> {
  const [row] = await ex
    .select({ sum: sql<string>`coalesce(sum(${pixReturns.valueCentavos}), 0)` })
    .from(pixReturns)
    .where(and(eq(pixReturns.orderId, orderId), sql`${pixReturns.status} <> 'NAO_REALIZADO'`));
  return Number(row.sum);
}

function mailMerchant(r: PixReturn): void {
  mailInBackground("PIX returned under the MED", async () => {
    const team = await teamToTell(r.merchantId!, null);
    if (!team) return;
    const order = r.orderId ? await orderById(db(), r.orderId) : undefined;
    // No recipient's language is stored: the service's default, like the other mails an API call or a job causes.
    const nature = `mail.medReturn.nature.${r.natureza}`;
    const mail = medReturnMail(DEFAULT_LOCALE, {
      company: team.company,
      // The order as the merchant knows it: its own reference or the customer, else the payment link id.
      order: order ? plainOrderName(order) : (r.orderId ?? ""),
      amount: formatMoney(r.valueCentavos, DEFAULT_LOCALE),
      nature: isMessageKey(nature) ? translate(DEFAULT_LOCALE, nature) : r.natureza,
      endToEndId: r.endToEndId,
    });
    for (const recipient of team.recipients) await sendMail({ ...mail, to: recipient.email, merchantId: r.merchantId });
  });
}
