import type { MerchantProfile } from "@/db/schema";
import { env } from "@/lib/env";

// A payout key changed recently is held: no withdrawal goes to it until PAYOUT_KEY_HOLD_HOURS have
// passed or an owner has confirmed the change (after the alert mail reached them). Someone who took
// over a session or a password gets a day's delay and the owners a warning, not the money.

type PayoutKeyState = Pick<MerchantProfile, "pixKeyChangedAt" | "pixKeyConfirmedAt">;

/** Until when the current payout key is held, or null when money may go to it. */
export function payoutKeyHeldUntil(
  m: PayoutKeyState,
  now = Date.now(),
  holdHours = env().PAYOUT_KEY_HOLD_HOURS,
): Date | null {
  if (holdHours === 0 || !m.pixKeyChangedAt) return null;
  const until = m.pixKeyChangedAt.getTime() + holdHours * 3_600_000;
  if (until <= now) return null;
  if (m.pixKeyConfirmedAt && m.pixKeyConfirmedAt.getTime() >= m.pixKeyChangedAt.getTime()) return null;
  return new Date(until);
}
