import { endpoint } from "@/lib/api/handler";
import { messageBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import { env } from "@/lib/env";
import { createMerchantBody, updateMerchantBody } from "./schemas";
import { createMerchant, updateMerchant } from "./service";

/** POST /api/v1/admin/merchants (CONTRACT §2). */
export const adminCreateMerchant = endpoint({
  auth: "admin",
  errorBody: messageBody,
  body: createMerchantBody,
  handle: async ({ body }) => json(201, await createMerchant(body, { mode: env().PAYMENTS_MODE })),
});

/** PATCH /api/v1/admin/merchants/{id}: how an operator assigns an account type. */
export const adminUpdateMerchant = endpoint({
  auth: "admin",
  errorBody: messageBody,
  body: updateMerchantBody,
  handle: async ({ params, body }) => json(200, { merchant: await updateMerchant(params.id, body) }),
});
