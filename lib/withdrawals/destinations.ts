import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { payoutDestinations, type DESTINATION_KINDS } from "@/db/schema";
import { classifyPixKey } from "@/lib/pix/keys";

// A merchant's withdrawal destinations (payout_destinations): every PIX key and chain address money
// has been sent to or was added to the address book, with whether an owner vouched for it. The rules
// that read them are in ./destination-gate.ts and docs/security.md "Withdrawal destinations".

export type Destination = typeof payoutDestinations.$inferSelect;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];
export type DestinationRef = { kind: DestinationKind; value: string };

/**
 * A destination as it is stored, or null when it is not one: a PIX key as the service sends it
 * (lib/pix/keys), an address lower-case (the same account on every EVM network, whatever its case).
 */
export function normaliseDestination(kind: DestinationKind, raw: string): string | null {
  if (kind === "pix_key") return classifyPixKey(raw)?.normalized ?? null;
  const address = raw.trim().toLowerCase();
  return /^0x[0-9a-f]{40}$/.test(address) ? address : null;
}

/** Held and its hold not over yet: nothing goes to it from the dashboard. */
export function isHolding(d: Pick<Destination, "status" | "holdUntil">, now = Date.now()): boolean {
  return d.status === "held" && d.holdUntil !== null && d.holdUntil.getTime() > now;
}

/** The destination's row, locked until the caller's transaction ends (a confirmation or removal waits for the withdrawal). */
export async function lockDestination(tx: Tx, merchantId: string, ref: DestinationRef): Promise<Destination | null> {
  const [row] = await tx
    .select()
    .from(payoutDestinations)
    .where(
      and(
        eq(payoutDestinations.merchantId, merchantId),
        eq(payoutDestinations.kind, ref.kind),
        eq(payoutDestinations.value, ref.value),
      ),
    )
    .for("update");
  return row ?? null;
}

/**
 * Records a destination; null when one with the same value is already there (the unique index
 * decides, so a concurrent insert from the address book cannot make two). `holdHours` 0 records it
 * without a hold: not confirmed, but nothing waits for it.
 */
export async function insertDestination(
  ex: Executor,
  row: {
    merchantId: string;
    ref: DestinationRef;
    label?: string | null;
    createdBy: string | null;
    holdHours: number;
    used: boolean;
  },
): Promise<Destination | null> {
  const [inserted] = await ex
    .insert(payoutDestinations)
    .values({
      merchantId: row.merchantId,
      kind: row.ref.kind,
      value: row.ref.value,
      label: row.label ?? null,
      status: "held",
      holdUntil: row.holdHours > 0 ? sql`now() + make_interval(hours => ${row.holdHours})` : null,
      createdBy: row.createdBy,
      lastUsedAt: row.used ? sql`now()` : null,
    })
    .onConflictDoNothing()
    .returning();
  return inserted ?? null;
}

/** A withdrawal went to it. */
export async function touchDestination(tx: Tx, id: string): Promise<void> {
  await tx
    .update(payoutDestinations)
    .set({ lastUsedAt: sql`now()` })
    .where(eq(payoutDestinations.id, id));
}

/** The registered payout key's row, if the address book has one: touched when money goes to the key. */
export async function touchDestinationByValue(tx: Tx, merchantId: string, ref: DestinationRef): Promise<void> {
  await tx
    .update(payoutDestinations)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(payoutDestinations.merchantId, merchantId),
        eq(payoutDestinations.kind, ref.kind),
        eq(payoutDestinations.value, ref.value),
      ),
    );
}

/**
 * An owner vouches for it (`by` null: through the mailed link). Returns the row, or null when it is
 * not this merchant's; one confirmed already keeps who confirmed it first.
 */
export async function markConfirmed(
  ex: Executor,
  merchantId: string,
  id: string,
  by: string | null,
): Promise<Destination | null> {
  const mine = and(eq(payoutDestinations.id, id), eq(payoutDestinations.merchantId, merchantId));
  const [row] = await ex
    .update(payoutDestinations)
    .set({ status: "confirmed", confirmedBy: by, confirmedAt: sql`now()` })
    .where(and(mine, eq(payoutDestinations.status, "held")))
    .returning();
  if (row) return row;
  const [already] = await ex.select().from(payoutDestinations).where(mine);
  return already ?? null;
}

/** Whether a withdrawal or a return of unapplied funds waits for this destination (locking them until the caller's transaction ends). */
export async function somethingWaitsFor(tx: Tx, merchantId: string, id: string): Promise<boolean> {
  const rows = await tx.execute(sql`
    select 1 from withdrawals where merchant_id = ${merchantId} and waiting_destination_id = ${id} and status = 'PENDING'
    union all
    select 1 from unapplied_resolutions where merchant_id = ${merchantId} and waiting_destination_id = ${id} and status = 'PENDING'
    limit 1`);
  return rows.length > 0;
}

export async function deleteDestination(ex: Executor, merchantId: string, id: string): Promise<Destination | null> {
  const [row] = await ex
    .delete(payoutDestinations)
    .where(and(eq(payoutDestinations.id, id), eq(payoutDestinations.merchantId, merchantId)))
    .returning();
  return row ?? null;
}

/** The address book, most recently used or added first. */
export async function destinationsOf(ex: Executor, merchantId: string, limit = 200): Promise<Destination[]> {
  return ex
    .select()
    .from(payoutDestinations)
    .where(eq(payoutDestinations.merchantId, merchantId))
    .orderBy(
      desc(sql`coalesce(${payoutDestinations.lastUsedAt}, ${payoutDestinations.createdAt})`),
      desc(payoutDestinations.id),
    )
    .limit(limit);
}
