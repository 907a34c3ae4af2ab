import { and, eq, inArray, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import {
  subscriptionCycles,
  subscriptions,
  type StoredAttempt,
  type StoredPayment,
  type Subscription,
  type SubscriptionCycle,
} from "@/db/schema";
import { now } from "@/lib/clock";
import { saoPauloDay } from "@/lib/day-range";
import { newOrderHash, newPaymentLinkId } from "@/lib/ids";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { log } from "@/lib/log";
import { currentRequestId, withRequestContext } from "@/lib/request-context";
import { insertOrderIn, insertPixReceipt, lockOrder } from "@/lib/orders/queries";
import { cancelPendingOrder, markOrderPaid } from "@/lib/orders/service";
import { addDays } from "@/lib/pix/business-days";
import { providers } from "@/lib/providers";
import {
  RecurringRefused,
  type ChargeAttempt,
  type Closure,
  type CycleChargeReport,
  type ReceivedPayment,
  type RecurrenceReport,
} from "@/lib/providers/recurring/types";
import {
  awaitingIds,
  cycleById,
  dueForCycleIds,
  insertCycle,
  lockCycle,
  lockSubscription,
  openCycleIds,
  openCyclesCount,
  subscriptionById,
} from "./queries";
import { endStaleCreations } from "./creation";
import { RETRY_LIMIT, SEND_WINDOW, dueDateOf, sendWindow } from "./schedule";
import { changeCycleStatus, changeSubscriptionStatus, cycleEvent, LIVE_SUBSCRIPTION, OPEN_CYCLE } from "./transitions";

// The cycle engine (docs/api.md#subscriptions): each ACTIVE
// subscription's next cycle is recorded (with its PIX order) once its send window opens, 10 to 2 days
// before its due date, and its charge sent to the PSP (PUT /cobr/{txid}, our txid: a send repeated
// after a crash is the same charge). What became of it is only ever what the PSP answers when asked:
// after a notification, a sandbox helper, or the sweep's poll. A paid
// cycle completes its order (ledger credit and events in one transaction, counted once by its
// end-to-end id); a rejected attempt is retried under PERMITE_3R_7D; a cancellation at the bank ends
// the cycles still to come. Every step is idempotent and guarded by `WHERE status`, so the sweep, a
// notification's job and a helper may run it at once, on any instance.

const today = () => saoPauloDay(now());
const isPayer = (c: Closure | null) =>
  c?.kind === "cancellation" && (c.requestedBy === "USUARIO_PAGADOR" || c.requestedBy === "PSP_PAGADOR");

const closureText = (c: Closure | null, fallback: string) =>
  c
    ? `${c.kind === "cancellation" ? `cancelled by ${c.requestedBy}` : "rejected"}: ${c.code} ${c.description}`
    : fallback;

const storedAttempts = (attempts: ChargeAttempt[]): StoredAttempt[] =>
  attempts.map((a) => ({
    settlementDate: a.settlementDate,
    type: a.type,
    status: a.status,
    endToEndId: a.endToEndId,
    rejection: a.rejection,
  }));

const storedPayment = (p: ReceivedPayment): StoredPayment => ({
  endToEndId: p.endToEndId,
  valueCentavos: p.valueCentavos,
  paidAt: p.paidAt.toISOString(),
});

/**
 * Engine work a request sets off (a sandbox helper, a cancellation) runs as the engine's, without
 * the request's Idempotency-Key: it may complete several orders, each of which would bind the key.
 */
export function asEngineWork<T>(fn: () => Promise<T>): Promise<T> {
  return withRequestContext({ requestId: currentRequestId() ?? "subscription-engine" }, fn);
}

/** Runs `step` and logs what it throws: one subscription's trouble never stops the others. */
async function guarded(what: string, id: string, step: () => Promise<number>): Promise<number> {
  try {
    return await step();
  } catch (err) {
    log.error(`subscription ${what} failed; the next sweep tries again`, { id, err });
    return 0;
  }
}

/** The sweep's step: recurrences awaiting the payer, cycles whose window opened, and open cycles. */
export async function runSubscriptionEngine(batch = 200): Promise<number> {
  let done = 0;
  for (const { id } of await awaitingIds(db(), batch))
    done += await guarded("recurrence", id, () => followRecurrence(id));
  const opensBy = addDays(today(), SEND_WINDOW.earliestDaysBefore);
  for (const { id } of await dueForCycleIds(db(), opensBy, batch))
    done += await guarded("cycle creation", id, () => chargeDueCycles(id));
  for (const { id } of await openCycleIds(db(), batch)) done += await guarded("cycle", id, () => followCycle(id));
  done += await endStaleCreations();
  return done;
}

// Recurrences -----------------------------------------------------------------------------------

/**
 * The PSP that holds the subscription's recurrence, or null when this process is configured for another
 * one: its charges are never read from a PSP that did not make them (one mode per database makes this
 * rare in production; a shared test database holds both).
 */
function pspOf(sub: Pick<Subscription, "provider">) {
  const psp = providers().recurring;
  return psp.name === sub.provider ? psp : null;
}

/** Reads the subscription's recurrence at the PSP and applies what it says. */
export async function followRecurrence(subscriptionId: string): Promise<number> {
  const sub = await subscriptionById(db(), subscriptionId);
  if (!sub || !LIVE_SUBSCRIPTION.includes(sub.status)) return 0;
  const psp = pspOf(sub);
  if (!psp) return 0;
  const rec = await psp.readRecurrence(sub.idRec);
  if (!rec) return 0;
  return applyRecurrence(sub, rec);
}

async function applyRecurrence(sub: Subscription, rec: RecurrenceReport): Promise<number> {
  await db()
    .update(subscriptions)
    .set({ checkedAt: sql`now()` })
    .where(eq(subscriptions.id, sub.id));
  let changed = 0;
  if (rec.status === "APROVADA") {
    if (sub.status === "AWAITING_AUTHORISATION") {
      const active = await db().transaction((tx) =>
        changeSubscriptionStatus(tx, sub, ["AWAITING_AUTHORISATION"], "ACTIVE"),
      );
      if (active) changed++;
    }
  } else if (rec.status === "CANCELADA" || rec.status === "REJEITADA" || rec.status === "EXPIRADA") {
    const to = rec.status === "CANCELADA" ? "CANCELLED" : rec.status === "REJEITADA" ? "REJECTED" : "EXPIRED";
    const ended = await db().transaction((tx) =>
      changeSubscriptionStatus(tx, sub, LIVE_SUBSCRIPTION, to, {
        closure: rec.closure,
        cancelledBy: to === "CANCELLED" ? (isPayer(rec.closure) ? "payer" : "merchant") : null,
      }),
    );
    if (ended) changed++;
  }
  // Journey 3's payment comes with the authorisation; an ended subscription's cycles end too.
  changed += await followCyclesOf(sub.id);
  return changed;
}

async function followCyclesOf(subscriptionId: string): Promise<number> {
  let changed = 0;
  for (const { id } of await openCycleIds(db(), 50, [subscriptionId])) changed += await followCycle(id);
  return changed;
}

// Creating cycles -------------------------------------------------------------------------------

/** Records and sends every cycle of the subscription whose send window has opened. */
export async function chargeDueCycles(subscriptionId: string): Promise<number> {
  let done = 0;
  // A weekly subscription can have two cycles in their windows at once.
  for (let i = 0; i < 5; i++) {
    const made = await chargeNextCycle(subscriptionId);
    if (made === null) break;
    done++;
    if (made !== "skipped") done += await followCycle(made.id);
  }
  return done;
}

async function chargeNextCycle(subscriptionId: string): Promise<SubscriptionCycle | "skipped" | null> {
  const sub = await subscriptionById(db(), subscriptionId);
  if (!sub || sub.status !== "ACTIVE" || !pspOf(sub)) return null;
  const day = today();
  if (!sub.nextDueDate) {
    // Nothing left to charge: complete once its last cycle is decided.
    if ((await openCyclesCount(db(), sub.id)) > 0) return null;
    await db().transaction((tx) => changeSubscriptionStatus(tx, sub, ["ACTIVE"], "COMPLETED"));
    return null;
  }
  const { opens, closes } = sendWindow(sub.nextDueDate);
  if (day < opens) return null;
  // A cancellation at the bank whose notice was lost is seen here, before a charge is sent for it.
  const rec = await providers().recurring.readRecurrence(sub.idRec);
  if (rec && rec.status !== "APROVADA") {
    await applyRecurrence(sub, rec);
    return null;
  }
  const txid = providers().recurring.newTxid();
  return db().transaction(async (tx) => {
    const locked = await lockSubscription(tx, sub.id);
    if (!locked || locked.status !== "ACTIVE" || locked.nextDueDate !== sub.nextDueDate) return null;
    const following = dueDateOf(locked.firstDate, locked.periodicity, locked.nextCycle + 1);
    const advance = {
      nextCycle: locked.nextCycle + 1,
      nextDueDate: locked.lastDate && following > locked.lastDate ? null : following,
      updatedAt: new Date(),
    };
    if (day > closes) {
      // The document's window closed with the engine down: the PSP would refuse the charge.
      log.error("a subscription cycle's send window closed before it was sent; the cycle is skipped", {
        subscriptionId: sub.id,
        cycle: locked.nextCycle,
        dueDate: locked.nextDueDate,
      });
      await tx.update(subscriptions).set(advance).where(eq(subscriptions.id, sub.id));
      return "skipped" as const;
    }
    const order = await insertCycleOrder(tx, locked, txid, locked.chargeCentavos, null);
    const cycle = await insertCycle(tx, {
      subscriptionId: sub.id,
      merchantId: sub.merchantId,
      cycle: locked.nextCycle,
      kind: "RECURRING",
      status: "CREATING",
      dueDate: locked.nextDueDate!,
      txid,
      orderId: order.id,
      valueCentavos: locked.chargeCentavos,
    });
    if (!cycle) throw new Error("cycle already recorded for a subscription whose row was locked");
    await tx.update(subscriptions).set(advance).where(eq(subscriptions.id, sub.id));
    await cycleEvent(tx, cycle, null);
    return cycle;
  });
}

/**
 * The PIX order a cycle's payment completes: a PIX order like any other (refunds, MED, the statement
 * and exports read it), its txid the charge's, its references the payer's and the subscription's.
 */
export function insertCycleOrder(
  tx: Tx,
  sub: Pick<
    Subscription,
    "id" | "merchantId" | "payerName" | "payerCpf" | "payerCnpj" | "reference" | "description" | "metadata" | "provider"
  >,
  txid: string,
  valueCentavos: number,
  brcode: string | null,
) {
  const reference: Record<string, string> = {
    subscriptionId: sub.id,
    name: sub.payerName,
    description: sub.description,
  };
  if (sub.reference) reference.orderId = sub.reference;
  if (sub.payerCpf) reference.cpf = sub.payerCpf;
  if (sub.payerCnpj) reference.cnpj = sub.payerCnpj;
  return insertOrderIn(tx, {
    merchantId: sub.merchantId,
    kind: "pix",
    paymentLinkId: newPaymentLinkId(),
    hash: newOrderHash(),
    valueCentavos,
    reference,
    metadata: sub.metadata,
    provider: sub.provider,
    providerRef: txid,
    brcode,
    txid,
  });
}

// Following cycles ------------------------------------------------------------------------------

/** Moves one cycle forward by what the PSP says of its charge: send it, credit it, retry it, end it. */
export async function followCycle(cycleId: string): Promise<number> {
  const cycle = await cycleById(db(), cycleId);
  if (!cycle || !OPEN_CYCLE.includes(cycle.status)) return 0;
  const sub = (await subscriptionById(db(), cycle.subscriptionId))!;
  const psp = pspOf(sub);
  if (!psp) return 0;

  if (cycle.kind === "IMMEDIATE") {
    const charge = await psp.readImmediateCharge(cycle.txid);
    if (!charge) return 0;
    if (charge.payments[0]) return credit(cycle, charge.payments[0], null);
    if (charge.status !== "ATIVA") return endCycle(cycle, "CANCELLED", "the immediate charge was removed at the PSP");
    return 0;
  }

  const sent = cycle.status === "CREATING" ? await send(sub, cycle) : await psp.readCharge(cycle.txid);
  if (sent === "ended") return 1;
  const report = sent;
  if (!report) return 0;
  return applyCharge(sub, (await cycleById(db(), cycle.id))!, report);
}

/** PUT /cobr/{txid}, inside the cycle's window; the PSP's refusal fails the cycle with its words. */
async function send(sub: Subscription, cycle: SubscriptionCycle): Promise<CycleChargeReport | null | "ended"> {
  const psp = providers().recurring;
  if (!LIVE_SUBSCRIPTION.includes(sub.status)) {
    // Ended before its charge left: nothing to cancel at the PSP unless a lost answer made it there.
    const made = await psp.readCharge(cycle.txid);
    if (!made) {
      await endCycle(cycle, "CANCELLED", "the subscription ended before the charge was sent");
      return "ended";
    }
    return made;
  }
  if (today() > sendWindow(cycle.dueDate).closes) {
    // Recorded in time but not sent (a crash, the PSP unreachable): sent only if the PSP already has it.
    const made = await psp.readCharge(cycle.txid);
    if (!made) {
      await endCycle(cycle, "FAILED", "the charge could not be sent to the PSP within its window");
      return "ended";
    }
    return made;
  }
  try {
    const report = await psp.createCharge({
      txid: cycle.txid,
      idRec: sub.idRec,
      dueDate: cycle.dueDate,
      valueCentavos: cycle.valueCentavos,
      debtor: { name: sub.payerName, ...(sub.payerCpf ? { cpf: sub.payerCpf } : { cnpj: sub.payerCnpj! }) },
      info: `${sub.description} (${cycle.cycle})`.slice(0, 140),
    });
    await db().transaction((tx) =>
      changeCycleStatus(tx, cycle, ["CREATING"], "SCHEDULED", {
        sentAt: now(),
        attempts: storedAttempts(report.attempts),
      }),
    );
    return report;
  } catch (err) {
    if (!(err instanceof RecurringRefused)) throw err;
    await endCycle(cycle, "FAILED", err.message);
    return "ended";
  }
}

async function applyCharge(sub: Subscription, cycle: SubscriptionCycle, r: CycleChargeReport): Promise<number> {
  if (!OPEN_CYCLE.includes(cycle.status)) return 0;
  if (r.payments[0]) return credit(cycle, r.payments[0], r);
  if (r.status === "CONCLUIDA") return 0; // Paid, its Pix not listed yet: the next read has it.
  if (r.status === "CANCELADA") {
    const n = await endCycle(cycle, "CANCELLED", closureText(r.closure, "cancelled at the PSP"), r);
    // The payer cancelling at the bank cancels the charges with it: the recurrence says so.
    if (isPayer(r.closure) && LIVE_SUBSCRIPTION.includes(sub.status)) await followRecurrence(sub.id);
    return n;
  }
  if (r.status === "REJEITADA" || r.status === "EXPIRADA")
    return endCycle(cycle, "FAILED", closureText(r.closure, r.status === "EXPIRADA" ? "expired" : "rejected"), r);

  const last = r.attempts[r.attempts.length - 1];
  const open = last && (last.status === "SOLICITADA" || last.status === "AGENDADA");
  const day = today();
  const lastRetryDay = addDays(cycle.dueDate, RETRY_LIMIT.daysAfterDue);
  if (open) {
    await recordAttempts(cycle, r);
    return 0;
  }
  if (!last || last.status !== "REJEITADA") {
    // Nothing open, nothing paid and past every day it could settle on: the PSP lets it lapse.
    if (day > lastRetryDay) return endCycle(cycle, "FAILED", "not paid by its last possible day", r);
    await recordAttempts(cycle, r);
    return 0;
  }
  // The last attempt was rejected and the charge is still open: a retry, where the policy has one left.
  const retriesAtPsp = r.attempts.filter((a) => a.type === "RIFL").length;
  const date =
    cycle.retries > retriesAtPsp && cycle.retryDate && cycle.retryDate > day ? cycle.retryDate : addDays(day, 1);
  const allowed =
    sub.retryPolicy === "PERMITE_3R_7D" &&
    sub.status === "ACTIVE" &&
    retriesAtPsp < RETRY_LIMIT.attempts &&
    date <= lastRetryDay;
  const failure = last.rejection ? `${last.rejection.code}: ${last.rejection.description}` : "attempt rejected";
  if (!allowed) return endCycle(cycle, "FAILED", failure, r);
  // Claimed here first (one runner wins), then asked of the PSP; a claim whose request was lost is
  // asked again (cycle.retries ahead of the PSP's count), never counted twice.
  if (cycle.retries <= retriesAtPsp) {
    const claimed = await db().transaction(async (tx) => {
      const [row] = await tx
        .update(subscriptionCycles)
        .set({ retries: retriesAtPsp + 1, retryDate: date, updatedAt: sql`now()` })
        .where(
          and(
            eq(subscriptionCycles.id, cycle.id),
            eq(subscriptionCycles.retries, cycle.retries),
            inArray(subscriptionCycles.status, [...OPEN_CYCLE]),
          ),
        )
        .returning();
      if (!row) return undefined;
      return changeCycleStatus(tx, row, OPEN_CYCLE, "RETRYING", { attempts: storedAttempts(r.attempts), failure });
    });
    if (!claimed) return 0;
  }
  try {
    const after = await providers().recurring.requestRetry(cycle.txid, date);
    await recordAttempts(cycle, after);
    return 1;
  } catch (err) {
    if (!(err instanceof RecurringRefused)) throw err;
    // "An attempt is still open" answers a second runner's request: the first one's stands.
    if (err.problem.violations.some((v) => /SOLICITADA|AGENDADA|andamento|ativa|vigente/i.test(v.reason))) return 0;
    return endCycle(cycle, "FAILED", err.message);
  }
}

async function recordAttempts(cycle: SubscriptionCycle, r: CycleChargeReport): Promise<void> {
  await db()
    .update(subscriptionCycles)
    .set({ attempts: storedAttempts(r.attempts), checkedAt: sql`now()` })
    .where(and(eq(subscriptionCycles.id, cycle.id), inArray(subscriptionCycles.status, [...OPEN_CYCLE])));
}

/**
 * A Pix the PSP reported for the cycle's charge: its order completed (ledger credit, order event),
 * the cycle PAID (its event), in one transaction. The Pix counts once by its end-to-end id; an order
 * already completed by the received-PIX path (the PSP's /pix notification of the same payment) only
 * marks the cycle. A cycle closed meanwhile is PAID too: the money came.
 */
async function credit(
  cycle: SubscriptionCycle,
  payment: ReceivedPayment,
  r: CycleChargeReport | null,
): Promise<number> {
  return db().transaction(async (tx) => {
    // The order first, then the cycle: the received-PIX path locks the order first too.
    const order = await lockOrder(tx, cycle.orderId);
    const locked = await lockCycle(tx, cycle.id);
    if (!order || !locked || locked.status === "PAID") return 0;
    await insertPixReceipt(tx, {
      endToEndId: payment.endToEndId,
      txid: cycle.txid,
      orderId: order.id,
      merchantId: order.merchantId,
      valueCentavos: payment.valueCentavos,
      paidAt: payment.paidAt,
      applied: true,
      unappliedReason: null,
      source: "poll",
    });
    if (order.status === "PENDING" || order.status === "CANCELLED")
      await markOrderPaid(tx, order.id, payment.paidAt, order, payment.valueCentavos);
    const paid = await changeCycleStatus(tx, locked, [...OPEN_CYCLE, "FAILED", "CANCELLED"], "PAID", {
      payment: storedPayment(payment),
      failure: null,
      ...(r ? { attempts: storedAttempts(r.attempts) } : {}),
    });
    return paid ? 1 : 0;
  });
}

/** The cycle FAILED or CANCELLED, its order cancelled, in one transaction. */
async function endCycle(
  cycle: SubscriptionCycle,
  to: "FAILED" | "CANCELLED",
  failure: string,
  r?: CycleChargeReport,
): Promise<number> {
  return db().transaction(async (tx) => {
    await lockOrder(tx, cycle.orderId);
    const ended = await changeCycleStatus(tx, cycle, OPEN_CYCLE, to, {
      failure: failure.slice(0, 500),
      ...(r ? { attempts: storedAttempts(r.attempts) } : {}),
    });
    if (!ended) return 0;
    await cancelPendingOrder(tx, cycle.orderId);
    return 1;
  });
}

/**
 * The merchant ends the subscription: the recurrence is cancelled at the PSP, then every cycle not
 * yet settling (the document forbids cancelling a charge on or after its first attempt's day; those
 * are left to their outcome) is cancelled there and here.
 */
export async function endAtPsp(sub: Subscription): Promise<Subscription> {
  const psp = providers().recurring;
  const outcome = await psp.cancelRecurrence(sub.idRec);
  if (outcome === "gone") {
    // Already ended at the PSP (the payer, an expiry): what it says is applied instead.
    const rec = await psp.readRecurrence(sub.idRec);
    if (rec) await asEngineWork(() => applyRecurrence(sub, rec));
  } else {
    await db().transaction(async (tx) => {
      const cancelled = await changeSubscriptionStatus(tx, sub, LIVE_SUBSCRIPTION, "CANCELLED", {
        cancelledBy: "merchant",
        closure: {
          kind: "cancellation",
          requestedBy: "USUARIO_RECEBEDOR",
          code: "SLCR",
          description: "by the merchant",
        },
      });
      if (cancelled) await bindIdempotencyKey(tx, { type: "subscription", id: sub.id });
    });
  }
  await asEngineWork(() => endOpenCycles(sub));
  return (await subscriptionById(db(), sub.id))!;
}

async function endOpenCycles(sub: Subscription): Promise<void> {
  const psp = providers().recurring;
  for (const { id } of await openCycleIds(db(), 50, [sub.id])) {
    const cycle = (await cycleById(db(), id))!;
    if (cycle.kind === "RECURRING" && cycle.status !== "CREATING") {
      const removed = await psp.cancelCharge(cycle.txid);
      if (removed === "too-late") continue;
    }
    await followCycle(id);
    const still = await cycleById(db(), id);
    if (still && OPEN_CYCLE.includes(still.status) && cycle.kind === "RECURRING")
      await endCycle(still, "CANCELLED", "the merchant cancelled the subscription");
  }
}
