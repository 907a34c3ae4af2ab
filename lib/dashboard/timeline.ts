import type { MessageKey } from "@/lib/i18n";

// An order's events as sentences a merchant reads on its timeline ("Pagamento recebido", "Devolução
// de R$ 30,00 feita"), not as webhook types. The webhook deliveries card keeps the event types,
// which are what a developer matches in their endpoint.

export type TimelineEvent = { type: string; status: string | null; valueCentavos: number | null };

export type TimelineLine = { key: MessageKey; amount?: number; tone: "good" | "bad" | "neutral" };

const BY_STATUS: Record<string, Partial<Record<string, TimelineLine>>> = {
  "order.status_changed": {
    COMPLETED: { key: "timeline.paid", tone: "good" },
    CANCELLED: { key: "timeline.expired", tone: "neutral" },
    REFUND: { key: "timeline.refundedInFull", tone: "neutral" },
  },
  "onchain.deposit.status_changed": {
    COMPLETED: { key: "timeline.paid", tone: "good" },
    PARTIAL_ORDER: { key: "timeline.partial", tone: "neutral" },
    FAILED: { key: "timeline.expired", tone: "neutral" },
  },
  "crypto_pix.status_changed": {
    COMPLETED: { key: "timeline.pixSent", tone: "good" },
    PARTIAL_ORDER: { key: "timeline.partial", tone: "neutral" },
    FAILED: { key: "timeline.expired", tone: "neutral" },
    REFUNDED: { key: "timeline.cryptoPixClosedRefunded", tone: "neutral" },
  },
  "crypto_pix.refund.status_changed": {
    PENDING: { key: "timeline.cryptoRefundSent", tone: "neutral" },
    COMPLETED: { key: "timeline.cryptoRefunded", tone: "neutral" },
    FAILED: { key: "timeline.cryptoRefundFailed", tone: "bad" },
  },
  // Its status is "<kind>:<status>" of the merchant's resolution of unapplied funds (lib/dashboard/server/order-detail.ts).
  "onchain.deposit.unapplied.status_changed": {
    "accept:COMPLETED": { key: "timeline.unappliedAccepted", tone: "good" },
    "return:PENDING": { key: "timeline.unappliedReturning", tone: "neutral" },
    "return:PENDING:waiting": { key: "timeline.unappliedWaiting", tone: "neutral" },
    "return:FAILED:cancelled": { key: "timeline.unappliedReturnCancelled", tone: "neutral" },
    "return:COMPLETED": { key: "timeline.unappliedReturned", tone: "neutral" },
    "return:FAILED": { key: "timeline.unappliedReturnFailed", tone: "bad" },
  },
  "refund.status_changed": {
    PENDING: { key: "timeline.refundRequested", tone: "neutral" },
    COMPLETED: { key: "timeline.refundDone", tone: "neutral" },
    FAILED: { key: "timeline.refundFailed", tone: "bad" },
  },
};

const UNAPPLIED = new Set(["order.funds_unapplied", "onchain.deposit.funds_unapplied", "crypto_pix.funds_unapplied"]);

export function timelineLine(e: TimelineEvent): TimelineLine {
  if (UNAPPLIED.has(e.type)) return { key: "timeline.unapplied", tone: "bad" };
  // Its status is the order's, which the devolução leaves as it was.
  if (e.type === "order.disputed") return { key: "timeline.disputed", tone: "bad" };
  const line = e.status ? BY_STATUS[e.type]?.[e.status] : undefined;
  if (!line) return { key: "timeline.updated", tone: "neutral" };
  return e.valueCentavos === null ? line : { ...line, amount: e.valueCentavos };
}
