import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { subscriptions, type MerchantProfile, type Subscription } from "@/db/schema";
import { now } from "@/lib/clock";
import { saoPauloDay } from "@/lib/day-range";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { isUuid, newPaymentLinkId } from "@/lib/ids";
import { keysetPage } from "@/lib/paging";
import { addDays } from "@/lib/pix/business-days";
import { requireRail } from "@/lib/providers/rails";
import type { RecurrenceRequest } from "@/lib/providers/recurring/types";
import { finishCreation, makeAtPsp, startCreation } from "./creation";
import { endAtPsp, followCycle, followRecurrence, insertCycleOrder } from "./engine";
import {
  cyclesOf,
  insertCycle,
  insertSubscription,
  lockSubscription,
  merchantSubscription,
  subscriptionsPage,
} from "./queries";
import { SEND_WINDOW } from "./schedule";
import type {
  CreateSubscriptionInput,
  ListSubscriptionsQuery,
  SubscriptionView,
  UpdateSubscriptionInput,
} from "./schemas";
import { amountChangedEvent, LIVE_SUBSCRIPTION } from "./transitions";
import { cycleView, subscriptionView } from "./views";

// Subscriptions by Pix Automático (docs/api.md#subscriptions): the creation is recorded first
// (subscription_creations, with the subscription's id), then the recurrence is made at the PSP step by
// step (with journey 3's immediate charge), each id recorded as soon as it is known so a retry resumes
// instead of making a second one; then the subscription is recorded with, for journey 3, the PIX order
// and the cycle 0 that take the payment made at authorisation, in one transaction. Cycles are the engine's
// (./engine.ts).

export function requireCollectingMerchant(merchant: MerchantProfile): void {
  requireRail("pix");
  if (!merchant.pixKey)
    throw new InvalidInput("The merchant has no registered PIX key: register one before creating subscriptions", {
      code: "pixKey.noneToCollect",
    });
}

/** The subscription as every response shows it: with its cycles, oldest first. */
export async function subscriptionWithCycles(s: Subscription) {
  const cycles = await cyclesOf(db(), s.id);
  return { ...subscriptionView(s), cycles: cycles.map((c) => cycleView(c.cycle, c.order)) };
}

export async function createSubscription(merchant: MerchantProfile, input: CreateSubscriptionInput) {
  requireCollectingMerchant(merchant);
  const today = saoPauloDay(now());
  // The first cycle's charge must reach the PSP at least 2 days before it falls due.
  const earliest = addDays(today, SEND_WINDOW.latestDaysBefore);
  if (input.firstDate < earliest)
    throw new InvalidInput(
      `firstDate must be ${earliest} or later: a cycle is charged 2 to 10 days before its due date`,
      {
        code: "subscription.firstDatePast",
        values: { earliest },
      },
    );
  if (input.lastDate !== undefined && input.lastDate < input.firstDate)
    throw new InvalidInput("lastDate must not be before firstDate", { code: "subscription.lastDateBeforeFirst" });

  const creation = await startCreation(merchant.id);
  const id = creation.id;
  const amount = input.amount;
  const debtor = {
    name: input.payer.name,
    ...(input.payer.cpf ? { cpf: input.payer.cpf } : { cnpj: input.payer.cnpj! }),
  };
  const request: RecurrenceRequest = {
    journey: input.journey,
    contract: input.reference ?? id.replaceAll("-", "").slice(0, 35),
    object: input.description,
    debtor,
    calendar: { firstDate: input.firstDate, lastDate: input.lastDate ?? null, periodicity: input.periodicity },
    amount: amount.type === "FIXED" ? { fixedCentavos: amount.value } : { minimumCentavos: amount.minimum ?? null },
    retryPolicy: input.retryPolicy,
    ...(input.journey === "JORNADA_3"
      ? { immediateCharge: { valueCentavos: amount.value, description: input.description } }
      : {}),
  };
  const made = await makeAtPsp(creation, request);

  const subscription = await db().transaction(async (tx) => {
    const values = {
      id,
      merchantId: merchant.id,
      status: "AWAITING_AUTHORISATION" as const,
      provider: made.provider,
      idRec: made.idRec,
      journey: input.journey,
      brcode: made.brcode,
      paymentLinkId: newPaymentLinkId(),
      immediateTxid: made.immediateTxid,
      payerName: input.payer.name,
      payerCpf: input.payer.cpf ?? null,
      payerCnpj: input.payer.cnpj ?? null,
      description: input.description,
      reference: input.reference ?? null,
      metadata: input.metadata ?? {},
      fixedCentavos: amount.type === "FIXED" ? amount.value : null,
      minimumCentavos: amount.type === "VARIABLE" ? (amount.minimum ?? null) : null,
      chargeCentavos: amount.value,
      periodicity: input.periodicity,
      firstDate: input.firstDate,
      lastDate: input.lastDate ?? null,
      retryPolicy: input.retryPolicy,
      nextCycle: 1,
      nextDueDate: input.firstDate,
    };
    if (made.immediateTxid) {
      // Journey 3: the payment at authorisation is cycle 0, taken by its own PIX order, whose page is the payer's.
      const order = await insertCycleOrder(tx, values, made.immediateTxid, amount.value, made.brcode);
      values.paymentLinkId = order.paymentLinkId;
      const row = await insertSubscription(tx, values);
      await insertCycle(tx, {
        subscriptionId: id,
        merchantId: merchant.id,
        cycle: 0,
        kind: "IMMEDIATE",
        status: "SCHEDULED",
        dueDate: today,
        txid: made.immediateTxid,
        orderId: order.id,
        valueCentavos: amount.value,
        sentAt: now(),
      });
      await finishCreation(tx, id);
      await bindIdempotencyKey(tx, { type: "subscription", id });
      return row;
    }
    const row = await insertSubscription(tx, values);
    await finishCreation(tx, id);
    await bindIdempotencyKey(tx, { type: "subscription", id });
    return row;
  });
  return subscriptionWithCycles(subscription);
}

export async function findSubscriptionRow(merchantId: string, id: string): Promise<Subscription> {
  if (!isUuid(id)) throw new NotFound("Subscription not found");
  const found = await merchantSubscription(db(), merchantId, id.toLowerCase());
  if (!found) throw new NotFound("Subscription not found");
  return found;
}

export async function findSubscription(merchantId: string, id: string) {
  return subscriptionWithCycles(await findSubscriptionRow(merchantId, id));
}

export async function listSubscriptions(
  merchantId: string,
  q: ListSubscriptionsQuery,
): Promise<{ subscriptions: SubscriptionView[]; nextCursor: string | null }> {
  const rows = await subscriptionsPage(db(), merchantId, q);
  const { page, nextCursor } = keysetPage(rows, q.limit, (r) => ({ at: r.createdAt, id: r.id }));
  return { subscriptions: page.map(subscriptionView), nextCursor };
}

/** The merchant cancels: at the PSP first, then here, with the cycles not yet settling. */
export async function cancelSubscription(merchantId: string, id: string) {
  const sub = await findSubscriptionRow(merchantId, id);
  if (!LIVE_SUBSCRIPTION.includes(sub.status))
    throw new Conflict(`Subscription is ${sub.status}: it has already ended`, {
      code: "subscription.notCancellable",
      values: { status: sub.status },
    });
  const after = await endAtPsp(sub);
  if (after.status !== "CANCELLED")
    throw new Conflict(`Subscription is ${after.status}: it has already ended`, {
      code: "subscription.notCancellable",
      values: { status: after.status },
    });
  return subscriptionWithCycles(after);
}

/**
 * The merchant changes what each cycle asks, as API Pix lets the recebedor: a variable recurrence's amount
 * is each charge's (cobr valor.original), so cycles recorded from now on ask the new one; a fixed one
 * (valor.valorRec) is part of the payer's authorisation, which PATCH /rec cannot change (it takes only
 * the debtor's name, dataInicial, loc, the journey's txid and a cancellation), so it is refused. Cycles
 * already sent keep the amount they were sent with: their charge is at the PSP.
 */
export async function updateSubscription(merchantId: string, id: string, input: UpdateSubscriptionInput) {
  const found = await findSubscriptionRow(merchantId, id);
  const updated = await db().transaction(async (tx) => {
    const sub = (await lockSubscription(tx, found.id))!;
    if (!LIVE_SUBSCRIPTION.includes(sub.status))
      throw new Conflict(`Subscription is ${sub.status}: it has ended, its amount can no longer change`, {
        code: "subscription.notChangeable",
        values: { status: sub.status },
      });
    if (sub.fixedCentavos !== null)
      throw new Conflict(
        "A FIXED amount is part of the payer's authorisation (API Pix valor.valorRec), which the PSP lets no one change: cancel this subscription and create one with the new amount",
        { code: "subscription.amountFixed" },
      );
    const value = input.amount.value;
    if (sub.minimumCentavos !== null && value < sub.minimumCentavos)
      throw new InvalidInput("amount.value: value must not be below minimum", {
        code: "subscription.amountBelowMinimum",
        values: { minimum: sub.minimumCentavos },
      });
    if (value === sub.chargeCentavos) return sub;
    const [after] = await tx
      .update(subscriptions)
      .set({ chargeCentavos: value, updatedAt: sql`now()` })
      .where(eq(subscriptions.id, sub.id))
      .returning();
    await amountChangedEvent(tx, after, sub);
    await bindIdempotencyKey(tx, { type: "subscription", id: sub.id });
    return after;
  });
  return subscriptionWithCycles(updated);
}

/** What a notification, or a sandbox helper, names: read back from the PSP and applied. */
export async function refreshSubscription(sub: Subscription): Promise<void> {
  await followRecurrence(sub.id);
  for (const c of await cyclesOf(db(), sub.id)) await followCycle(c.cycle.id);
}
