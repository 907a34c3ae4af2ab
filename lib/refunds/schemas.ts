import { z } from "zod";
import { bodyObject, brlValue, metadataField, optionalText } from "@/lib/fields";
import { refundViewSchema } from "@/lib/orders/schemas";

// Refunds (docs/api.md#refunds). The refund's view is the order lookup's (lib/orders/schemas.ts lists refunds there).

/** The longest reason a refund takes: what API Pix carries (`descricao`, 140). */
export const REFUND_REASON_MAX = 140;

export const refundOrderBody = bodyObject({
  value: brlValue.optional().meta({
    description:
      "Amount to refund in BRL (> 0, at most 2 decimal places); default: what is left to refund on the order",
  }),
  reason: optionalText(REFUND_REASON_MAX).meta({
    description: `Why, at most ${REFUND_REASON_MAX} characters; sent to the provider. In sandbox mode "sandbox-fail" makes the refund FAIL`,
  }),
  metadata: metadataField,
});
export type RefundOrderInput = z.output<typeof refundOrderBody>;

export const refundOrderResponse = z.strictObject({ refund: refundViewSchema });
export type RefundOrderResponse = z.infer<typeof refundOrderResponse>;
