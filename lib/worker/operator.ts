import { and, eq, inArray, sql } from "drizzle-orm";
import { db } from "@/db";
import { orderRefunds, pixPayouts } from "@/db/schema";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { log } from "@/lib/log";
import { decidePayout, requestPayout } from "@/lib/pix-payouts/machine";
import { decideRefund, followRefund } from "@/lib/refunds/machine";
import { audit, type Actor } from "@/lib/identity/audit";
import { OPERATOR_ACTOR } from "@/lib/identity/audit-text";
import { PAYOUT_OWNERS } from "@/lib/worker/owners";

// What an operator does with money that needs one (lib/attention/attention.ts; `npm run cli -- attention`):
// after checking with the provider, either let it be sent again (same id: a provider that has it
// cannot pay it twice), or record the provider's answer the service could not get itself. Money goes
// back only on "not made", as when the provider says so; both are audited on the merchant's trail.

export type MoneyOutKind = "payout" | "refund";

const OPERATOR: Omit<Actor, "merchantId"> = { userId: null, email: OPERATOR_ACTOR, ip: null };

/** Allows one more send of an open payout or refund that stopped being sent, and asks its job to move it now. */
export async function resendMoneyOut(kind: MoneyOutKind, id: string, note: string): Promise<void> {
  // One send short of the bound: the next step reads it back and, still unknown there, sends it once more.
  const allowed = env().MONEY_OUT_MAX_SENDS - 1;
  const table = kind === "payout" ? pixPayouts : orderRefunds;
  const open =
    kind === "payout" ? inArray(pixPayouts.status, ["created", "processing"]) : eq(orderRefunds.status, "PENDING");
  const [row] = await db()
    .update(table)
    .set({ attempts: sql`least(${table.attempts}, ${allowed})`, leaseUntil: null })
    .where(and(eq(table.id, id), open))
    .returning({ merchantId: table.merchantId });
  if (!row) throw new NotFound(`No open ${kind} ${id}`);
  await audit(
    { ...OPERATOR, merchantId: row.merchantId },
    kind === "payout" ? "payout.resentByOperator" : "refund.resentByOperator",
    id,
    { note },
  );
  if (kind === "payout") await requestPayout(id);
  else await followRefund(id);
  log.info("money out sent again by an operator", { kind, id });
}

/**
 * Records what the provider told an operator about an open payout or refund: made, or not made (its
 * money then goes back, through the same owners as when the provider answers).
 */
export async function resolveMoneyOut(
  kind: MoneyOutKind,
  id: string,
  outcome: "made" | "not-made",
  note: string,
): Promise<void> {
  const table = kind === "payout" ? pixPayouts : orderRefunds;
  const [row] = await db().select({ merchantId: table.merchantId }).from(table).where(eq(table.id, id));
  if (!row) throw new NotFound(`No ${kind} ${id}`);
  const reason = `decided by an operator: ${note}`;
  if (kind === "payout") {
    await decidePayout(
      id,
      outcome === "made" ? { status: "completed", providerRef: null } : { status: "failed", providerRef: null, reason },
      PAYOUT_OWNERS,
      "operator",
    );
  } else {
    await decideRefund(
      id,
      outcome === "made" ? { status: "COMPLETED", providerRef: null } : { status: "FAILED", providerRef: null, reason },
    );
  }
  await audit(
    { ...OPERATOR, merchantId: row.merchantId },
    kind === "payout" ? "payout.resolvedByOperator" : "refund.resolvedByOperator",
    id,
    { outcome, note },
  );
  log.info("money out decided by an operator", { kind, id, outcome });
}
