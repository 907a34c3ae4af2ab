import { db } from "@/db";
import type { MerchantProfile, OrderRefund } from "@/db/schema";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { coverDebit, lockBalance, postLedgerEntry } from "@/lib/ledger/ledger";
import { audit, type Actor } from "@/lib/identity/audit";
import { queueRefundMail } from "@/lib/identity/money-mail";
import type { Locale } from "@/lib/i18n";
import { log } from "@/lib/log";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { formatBrl } from "@/lib/money";
import { findAnyOrder } from "@/lib/orders/any-order";
import { plainOrderName } from "@/lib/orders/title";
import { appliedReceiptOf, lockOrder, refundsOfOrder } from "@/lib/orders/queries";
import { requireRail } from "@/lib/providers/rails";
import { advanceRefund, followRefund, refunderFor } from "./machine";
import { insertRefund, refundById } from "./queries";
import { leftToRefund, refundableKind } from "./rule";
import type { RefundOrderInput } from "./schemas";
import { refundEventData } from "./views";
import { orderSplitViews, planTakeBack } from "@/lib/splits/service";

// Requesting a refund of an order (docs/api.md#refunds). What is left to refund is ./rule.ts's (the
// order's value less every refund not FAILED and what the MED returned); the order becomes REFUND only
// when its COMPLETED refunds reach its value (./machine.ts). The merchant pays for the refund when it is requested: the balance must cover it.

/** Binance Pay's limit of refunds per order (its 10th refunds all that is left, whatever it asks). */
const MAX_EXCHANGE_REFUNDS = 10;

/** One of the merchant's refunds, as it stands. */
export async function findRefund(merchantId: string, id: string): Promise<OrderRefund> {
  const refund = await refundById(db(), id);
  if (!refund || refund.merchantId !== merchantId) throw new NotFound("Refund not found");
  return refund;
}

/**
 * Accepts a refund (its row, its ledger debit, its event and the request's Idempotency-Key bound to
 * it in one transaction, under the order's and then the merchant's row lock), then asks the provider
 * once right away: a sandbox refund is already COMPLETED or FAILED when this returns; one whose
 * outcome is unknown stays PENDING and is followed by the job queue and the sweep.
 */
export async function requestRefund(
  merchant: MerchantProfile,
  idOrLink: string,
  input: RefundOrderInput,
  origin: { actor: Actor; locale: Locale },
): Promise<OrderRefund> {
  const found = await findAnyOrder(merchant.id, idOrLink);
  if (!found) throw new NotFound("Order not found");
  if (found.kind !== "order")
    throw new Conflict("On-chain orders cannot be refunded: a COMPLETED on-chain order cannot be modified");
  const { kind } = found.order;
  if (!refundableKind(kind)) {
    throw new InvalidInput(
      "Lightning orders cannot be refunded: a Lightning payment cannot be sent back without an invoice from the payer",
      {
        code: "refund.lightning",
      },
    );
  }
  // Nothing is written for a rail this server cannot reach (live mode without its provider).
  requireRail(kind);
  const reason = input.reason ? input.reason : null;

  const refund = await db().transaction(async (tx) => {
    const order = (await lockOrder(tx, found.order.id))!;
    if (order.status === "REFUND")
      throw new InvalidInput("This order has already been refunded in full: nothing is left to refund", {
        code: "refund.nothingLeft",
      });
    if (order.status !== "COMPLETED")
      throw new InvalidInput(`Only COMPLETED orders can be refunded; this order is ${order.status}`, {
        code: "refund.notCompleted",
      });
    const paymentRef = kind === "pix" ? (await appliedReceiptOf(tx, order.id))?.endToEndId : order.providerRef;
    if (!paymentRef) {
      throw new InvalidInput(
        "This order cannot be refunded through the API: there is no record of the payment that completed it (it predates payment receipts)",
        {
          code: "refund.noReceipt",
        },
      );
    }
    const left = await leftToRefund(tx, order);
    if (left <= 0)
      throw new InvalidInput("Nothing is left to refund on this order: the refunds already requested cover its value", {
        code: "refund.nothingLeft",
      });
    const value = input.value ?? left;
    if (value > left) {
      throw new InvalidInput(
        `Refund value exceeds what is left to refund on this order: ${formatBrl(left)} of ${formatBrl(order.valueCentavos)} is left`,
        {
          code: "refund.exceeds",
          values: { left, total: order.valueCentavos },
        },
      );
    }
    // Binance Pay takes at most 10 refunds of an order, and the 10th refunds whatever is left whatever
    // it asks: so the last one must be for exactly that.
    if (
      kind === "exchange" &&
      (await refundsOfOrder(tx, order.id)).length >= MAX_EXCHANGE_REFUNDS - 1 &&
      value !== left
    ) {
      throw new InvalidInput(
        `An exchange-wallet order takes at most ${MAX_EXCHANGE_REFUNDS} refunds: the last one must refund everything that is left (${formatBrl(left)})`,
        { code: "refund.exchangeMax", values: { max: MAX_EXCHANGE_REFUNDS, left } },
      );
    }
    // A split order's refund is taken back from each part pro rata (lib/splits); the merchant pays its own share.
    const takeBack = await planTakeBack(
      tx,
      { orderId: order.id },
      order,
      order.valueCentavos,
      order.valueCentavos - left,
      value,
      "split_refund",
      "refund",
    );
    coverDebit(await lockBalance(tx, merchant.id), takeBack.merchantCentavos, "refund");
    const row = await insertRefund(tx, {
      orderId: order.id,
      merchantId: merchant.id,
      valueCentavos: value,
      reason,
      provider: refunderFor(kind).name,
      paymentRef,
      metadata: input.metadata ?? {},
    });
    await takeBack.apply(tx, row.id);
    if (takeBack.merchantCentavos > 0)
      await postLedgerEntry(tx, {
        merchantId: merchant.id,
        kind: "refund_debit",
        amountCentavos: -takeBack.merchantCentavos,
        refType: "refund",
        refId: row.id,
        description: `refund of order ${order.paymentLinkId}`,
      });
    await recordEvent(tx, {
      merchantId: merchant.id,
      type: "refund.status_changed",
      subjectType: "order",
      subjectId: order.id,
      data: refundEventData(row, order, null, await orderSplitViews(tx, order)),
    });
    await bindIdempotencyKey(tx, { type: "refund", id: row.id });
    // The audit row and the team's mail commit with the refund, or neither does.
    const orderName = plainOrderName(order);
    const actor = { ...origin.actor, merchantId: merchant.id };
    await audit(actor, "refund.requested", row.id, { orderId: order.id, valueCentavos: value, orderName }, tx);
    await queueRefundMail(tx, actor, origin.locale, row, orderName);
    return row;
  });
  deliverQueuedSoon();

  let final = false;
  try {
    final = await advanceRefund(refund.id);
  } catch (err) {
    // Recorded and debited: the job queue and the sweep take it from here.
    log.error("refund could not be sent right away; it is followed in the background", { refundId: refund.id, err });
  }
  if (!final) await followRefund(refund.id, 5);
  return (await refundById(db(), refund.id)) ?? refund;
}
