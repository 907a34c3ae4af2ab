import { and, eq } from "drizzle-orm";
import { db } from "@/db";
import { payoutDestinations, type Merchant } from "@/db/schema";
import { env } from "@/lib/env";
import { payoutKeyHeldUntil } from "@/lib/identity/payout-hold";
import { isHolding, normaliseDestination, type DestinationKind } from "./destinations";

// What the dashboard's review step tells before it asks for the code: whether the destination is new
// or still held, and so whether the request will go at once or wait (./destination-gate.ts decides
// again under the merchant's lock when it is confirmed; this is a preview, and reads without a lock).

export type DestinationPeek = {
  /** known: goes at once; new: recorded and held now; held: already held; payoutKeyHeld: the registered key's own hold (refused). */
  state: "known" | "new" | "held" | "payoutKeyHeld";
  /** Until when it would wait (ISO), for new and held destinations with a hold. */
  until: string | null;
  /** DESTINATION_HOLD_HOURS: 0 means a new destination goes at once (still announced to the owners). */
  holdHours: number;
};

export async function peekDestination(
  merchant: Pick<Merchant, "id" | "pixKey" | "pixKeyChangedAt" | "pixKeyConfirmedAt">,
  kind: DestinationKind,
  raw: string,
): Promise<DestinationPeek> {
  const holdHours = env().DESTINATION_HOLD_HOURS;
  const value = kind === "pix_key" && raw.trim() === "" ? merchant.pixKey : normaliseDestination(kind, raw);
  if (!value) return { state: "known", until: null, holdHours };
  if (kind === "pix_key" && value === merchant.pixKey) {
    const until = payoutKeyHeldUntil(merchant);
    return until
      ? { state: "payoutKeyHeld", until: until.toISOString(), holdHours }
      : { state: "known", until: null, holdHours };
  }
  const [row] = await db()
    .select()
    .from(payoutDestinations)
    .where(
      and(
        eq(payoutDestinations.merchantId, merchant.id),
        eq(payoutDestinations.kind, kind),
        eq(payoutDestinations.value, value),
      ),
    );
  if (!row) {
    const until = holdHours > 0 ? new Date(Date.now() + holdHours * 3_600_000).toISOString() : null;
    return { state: "new", until, holdHours };
  }
  if (isHolding(row)) return { state: "held", until: row.holdUntil!.toISOString(), holdHours };
  return { state: "known", until: null, holdHours };
}
