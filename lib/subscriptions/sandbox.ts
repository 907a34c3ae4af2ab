import { and, eq } from "drizzle-orm";
import { db } from "@/db";
import { subscriptionCycles } from "@/db/schema";
import { Conflict, NotFound } from "@/lib/errors";
import { sandboxBank } from "@/lib/providers/recurring/sandbox";
import { asEngineWork, followCycle } from "./engine";
import { findSubscriptionRow, refreshSubscription, subscriptionWithCycles } from "./service";

// Sandbox helpers (docs/api.md#sandbox-helpers): the payer and the payer's bank, played against the
// sandbox's recurring PSP. Each changes what the PSP holds, then the subscription is moved forward
// the way a notification moves it: by reading the PSP back (./engine.ts), never by being told.

async function row(merchantId: string, id: string) {
  const sub = await findSubscriptionRow(merchantId, id);
  if (sub.provider !== "sandbox-pix") throw new NotFound("Subscription not found");
  return sub;
}

/** The payer authorises in the bank app (journey 3: and pays the first charge with it). */
export async function sandboxAuthorise(merchantId: string, id: string) {
  const sub = await row(merchantId, id);
  if (sub.status !== "AWAITING_AUTHORISATION" || !(await sandboxBank.authorise(sub.idRec)))
    throw new Conflict(`Subscription is ${sub.status}: it is not waiting for the payer's authorisation`, {
      code: "subscription.notAuthorisable",
      values: { status: sub.status },
    });
  await asEngineWork(() => refreshSubscription(sub));
  return subscriptionWithCycles(await findSubscriptionRow(merchantId, id));
}

/** The payer cancels the authorisation at the bank. */
export async function sandboxPayerCancel(merchantId: string, id: string) {
  const sub = await row(merchantId, id);
  if (!(await sandboxBank.cancel(sub.idRec)))
    throw new Conflict(`Subscription is ${sub.status}: it has already ended`, {
      code: "subscription.notCancellable",
      values: { status: sub.status },
    });
  await asEngineWork(() => refreshSubscription(sub));
  return subscriptionWithCycles(await findSubscriptionRow(merchantId, id));
}

/** The cycle's scheduled attempt settles at the payer's bank: paid, or rejected. */
export async function sandboxSettleCycle(
  merchantId: string,
  id: string,
  cycleNumber: number,
  outcome: "paid" | "rejected",
  final = false,
) {
  const sub = await row(merchantId, id);
  const [cycle] = await db()
    .select()
    .from(subscriptionCycles)
    .where(and(eq(subscriptionCycles.subscriptionId, sub.id), eq(subscriptionCycles.cycle, cycleNumber)));
  if (!cycle) throw new NotFound("Cycle not found");
  const open = cycle.kind === "RECURRING" && (cycle.status === "SCHEDULED" || cycle.status === "RETRYING");
  if (!open || !(await sandboxBank.settle(cycle.txid, outcome, { final })))
    throw new Conflict(`Cycle ${cycleNumber} is ${cycle.status}: it has no attempt waiting to settle`, {
      code: "subscription.chargeNotOpen",
      values: { status: cycle.status },
    });
  await asEngineWork(() => followCycle(cycle.id));
  return subscriptionWithCycles(await findSubscriptionRow(merchantId, id));
}
