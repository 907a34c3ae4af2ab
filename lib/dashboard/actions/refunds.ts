"use server";

import { actorOf } from "@/lib/identity/dashboard/session";
import { requestRefund } from "@/lib/refunds/service";
import { getLocale } from "@/lib/i18n/server";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { DECIMAL_FIELDS, refundForm } from "../schemas";

// A refund from the order's page: the same service call as POST /api/v1/order/{id}/refund, which
// checks what is left and the balance again under the order's and the merchant's row locks. Money
// leaves the balance, so it is a money move (fresh second factor, factor-change hold), and the form
// names the amount itself: the API's "everything left" default is not offered here.

const MESSAGES = { PENDING: "refunds.pending", COMPLETED: "refunds.completed", FAILED: "refunds.failed" } as const;

export const refundOrderAction = merchantAction(
  refundForm,
  async ({ id, ...input }, signedIn) => {
    const refund = await requestRefund(signedIn.merchant, id, input, {
      actor: actorOf(signedIn),
      locale: await getLocale(),
    });
    return { data: { id: refund.id, status: refund.status }, message: MESSAGES[refund.status] };
  },
  { decimalFields: DECIMAL_FIELDS, permission: "refunds.create", moneyMove: "refund" },
);
