import { db, type Tx } from "@/db";
import type { Recipient, RecipientPayout } from "@/db/schema";
import { InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { isUuid } from "@/lib/ids";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { formatBrl } from "@/lib/money";
import { createPayout, type PayoutOwners } from "@/lib/pix-payouts/machine";
import { requireRail } from "@/lib/providers/rails";
import { requestPixOut } from "@/lib/withdrawals/service";
import { gateRecipientKey, type RecipientOrigin } from "./key-hold";
import { postRecipientEntry } from "./ledger";
import { finishRecipientPayout, insertRecipientPayout, lockRecipient, recipientPayoutOf } from "./queries";
import type { RecipientPayoutInput, RecipientPayoutView } from "./schemas";
import { findRecipient } from "./service";
import { recipientPayoutView } from "./views";

// A recipient's balance paid out by PIX to its key, through the service's one PIX payout machine
// (lib/pix-payouts/machine.ts, purpose recipient_payout): the payout's row, its pix_payouts record,
// the debit on the recipient's ledger and the event commit together, under the recipient's lock so two
// payouts cannot both spend one balance. The machine decides it; only "not made" credits it back.
// Not a withdrawal of the merchant's: its limits and GET /withdrawals concern the merchant's own balance.

const emit = (tx: Tx, p: RecipientPayout, previousStatus: string | null) =>
  recordEvent(tx, {
    merchantId: p.merchantId,
    type: "recipient.payout.status_changed",
    subjectType: "recipient_payout",
    subjectId: p.id,
    data: { ...recipientPayoutView(p), previousStatus },
  });

/**
 * In the caller's transaction, with the recipient locked and `value` checked against its balance:
 * the key gate (./key-hold.ts), the payout's row and its pix_payouts record, the debit and the event.
 * The on-request payout and the automatic schedule (./auto-payouts.ts) both pay through this; a
 * scheduled one names its slot, which recipient_payouts_schedule_slot lets be paid once.
 */
export async function payOutLocked(
  tx: Tx,
  origin: RecipientOrigin,
  r: Recipient,
  value: number,
  scheduleSlot: string | null,
): Promise<{ payout: RecipientPayout; pixPayoutId: string }> {
  await gateRecipientKey(tx, origin, r);
  const p = await insertRecipientPayout(tx, {
    merchantId: r.merchantId,
    recipientId: r.id,
    valueCentavos: value,
    pixKey: r.pixKey,
    pixKeyType: r.pixKeyType,
    scheduleSlot,
  });
  const payout = await createPayout(tx, {
    purpose: "recipient_payout",
    ownerId: p.id,
    merchantId: r.merchantId,
    pixKey: p.pixKey,
    valueCentavos: value,
  });
  await postRecipientEntry(tx, {
    merchantId: r.merchantId,
    recipientId: r.id,
    kind: "payout_debit",
    amountCentavos: -value,
    refType: "recipient_payout",
    refId: p.id,
    description: scheduleSlot ? `Automatic PIX payout (${scheduleSlot})` : "PIX payout",
  });
  await emit(tx, p, null);
  return { payout: p, pixPayoutId: payout.id };
}

/**
 * Pays `value` (default: the whole balance) to the recipient's key. Refused: a DISABLED recipient, a
 * held key (./key-hold.ts), a balance that does not cover it (or nothing to pay).
 */
export async function requestRecipientPayout(
  merchantId: string,
  recipientId: string,
  input: RecipientPayoutInput,
  origin: RecipientOrigin,
): Promise<RecipientPayoutView> {
  requireRail("pix_out");
  const { id } = await findRecipient(merchantId, recipientId);
  const made = await db().transaction(async (tx) => {
    const r = await lockRecipient(tx, merchantId, id);
    if (!r) throw new NotFound("Recipient not found");
    if (r.status !== "ACTIVE")
      throw new InvalidInput("The recipient is DISABLED: enable it (PATCH status ACTIVE) to pay it out", {
        code: "recipient.disabled",
      });
    const value = input.value ?? r.balanceCentavos;
    if (value <= 0 || value > r.balanceCentavos) {
      throw new InvalidInput(
        `Insufficient recipient balance: the payout needs ${formatBrl(Math.max(value, 1))} and the recipient's balance is ${formatBrl(r.balanceCentavos)}`,
        { code: "recipient.balanceInsufficient", values: { needed: Math.max(value, 1), balance: r.balanceCentavos } },
      );
    }
    const made = await payOutLocked(tx, origin, r, value, null);
    await bindIdempotencyKey(tx, { type: "recipient_payout", id: made.payout.id });
    return made;
  });
  deliverQueuedSoon();
  await requestPixOut(made.pixPayoutId);
  return recipientPayoutView(made.payout);
}

/**
 * The merchant's payout by its id, and when `recipientId` is given, of that recipient only: another
 * merchant's, another recipient's or an unknown id are the same 404.
 */
export async function findRecipientPayout(
  merchantId: string,
  id: string,
  recipientId?: string,
): Promise<RecipientPayoutView> {
  const p = isUuid(id) ? await recipientPayoutOf(db(), merchantId, id.toLowerCase()) : undefined;
  if (!p || (recipientId !== undefined && p.recipientId !== recipientId.toLowerCase()))
    throw new NotFound("Recipient payout not found");
  return recipientPayoutView(p);
}

/** The payout was decided (lib/pix-payouts/machine.ts): credited back to the recipient only when the provider says it was not made. */
export const onRecipientPayout: NonNullable<PayoutOwners["recipient_payout"]> = async (tx, payout, decision) => {
  const p = await finishRecipientPayout(
    tx,
    payout.ownerId,
    decision.status === "completed"
      ? { status: "COMPLETED", providerRef: decision.providerRef, failureReason: null }
      : { status: "FAILED", providerRef: decision.providerRef, failureReason: decision.reason },
  );
  if (!p) return;
  if (p.status === "FAILED") {
    await postRecipientEntry(tx, {
      merchantId: p.merchantId,
      recipientId: p.recipientId,
      kind: "payout_reversal",
      amountCentavos: p.valueCentavos,
      refType: "recipient_payout",
      refId: p.id,
      description: "PIX payout not made: credited back",
    });
  }
  await emit(tx, p, "PENDING");
};
