import type { Recipient, RecipientPayout, RecipientPayoutSkip } from "@/db/schema";
import { centavosToBrl } from "@/lib/money";
import { maskPixKey } from "@/lib/pix/keys";
import { now } from "@/lib/clock";
import type { RecipientEntry } from "./queries";
import type {
  PayoutScheduleView,
  PayoutSkipView,
  RecipientPayoutView,
  RecipientView,
  StatementEntryView,
} from "./schemas";
import { nextSlot, scheduleOf, WEEKDAYS } from "./schedule";

// What the API (and the dashboard) shows of a recipient: the document and key masked as receipts and
// withdrawals show them (lib/pix/keys maskPixKey), amounts in BRL.

/** The recipient's automatic payout schedule as the API shows it, with the day its next slot begins. */
export function payoutScheduleView(r: Recipient, at: Date = now()): PayoutScheduleView | null {
  const s = scheduleOf(r);
  if (!s) return null;
  return {
    interval: s.interval,
    ...(s.weekday !== null ? { weekday: WEEKDAYS[s.weekday - 1] } : {}),
    ...(s.monthDay !== null ? { monthDay: s.monthDay } : {}),
    minimumValue: s.minimumCentavos !== null ? centavosToBrl(s.minimumCentavos) : null,
    nextSlot: nextSlot(s, at),
  };
}

export function recipientView(r: Recipient, heldUntil: Date | null): RecipientView {
  return {
    id: r.id,
    name: r.name,
    document: maskPixKey(r.document),
    documentType: r.document.length === 11 ? "cpf" : "cnpj",
    pixKey: maskPixKey(r.pixKey),
    pixKeyType: r.pixKeyType as RecipientView["pixKeyType"],
    pixKeyUsableAt: heldUntil ? heldUntil.toISOString() : null,
    email: r.email,
    reference: r.reference,
    balance: centavosToBrl(r.balanceCentavos),
    payoutSchedule: payoutScheduleView(r),
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function statementEntryView(e: RecipientEntry & { balanceAfter: number }): StatementEntryView {
  return {
    id: e.id,
    kind: e.kind,
    amount: centavosToBrl(e.amountCentavos),
    balanceAfter: centavosToBrl(e.balanceAfter),
    refType: e.refType,
    refId: e.refId,
    description: e.description,
    createdAt: e.createdAt.toISOString(),
  };
}

export function recipientPayoutView(p: RecipientPayout): RecipientPayoutView {
  return {
    id: p.id,
    recipientId: p.recipientId,
    status: p.status,
    value: centavosToBrl(p.valueCentavos),
    amount: p.valueCentavos,
    pixKey: maskPixKey(p.pixKey),
    ...(p.failureReason ? { failureReason: p.failureReason } : {}),
    ...(p.scheduleSlot ? { scheduleSlot: p.scheduleSlot } : {}),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    ...(p.completedAt ? { completedAt: p.completedAt.toISOString() } : {}),
  };
}

export function payoutSkipView(s: RecipientPayoutSkip): PayoutSkipView {
  return {
    recipientId: s.recipientId,
    scheduleSlot: s.scheduleSlot,
    reason: s.reason,
    balance: centavosToBrl(s.balanceCentavos),
    minimumValue: s.minimumCentavos === null ? null : centavosToBrl(s.minimumCentavos),
    createdAt: s.createdAt.toISOString(),
  };
}
