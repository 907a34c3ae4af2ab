import { db } from "@/db";
import type { Order, OrderRefund } from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { jobQueue } from "@/lib/jobs/queue";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { raiseAttention } from "@/lib/attention/attention";
import { lockOrder, orderById } from "@/lib/orders/queries";
import { markOrderRefunded } from "@/lib/orders/service";
import { providers } from "@/lib/providers";
import { stepMoneyOut } from "@/lib/providers/outcome";
import type { Refunder } from "@/lib/providers/refund/types";
import { finishRefund, leaseRefund, noteRefund, refundById, refundedCentavos } from "./queries";
import { refundEventData } from "./views";
import { orderSplitViews, reverseSplitRefund } from "@/lib/splits/service";

// Every refund of a PIX or exchange-wallet order, as one state machine (docs/api.md "Refunds"; an
// outcome we do not know is not a failure). A refund is recorded PENDING, with its ledger debit and
// event, in the database transaction that accepts it (./service.ts); its id without dashes is the
// idempotent id the provider gets. Then, outside any transaction, under a lease, each step
// (lib/providers/outcome stepMoneyOut) reads it back by id once it may have reached the provider
// (sentAt is written before the first send), sends it (same id) only while the provider has no record
// of it, and judges the answer: a refusal of a repeat, or "id already used", is unknown.
// Only the provider's word decides: COMPLETED (the money went back; the order becomes REFUND when
// its COMPLETED refunds reach its value) or FAILED (the debit is credited back). Each decision, its
// ledger entry and its events commit together. One open too long, or sent MONEY_OUT_MAX_SENDS times
// without an answer the provider stands by, needs an operator (lib/attention/attention.ts).

/** Sends and follows one refund (lib/worker works it with advanceRefund); retried with backoff until final. */
export const refundQueue = jobQueue<{ id: string }>("order-refund", {
  retryLimit: 10_000,
  retryDelay: 2,
  retryBackoff: true,
  retryDelayMax: 60,
  expireInSeconds: 120,
});

export type RefundDecision =
  | { status: "COMPLETED"; providerRef: string | null }
  | { status: "FAILED"; providerRef: string | null; reason: string };

// How long one worker may talk to the provider about a refund before another may: also how long a
// refund held by a dead instance waits to be taken over (within 30 s: docs/architecture.md#work-held-by-an-instance-that-dies). A call that outlives
// it costs at most a second read, or a second send under the same idempotent id: never a second
// payment, and the decision is written once (WHERE status is open).
const LEASE_SECONDS = 15;
// Once sending stopped (lib/providers/outcome), the refund is still read this often.
const STOPPED_READ_SECONDS = 300;

/** After the record committed: asks the job to move it forward (after `delaySeconds`). */
export function followRefund(id: string, delaySeconds = 0): Promise<void> {
  return refundQueue.send({ id }, { startAfterSeconds: delaySeconds, singletonKey: id });
}

/** The provider's id for a refund: ours without dashes (32 letters and digits). */
export const providerRefundId = (refund: Pick<OrderRefund, "id">) => refund.id.replace(/-/g, "");

/** Who sends a refund back: the provider that was paid. */
export function refunderFor(kind: Order["kind"]): Refunder & { name: string } {
  if (kind === "pix") return providers().pix;
  if (kind === "exchange") return providers().exchange;
  throw new Error(`${kind} orders have no refunder`);
}

/** Moves one refund forward once; true when it is final (or was already). */
export async function advanceRefund(id: string): Promise<boolean> {
  const refund = await leaseRefund(db(), id, LEASE_SECONDS);
  if (!refund) {
    // Final, unknown, or leased by another worker right now.
    const row = await refundById(db(), id);
    return row !== undefined && row.status !== "PENDING";
  }
  const order = await orderById(db(), refund.orderId);
  const request = {
    id: providerRefundId(refund),
    paymentRef: refund.paymentRef,
    valueCentavos: refund.valueCentavos,
    orderValueCentavos: order?.valueCentavos,
    reason: refund.reason ?? undefined,
  };
  const refunder = refunderFor(order!.kind);
  const step = await stepMoneyOut(
    {
      read: () => refunder.readRefund(request),
      beforeSend: () => noteRefund(db(), id, { sending: true, lastError: null, keepLease: true }),
      send: () => refunder.refund(request),
    },
    // Sent before: an answer may have been lost, so it is read first.
    { sends: refund.attempts, mayHaveReachedProvider: refund.sentAt !== null, maxSends: env().MONEY_OUT_MAX_SENDS },
  );
  if (step.kind === "final") {
    const { state } = step;
    await decideRefund(
      id,
      state.status === "COMPLETED"
        ? { status: "COMPLETED", providerRef: state.providerRef ?? null }
        : {
            status: "FAILED",
            providerRef: state.providerRef ?? null,
            reason: state.reason ?? "the provider did not make the refund",
          },
    );
    return true;
  }
  if (step.kind === "processing") {
    await noteRefund(db(), id, { providerRef: step.providerRef, lastError: null });
  } else {
    // Unknown: never a failure. It is read back by its id at the next try.
    log.warn("refund outcome unknown; it is read back by its id", { refundId: id, reason: step.reason });
    const holdSeconds = step.stopped ? STOPPED_READ_SECONDS : step.retryAfterSeconds;
    await noteRefund(db(), id, { lastError: step.reason, ...(holdSeconds > 0 ? { holdSeconds } : {}) });
  }
  const minutes = (Date.now() - refund.createdAt.getTime()) / 60_000;
  const why =
    step.kind === "unknown" && step.stopped
      ? step.reason
      : minutes >= env().MONEY_OUT_ATTENTION_MINUTES
        ? `open for ${Math.floor(minutes)} minutes: ${step.kind === "processing" ? "the provider still reports it processing" : `outcome unknown: ${step.reason}`}`
        : null;
  if (why) await raiseAttention("refund", id, why);
  return false;
}

/**
 * Records the provider's final word in one database transaction: the refund's status, and then
 * either the order's COMPLETED → REFUND (when its COMPLETED refunds now reach its value) or the
 * credit back of a FAILED refund's debit, with their events. Nothing when it was already decided.
 */
export async function decideRefund(id: string, decision: RefundDecision): Promise<OrderRefund | undefined> {
  const decided = await db().transaction(async (tx) => {
    const pending = await refundById(tx, id);
    if (!pending || pending.status !== "PENDING") return undefined;
    // The order's row lock serialises the decisions (and requests) of its refunds, so two refunds
    // completing together both see each other when they add up what went back.
    const order = (await lockOrder(tx, pending.orderId))!;
    const refund = await finishRefund(tx, id, {
      status: decision.status,
      providerRef: decision.providerRef,
      failureReason: decision.status === "FAILED" ? decision.reason.slice(0, 500) : null,
    });
    if (!refund) return undefined;
    let becomesRefund = false;
    if (decision.status === "COMPLETED") {
      becomesRefund =
        order.status === "COMPLETED" && (await refundedCentavos(tx, order.id, ["COMPLETED"])) >= order.valueCentavos;
    } else {
      // A split order's refund debited its parts too: each gets its share back, the merchant the rest.
      const toParts = order.splitCount > 0 ? await reverseSplitRefund(tx, refund.merchantId, refund.id) : 0;
      if (refund.valueCentavos - toParts > 0)
        await postLedgerEntry(tx, {
          merchantId: refund.merchantId,
          kind: "refund_reversal",
          amountCentavos: refund.valueCentavos - toParts,
          refType: "refund",
          refId: refund.id,
          description: `refund of order ${order.paymentLinkId} not made`,
        });
    }
    // The refund's event first (with the order as this decision leaves it), then the order's own:
    // both on the order's subject, so a webhook endpoint receives them in this order.
    await recordEvent(tx, {
      merchantId: refund.merchantId,
      type: "refund.status_changed",
      subjectType: "order",
      subjectId: order.id,
      data: refundEventData(
        refund,
        becomesRefund ? { ...order, status: "REFUND" } : order,
        "PENDING",
        await orderSplitViews(tx, order),
      ),
    });
    if (becomesRefund && !(await markOrderRefunded(tx, order.id)))
      throw new Error(`order ${order.id} was locked COMPLETED and could not become REFUND`);
    return refund;
  });
  if (decided) log.info("refund decided", { refundId: id, status: decision.status });
  return decided;
}
