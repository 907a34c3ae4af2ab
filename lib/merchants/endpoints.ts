import { operator } from "@/lib/identity/api-keys/callers";
import { env } from "@/lib/env";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { adminCreateExample, adminUpdateExample } from "./examples";
import { createMerchantBody, createMerchantResponse, updateMerchantBody, updateMerchantResponse } from "./schemas";
import { createMerchant, updateMerchant } from "./service";

export const createMerchantEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/admin/merchants",
  caller: operator,
  errorBody: messageBody,
  body: createMerchantBody,
  response: {
    status: 201,
    description: "Merchant created",
    schema: createMerchantResponse,
    example: adminCreateExample,
  },
  docs: {
    summary: "Create a merchant",
    description:
      "Creates the merchant, its first API key (shown once) and, with email and password, its dashboard user. `openingBalance` (centavos) is sandbox-only.",
    tag: "Operator",
    requestExample: {
      companyName: "Padaria Pão Quente",
      pixKey: "11222333000181",
      accountType: "verified",
      email: "dono@padaria.example",
      password: "correct horse battery",
    },
  },
  handle: ({ body }) => createMerchant(body, { mode: env().PAYMENTS_MODE }),
});

/** How an operator assigns an account type (docs/api.md#operator-api). */
export const updateMerchantEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/api/v1/admin/merchants/{id}",
  caller: operator,
  errorBody: messageBody,
  body: updateMerchantBody,
  response: {
    status: 200,
    description: "Merchant updated",
    schema: updateMerchantResponse,
    example: adminUpdateExample,
  },
  docs: {
    summary: "Update a merchant",
    description: "Sets the account type (and so the withdrawal limits), company name or PIX key.",
    tag: "Operator",
    params: { id: "Merchant id" },
    requestExample: { accountType: "business" },
  },
  handle: async ({ params, body }) => ({ merchant: await updateMerchant(params.id, body) }),
});

export const MERCHANT_ENDPOINTS = [createMerchantEndpoint, updateMerchantEndpoint];
