import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { reconMismatches, type ReconMismatch } from "@/db/schema";
import { clearAttention } from "@/lib/attention/attention";
import { NotFound } from "@/lib/errors";
import { log } from "@/lib/log";
import { audit } from "@/lib/identity/audit";

// What an operator does with a mismatch (docs/operations.md "Reconciliation"): look at both sides,
// settle it where it must be settled (with the provider, or with the money-out commands), then resolve
// it here with a note saying what was done. The note goes on the audit trail (the merchant's, when
// the movement has one); the mismatch leaves the open list, the metric and the attention list.

/** Mismatches waiting for an operator, oldest first; `all` adds resolved and cleared ones. */
export async function listMismatches(opts: { all?: boolean; limit?: number } = {}): Promise<ReconMismatch[]> {
  return db()
    .select()
    .from(reconMismatches)
    .where(opts.all ? undefined : isNull(reconMismatches.resolvedAt))
    .orderBy(asc(reconMismatches.createdAt))
    .limit(opts.limit ?? 500);
}

/** Records an operator's resolution of one mismatch, once; audited with its note. */
export async function resolveMismatch(id: string, note: string, by = "operator (cli)"): Promise<ReconMismatch> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new NotFound(`No open reconciliation mismatch ${id}`);
  // The resolution, its attention cleared and its audit line commit together: none without the others.
  const row = await db().transaction(async (tx) => {
    const [resolved] = await tx
      .update(reconMismatches)
      .set({ resolvedAt: sql`now()`, resolvedBy: by, resolution: note })
      .where(and(eq(reconMismatches.id, id), isNull(reconMismatches.resolvedAt)))
      .returning();
    if (!resolved) throw new NotFound(`No open reconciliation mismatch ${id}`);
    await clearAttention("recon_mismatch", id, tx);
    await audit(
      { merchantId: resolved.merchantId, userId: null, email: by, ip: null },
      "recon.mismatchResolved",
      id,
      { source: resolved.source, day: resolved.day, kind: resolved.kind, ref: resolved.ref, note },
      tx,
    );
    return resolved;
  });
  log.info("reconciliation mismatch resolved", { id, kind: row.kind, ref: row.ref });
  return row;
}

/** Open mismatches by source and kind (the metric). */
export async function openMismatchCounts(ex: Executor = db()): Promise<{ source: string; kind: string; n: number }[]> {
  return ex
    .select({ source: reconMismatches.source, kind: reconMismatches.kind, n: sql<number>`count(*)::int` })
    .from(reconMismatches)
    .where(isNull(reconMismatches.resolvedAt))
    .groupBy(reconMismatches.source, reconMismatches.kind);
}
