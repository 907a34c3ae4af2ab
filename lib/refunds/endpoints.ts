import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { successFalseBody } from "@/lib/http/error-body";
import { refundExample } from "./examples";
import { refundOrderBody, refundOrderResponse } from "./schemas";
import { findRefund, requestRefund } from "./service";
import { refundView } from "./views";
import { clientAddress } from "@/lib/http/client-address";
import { DEFAULT_LOCALE } from "@/lib/i18n";
import { apiKeyActor } from "@/lib/identity/audit";

export const refundOrderEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/order/{id}/refund",
  caller: merchantKey,
  scope: "refunds",
  // Like the order lookup it sits under.
  errorBody: successFalseBody,
  body: refundOrderBody,
  response: {
    status: 201,
    description: "Refund requested; its status says whether it was already made",
    schema: refundOrderResponse,
    example: refundExample,
  },
  docs: {
    summary: "Refund an order",
    description:
      "Sends all or part of a COMPLETED PIX or exchange-wallet order back to its payer. `value` defaults to what is left to refund: the order's value less its refunds that did not fail. " +
      "The balance is debited when the refund is requested (it must cover it) and credited back if the refund FAILS. The order becomes REFUND once its COMPLETED refunds reach its value. " +
      "`status` is PENDING until the provider answers (GET /api/v1/order/{id} lists the order's refunds; `refund.status_changed` events follow them). " +
      "Lightning orders cannot be refunded (400: the payer would have to send an invoice); on-chain orders cannot be modified (409). " +
      'Sandbox: a refund completes at once; `reason: "sandbox-fail"` makes it fail.',
    tag: "PIX and wallet orders",
    params: { id: "Order id (UUID) or payment link id" },
    requestExample: { value: 5, reason: "Produto devolvido" },
    errors: [400, 404, 409],
    errorExamples: {
      400: { message: "Refund value exceeds what is left to refund on this order: R$ 2,34 of R$ 12,34 is left" },
      404: { message: "Order not found" },
      409: { message: "On-chain orders cannot be refunded: a COMPLETED on-chain order cannot be modified" },
    },
  },
  async handle({ merchant, keyId, req, params, body }) {
    const actor = apiKeyActor(merchant.id, keyId, clientAddress(req.headers));
    const refund = await requestRefund(merchant, params.id, body, { actor, locale: DEFAULT_LOCALE });
    return { refund: refundView(refund) };
  },
  replay: async ({ merchant, resource }) => ({ refund: refundView(await findRefund(merchant.id, resource.id)) }),
});
