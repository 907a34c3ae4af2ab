import { and, eq, gt, inArray, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { merchants, payoutDestinations, type Recipient } from "@/db/schema";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import type { Locale } from "@/lib/i18n";
import type { Actor } from "@/lib/identity/audit";
import { createSecurityLink } from "@/lib/identity/links";
import { announceDestination } from "@/lib/withdrawals/destination-mail";
import {
  insertDestination,
  isHolding,
  lockDestination,
  touchDestination,
  type Destination,
} from "@/lib/withdrawals/destinations";

// A recipient's PIX key is one of the merchant's withdrawal destinations (payout_destinations, the
// address book of lib/withdrawals): the same row, hold, owners' mail and confirmation link as any
// other (docs/security.md "Withdrawal destinations"). The key given at creation is recorded as the
// API records a destination it pays (not held); a changed key is recorded held for
// DESTINATION_HOLD_HOURS and announced to the owners, like a dashboard's first use of a destination.
// A key already in the address book keeps its own state (a confirmed one is not held again).

/** Who acts on a recipient: the API key or the dashboard user, and the language of the owners' mail. */
export type RecipientOrigin = { actor: Actor & { merchantId: string }; locale: Locale };

/**
 * In the caller's transaction: the destination row of `pixKey`, recorded when it is not there yet
 * (held, with the owners' mail, when `hold`), locked until the transaction ends.
 */
export async function recordRecipientKey(
  tx: Tx,
  origin: RecipientOrigin,
  merchantId: string,
  pixKey: string,
  label: string,
  hold: boolean,
): Promise<Destination> {
  const ref = { kind: "pix_key" as const, value: pixKey };
  const known = await lockDestination(tx, merchantId, ref);
  if (known) return known;
  const hours = hold ? env().DESTINATION_HOLD_HOURS : 0;
  const inserted = await insertDestination(tx, {
    merchantId,
    ref,
    label,
    createdBy: origin.actor.userId,
    holdHours: hours,
    used: false,
  });
  // Added from the address book meanwhile: it stands as it is there.
  if (!inserted) return (await lockDestination(tx, merchantId, ref))!;
  if (hours > 0) {
    const token = await createSecurityLink(merchantId, "destination", inserted.id, tx);
    await announceDestination(tx, origin, { destination: inserted, token });
  }
  return inserted;
}

export const recipientKeyLabel = (r: Pick<Recipient, "name">) => `Recebedor: ${r.name}`.slice(0, 200);

/**
 * In a payout's transaction: refuses while the recipient's key is held (or, with the merchant's API
 * allow-list on, not confirmed by an owner), else marks it used. A key missing from the address book
 * (an owner removed it) is recorded held anew: removing a held key must not release it.
 */
export async function gateRecipientKey(tx: Tx, origin: RecipientOrigin, r: Recipient): Promise<void> {
  const row = await recordRecipientKey(tx, origin, r.merchantId, r.pixKey, recipientKeyLabel(r), true);
  if (isHolding(row)) {
    throw new InvalidInput(
      `The recipient's PIX key was changed recently: payouts to it wait until ${row.holdUntil!.toISOString()} unless an owner confirms it in the dashboard (Withdrawals → Destinations)`,
      { code: "recipient.pixKeyHeld", values: { until: row.holdUntil! } },
    );
  }
  const [m] = await tx
    .select({ allowlist: merchants.apiDestinationAllowlist })
    .from(merchants)
    .where(eq(merchants.id, r.merchantId));
  if (m?.allowlist && row.status !== "confirmed") {
    throw new InvalidInput(
      `pixKey ${row.value} is not a confirmed withdrawal destination: the API allow-list is on, so payouts go only to destinations an owner has confirmed in the dashboard (Withdrawals → Destinations)`,
    );
  }
  await touchDestination(tx, row.id);
}

/** Until when each of these keys is held (keys not held are absent), for the recipients' views. */
export async function keyHolds(ex: Executor, merchantId: string, keys: string[]): Promise<Map<string, Date>> {
  if (keys.length === 0) return new Map();
  const rows = await ex
    .select({
      value: payoutDestinations.value,
      status: payoutDestinations.status,
      holdUntil: payoutDestinations.holdUntil,
    })
    .from(payoutDestinations)
    .where(
      and(
        eq(payoutDestinations.merchantId, merchantId),
        eq(payoutDestinations.kind, "pix_key"),
        inArray(payoutDestinations.value, [...new Set(keys)]),
        eq(payoutDestinations.status, "held"),
        gt(payoutDestinations.holdUntil, sql`now()`),
      ),
    );
  return new Map(rows.filter((d) => isHolding(d)).map((d) => [d.value, d.holdUntil!]));
}
