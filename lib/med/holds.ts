import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { orderSplitViews } from "@/lib/splits/service";
import type { Tx } from "@/db";
import { constant } from "@/db/constant";
import { prepared } from "@/db/prepared";
import { medInfractions, pixReturns, type MedInfraction } from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { centavosToBrl } from "@/lib/money";
import { orderById } from "@/lib/orders/queries";
import { orderView } from "@/lib/orders/views";

// The disputed amount of an open MED infraction, held out of the merchant's available balance
// (docs/providers.md "MED infractions"): the PSP blocks it on its side the moment the payer's bank
// files the claim, so the merchant must not withdraw it first and end negative. Held with a ledger
// debit (med_hold, which may take the balance below zero, like the devolução it anticipates), released
// with a credit of the same amount (med_hold_release) when the infraction closes without a return, and
// released in the transaction of the devolução's med_debit when the MED returns the PIX: the hold turns
// into the debit, and the merchant pays once. Each step is once per infraction (the ledger's unique
// (kind, ref)), with `order.hold.status_changed`, in the caller's transaction.

/** The PSP's words (Efí) for an infraction whose amount stays at risk: open, defended, or accepted and not yet returned. */
const HOLDING = new Set(["ABERTA", "EM_DEFESA", "ACEITA"]);
/** Closed without a return: the payer's claim rejected, or cancelled by the PSP. */
const RELEASING = new Set(["REJEITADA", "CANCELADA_EFI"]);

type HoldStatus = "HELD" | "RELEASED" | "RETURNED";

/** Holds, releases or leaves the infraction's amount as its status says; `row` locked by the caller. */
export async function settleHold(tx: Tx, row: MedInfraction): Promise<void> {
  if (!row.merchantId || !row.orderId) return;
  if (row.holdState === "none" && HOLDING.has(row.status)) {
    // Returned already (the devolução was read first): its debit is the whole story.
    const [returned] = await tx
      .select({ id: pixReturns.id })
      .from(pixReturns)
      .where(and(eq(pixReturns.endToEndId, row.endToEndId), isNotNull(pixReturns.debitedAt)))
      .limit(1);
    if (returned) return;
    await move(tx, row, "HELD");
  } else if (row.holdState === "held" && RELEASING.has(row.status)) {
    await move(tx, row, "RELEASED");
  }
}

/** In the devolução's debit transaction: every hold on that PIX becomes the debit (released as it is posted). */
export async function returnHolds(tx: Tx, endToEndId: string, merchantId: string): Promise<void> {
  const held = await tx
    .select()
    .from(medInfractions)
    .where(
      and(
        eq(medInfractions.endToEndId, endToEndId),
        eq(medInfractions.merchantId, merchantId),
        eq(medInfractions.holdState, "held"),
      ),
    )
    .for("update");
  for (const row of held) await move(tx, row, "RETURNED");
}

async function move(tx: Tx, row: MedInfraction, to: HoldStatus): Promise<void> {
  const amount = to === "HELD" ? row.valueCentavos : (row.heldCentavos ?? 0);
  const posted = await postLedgerEntry(tx, {
    merchantId: row.merchantId!,
    kind: to === "HELD" ? "med_hold" : "med_hold_release",
    amountCentavos: to === "HELD" ? -amount : amount,
    refType: "med_infraction",
    refId: row.id,
    description:
      to === "HELD"
        ? `held while MED infraction ${row.infractionId} on PIX ${row.endToEndId} is open (deadline ${row.deadline.toISOString()})`
        : to === "RELEASED"
          ? `released: MED infraction ${row.infractionId} closed without a return (${row.status})`
          : `released: PIX ${row.endToEndId} returned under MED infraction ${row.infractionId}, debited as med_debit`,
  });
  const [updated] = await tx
    .update(medInfractions)
    .set({
      holdState: to === "HELD" ? "held" : to === "RELEASED" ? "released" : "returned",
      ...(to === "HELD" ? { heldCentavos: amount } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(medInfractions.id, row.id))
    .returning();
  if (!posted) return;
  const order = await orderById(tx, row.orderId!);
  if (!order) return;
  await recordEvent(tx, {
    merchantId: row.merchantId!,
    type: "order.hold.status_changed",
    subjectType: "order",
    subjectId: order.id,
    data: { ...orderView(order, await orderSplitViews(tx, order)), hold: holdView(updated, to) },
  });
}

function holdView(r: MedInfraction, status: HoldStatus) {
  return {
    infractionId: r.id,
    endToEndId: r.endToEndId,
    value: centavosToBrl(r.heldCentavos ?? r.valueCentavos),
    status,
    infractionStatus: r.status,
    deadline: r.deadline.toISOString(),
  };
}

export type HeldFunds = { infractionId: string; orderId: string; valueCentavos: number; deadline: Date };

/** What is held out of a merchant's balance now, soonest deadline first (GET /account, the dashboard). */
export async function heldFunds(merchantId: string): Promise<HeldFunds[]> {
  const rows = await heldFundsQuery().execute({ merchantId });
  return rows.map((r) => ({ ...r, orderId: r.orderId!, valueCentavos: r.valueCentavos ?? 0 }));
}

// Every GET /account reads it: prepared once per pool, so PostgreSQL plans it once and Drizzle builds it once.
const heldFundsQuery = () =>
  prepared("held_funds", (d) =>
    d
      .select({
        infractionId: medInfractions.id,
        orderId: medInfractions.orderId,
        valueCentavos: medInfractions.heldCentavos,
        deadline: medInfractions.deadline,
      })
      .from(medInfractions)
      .where(
        and(
          eq(medInfractions.merchantId, sql.placeholder("merchantId")),
          eq(medInfractions.holdState, constant("held")),
        ),
      )
      .orderBy(asc(medInfractions.deadline))
      .prepare("held_funds"),
  );
