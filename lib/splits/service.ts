import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { orderSplits, recipients, type OrderSplit } from "@/db/schema";
import { RequestRefused } from "@/lib/errors-api";
import { recordEvent } from "@/lib/events/outbox";
import { centavosToBrl, formatBrl } from "@/lib/money";
import { postRecipientEntry } from "@/lib/recipients/ledger";
import { allocate, MAX_SPLITS, refundProRata, validateSplits, type SplitRefusal, type SplitSpec } from "./allocate";
import type { SplitView } from "./schemas";

// An order's split (docs/api.md#splits): checked and written with the order, credited in the
// transaction that credits the order (behind its conditional UPDATE, so once), taken back pro rata
// with each refund or MED return. The arithmetic is ./allocate.ts's.

/** Whose split: an order of the orders table (PIX, exchange wallet, Lightning) or an on-chain deposit. */
export type SplitOwner = { orderId: string } | { onchainOrderId: string };
/** What an order says about itself that its split needs. */
export type SplitOrder = {
  id: string;
  merchantId: string;
  paymentLinkId: string;
  valueCentavos: number;
  splitCount: number;
};

const ownerColumn = (owner: SplitOwner) =>
  "orderId" in owner ? eq(orderSplits.orderId, owner.orderId) : eq(orderSplits.onchainOrderId, owner.onchainOrderId);

function refusal(r: SplitRefusal): RequestRefused {
  switch (r.code) {
    case "SPLIT_TOO_MANY":
      return new RequestRefused(`splits: at most ${MAX_SPLITS} parts per order`, "split_too_many");
    case "SPLIT_DUPLICATE_RECIPIENT":
      return new RequestRefused(
        `splits: recipient ${r.recipientId} appears more than once`,
        "split_duplicate_recipient",
      );
    case "SPLIT_PERCENTAGE_OUT_OF_RANGE":
      return new RequestRefused(
        `splits: the percentage for recipient ${r.recipientId} must be greater than 0 and at most 100`,
        "split_percentage_out_of_range",
      );
    case "SPLIT_VALUE_NOT_POSITIVE":
      return new RequestRefused(
        `splits: the value for recipient ${r.recipientId} must be greater than 0`,
        "split_value_not_positive",
      );
    case "SPLIT_SUM_ABOVE_VALUE":
      return new RequestRefused("splits: the parts add up to more than the order's value", "split_sum_above_value");
  }
}

/**
 * Refuses (a 400 in the endpoint's body) parts that validateSplits refuses, and any recipient that is
 * not one of the merchant's: an unknown id and another merchant's are answered alike.
 */
export async function checkSplits(
  ex: Executor,
  merchantId: string,
  specs: readonly SplitSpec[],
  orderCentavos: number,
): Promise<void> {
  if (specs.length === 0) return;
  const refused = validateSplits(specs, orderCentavos);
  if (refused) throw refusal(refused);
  const ids = specs.map((s) => s.recipientId);
  const found = await ex
    .select({ id: recipients.id, status: recipients.status })
    .from(recipients)
    .where(and(eq(recipients.merchantId, merchantId), inArray(recipients.id, ids)));
  const known = new Set(found.map((r) => r.id));
  const missing = ids.find((id) => !known.has(id));
  if (missing)
    throw new RequestRefused(
      `splits: recipient ${missing} is not one of this merchant's recipients`,
      "split_recipient_unknown",
    );
  const disabled = found.find((r) => r.status !== "ACTIVE");
  if (disabled) throw new RequestRefused(`splits: recipient ${disabled.id} is disabled`, "split_recipient_disabled");
}

/** Writes the parts in the order's transaction, each worth its share of the order's value until paid. */
export async function insertSplits(
  tx: Tx,
  owner: SplitOwner,
  merchantId: string,
  specs: readonly SplitSpec[],
  orderCentavos: number,
): Promise<OrderSplit[]> {
  if (specs.length === 0) return [];
  const planned = allocate(specs, orderCentavos, orderCentavos).parts;
  return tx
    .insert(orderSplits)
    .values(
      specs.map((s, i) => ({
        ...owner,
        merchantId,
        recipientId: s.recipientId,
        position: i,
        requestedCentavos: "valueCentavos" in s ? s.valueCentavos : null,
        percentageBasisPoints: "percentageBasisPoints" in s ? s.percentageBasisPoints : null,
        valueCentavos: planned[i].centavos,
      })),
    )
    .returning();
}

/** The order's parts in the order requested; none without a query for an order that has no split. */
export async function splitsOf(ex: Executor, owner: SplitOwner, splitCount: number): Promise<OrderSplit[]> {
  if (splitCount === 0) return [];
  return ex.select().from(orderSplits).where(ownerColumn(owner)).orderBy(asc(orderSplits.position));
}

/** The parts of many orders of the orders table at once (a page of a list), by order id. */
export async function splitsOfOrders(ex: Executor, orderIds: string[]): Promise<Map<string, OrderSplit[]>> {
  const out = new Map<string, OrderSplit[]>();
  if (orderIds.length === 0) return out;
  const rows = await ex
    .select()
    .from(orderSplits)
    .where(inArray(orderSplits.orderId, orderIds))
    .orderBy(asc(orderSplits.position));
  for (const r of rows) out.set(r.orderId!, [...(out.get(r.orderId!) ?? []), r]);
  return out;
}

/** The same for on-chain deposits. */
export async function splitsOfDeposits(ex: Executor, ids: string[]): Promise<Map<string, OrderSplit[]>> {
  const out = new Map<string, OrderSplit[]>();
  if (ids.length === 0) return out;
  const rows = await ex
    .select()
    .from(orderSplits)
    .where(inArray(orderSplits.onchainOrderId, ids))
    .orderBy(asc(orderSplits.position));
  for (const r of rows) out.set(r.onchainOrderId!, [...(out.get(r.onchainOrderId!) ?? []), r]);
  return out;
}

/**
 * The parts as every merchant view shows them. `unpaidFinal`: the order ended without being paid
 * (CANCELLED, FAILED), so a part never credited shows CANCELLED; a late payment can still credit it.
 */
export function splitViews(rows: readonly OrderSplit[], unpaidFinal = false): SplitView[] {
  return rows.map((r) => ({
    recipientId: r.recipientId,
    value: centavosToBrl(r.valueCentavos),
    ...(r.percentageBasisPoints !== null ? { percentage: r.percentageBasisPoints / 100 } : {}),
    refundedValue: centavosToBrl(r.refundedCentavos),
    status: unpaidFinal && r.status === "PENDING" ? "CANCELLED" : r.status,
  }));
}

const specOf = (r: OrderSplit): SplitSpec =>
  r.percentageBasisPoints !== null
    ? { recipientId: r.recipientId, percentageBasisPoints: r.percentageBasisPoints }
    : { recipientId: r.recipientId, valueCentavos: r.requestedCentavos! };

/**
 * In the transaction that credits `order` (after its conditional UPDATE succeeded, so once):
 * shares `creditedCentavos` (the BRL accepted as payment) between the parts and the merchant,
 * credits each recipient (one entry per part, keyed by its order_splits row), marks the parts
 * CREDITED with their value, writes `order.split.credited`, and returns what the merchant keeps.
 */
export async function creditSplits(
  tx: Tx,
  owner: SplitOwner,
  order: SplitOrder,
  creditedCentavos: number,
  orderType: string,
): Promise<number> {
  if (order.splitCount === 0) return creditedCentavos;
  const rows = await tx
    .select()
    .from(orderSplits)
    .where(ownerColumn(owner))
    .orderBy(asc(orderSplits.position))
    .for("update");
  const pending = rows.filter((r) => r.status === "PENDING");
  if (pending.length === 0) return creditedCentavos - rows.reduce((a, r) => a + r.valueCentavos, 0);
  const shares = allocate(rows.map(specOf), order.valueCentavos, creditedCentavos);
  const credited: OrderSplit[] = [];
  for (let i = 0; i < rows.length; i++) {
    const centavos = shares.parts[i].centavos;
    await postRecipientEntry(tx, {
      merchantId: order.merchantId,
      recipientId: rows[i].recipientId,
      kind: "split_credit",
      amountCentavos: centavos,
      refType: "order_split",
      refId: rows[i].id,
      description: `split of ${orderType} order ${order.paymentLinkId}`,
    });
    const [row] = await tx
      .update(orderSplits)
      .set({ valueCentavos: centavos, status: "CREDITED", creditedAt: sql`now()` })
      .where(and(eq(orderSplits.id, rows[i].id), eq(orderSplits.status, "PENDING")))
      .returning();
    credited.push(row ?? rows[i]);
  }
  await recordEvent(tx, {
    merchantId: order.merchantId,
    type: "order.split.credited",
    subjectType: "orderId" in owner ? "order" : "onchain_order",
    subjectId: order.id,
    data: {
      orderId: order.id,
      orderType,
      paymentLinkId: order.paymentLinkId,
      creditedValue: centavosToBrl(creditedCentavos),
      merchantValue: centavosToBrl(shares.merchantCentavos),
      splits: splitViews(credited),
    },
  });
  return shares.merchantCentavos;
}

/** How a refund or a MED return of a split order is shared: what the merchant pays, and `apply` for the parts. */
export type SplitTakeBack = { merchantCentavos: number; apply: (tx: Tx, refId: string) => Promise<void> };

/**
 * Plans taking `backCentavos` of a paid order back pro rata, `alreadyCentavos` having been taken
 * back before (refunds not FAILED, MED returns): each part gives refundProRata's share of everything
 * taken back so far, less what it gave before, so partial refunds that add up to the whole take each
 * part back exactly, never a centavo more from the merchant; the merchant pays the rest. `apply`
 * posts one recipient entry per part (its own key: the refund's or the devolução's id and the part's),
 * which may leave a recipient's balance negative, and moves each part's refundedValue; it runs in the
 * transaction that records the refund or return.
 */
export async function planTakeBack(
  tx: Tx,
  owner: SplitOwner,
  order: SplitOrder,
  creditedCentavos: number,
  alreadyCentavos: number,
  backCentavos: number,
  kind: "split_refund" | "split_med_return",
  refType: "refund" | "pix_return",
): Promise<SplitTakeBack> {
  if (order.splitCount === 0) return { merchantCentavos: backCentavos, apply: async () => {} };
  const rows = (
    await tx.select().from(orderSplits).where(ownerColumn(owner)).orderBy(asc(orderSplits.position)).for("update")
  ).filter((r) => r.status === "CREDITED" || r.status === "REFUNDED");
  if (rows.length === 0) return { merchantCentavos: backCentavos, apply: async () => {} };
  const cumulative = refundProRata(
    rows.map((r) => ({ recipientId: r.recipientId, centavos: r.valueCentavos })),
    creditedCentavos,
    Math.min(creditedCentavos, alreadyCentavos + backCentavos),
  );
  const back = rows.map((r, i) =>
    Math.max(0, Math.min(r.valueCentavos - r.refundedCentavos, cumulative.parts[i].centavos - r.refundedCentavos)),
  );
  return {
    merchantCentavos: backCentavos - back.reduce((a, c) => a + c, 0),
    apply: async (tx2, refId) => {
      for (let i = 0; i < rows.length; i++) {
        const centavos = back[i];
        if (centavos === 0) continue;
        await postRecipientEntry(tx2, {
          merchantId: order.merchantId,
          recipientId: rows[i].recipientId,
          kind,
          amountCentavos: -centavos,
          refType,
          refId: `${refId}/${rows[i].id}`,
          description: `${kind === "split_refund" ? "refund" : "MED return"} of order ${order.paymentLinkId}: ${formatBrl(centavos)} of the part`,
        });
        await moveRefunded(tx2, rows[i].id, centavos);
      }
    },
  };
}

async function moveRefunded(tx: Tx, splitId: string, centavos: number) {
  await tx
    .update(orderSplits)
    .set({
      refundedCentavos: sql`${orderSplits.refundedCentavos} + ${centavos}`,
      status: sql`case when ${orderSplits.refundedCentavos} + ${centavos} >= ${orderSplits.valueCentavos} then 'REFUNDED' else 'CREDITED' end`,
    })
    .where(eq(orderSplits.id, splitId));
}

/**
 * A refund that FAILED gives back what it took from each part (the merchant's debit is credited back
 * by lib/refunds): one reversal entry per part it debited, keyed like that debit. Returns their sum.
 */
export async function reverseSplitRefund(tx: Tx, merchantId: string, refundId: string): Promise<number> {
  const taken = await tx.execute<{ recipient_id: string; amount_centavos: string; ref_id: string }>(sql`
    select recipient_id, amount_centavos, ref_id from recipient_ledger_entries
    where kind = 'split_refund' and ref_type = 'refund' and ref_id like ${`${refundId}/%`} and merchant_id = ${merchantId}`);
  let total = 0;
  for (const t of taken) {
    const centavos = -Number(t.amount_centavos);
    total += centavos;
    const posted = await postRecipientEntry(tx, {
      merchantId,
      recipientId: t.recipient_id,
      kind: "split_refund_reversal",
      amountCentavos: centavos,
      refType: "refund",
      refId: t.ref_id,
      description: "refund not made: the part is given back",
    });
    if (posted) await moveRefunded(tx, t.ref_id.slice(refundId.length + 1), -centavos);
  }
  return total;
}

/**
 * What the payer's receipt may show of a split, when the merchant chose to (merchants.receipt_shows_splits):
 * each recipient's name and its part in BRL, in the order requested; parts that will never be
 * credited (an order that ended unpaid) are not shown.
 */
export async function receiptParts(
  ex: Executor,
  owner: SplitOwner,
  splitCount: number,
): Promise<{ name: string; value: number }[]> {
  if (splitCount === 0) return [];
  const rows = await ex
    .select({ name: recipients.name, valueCentavos: orderSplits.valueCentavos, status: orderSplits.status })
    .from(orderSplits)
    .innerJoin(recipients, eq(recipients.id, orderSplits.recipientId))
    .where(ownerColumn(owner))
    .orderBy(asc(orderSplits.position));
  return rows
    .filter((r) => r.status !== "CANCELLED")
    .map((r) => ({ name: r.name, value: centavosToBrl(r.valueCentavos) }));
}

type Viewed = { id: string; splitCount: number; status: string };

/** An order's split (orders table) as every merchant view shows it; [] and no query without one. */
export async function orderSplitViews(ex: Executor, o: Viewed): Promise<SplitView[]> {
  return splitViews(
    await splitsOf(ex, { orderId: o.id }, o.splitCount),
    o.status === "CANCELLED" || o.status === "FAILED",
  );
}

/** An on-chain deposit's split as every merchant view shows it; [] and no query without one. */
export async function depositSplitViews(ex: Executor, o: Viewed): Promise<SplitView[]> {
  return splitViews(await splitsOf(ex, { onchainOrderId: o.id }, o.splitCount), o.status === "FAILED");
}
