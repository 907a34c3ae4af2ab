import { db } from "@/db";
import { merchantKey } from "@/lib/identity/api-keys/callers";
import { NotFound } from "@/lib/errors";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody, successFalseBody } from "@/lib/http/error-body";
import { depositExample, depositGetExample } from "./examples";
import { createDepositBody, createDepositError, createDepositResponse, getDepositResponse } from "./schemas";
import { createDeposit, findDeposit, findDepositById, splitsOfDeposit } from "./service";
import { depositCreatedView, depositView } from "./views";

export const createDepositEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/onchain/deposit",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createDepositBody,
  response: {
    status: 201,
    description: "Deposit order created",
    schema: createDepositResponse,
    example: depositExample,
  },
  docs: {
    summary: "Create an on-chain deposit",
    description:
      "Creates an order with a fresh deposit address on the chosen network. The BRL value is converted to the token at the current rate, rounded up to 6 decimals, and the rate is fixed for the order. The order expires after 24 h.",
    tag: "On-chain",
    requestExample: { value: 100.5, asset: "USDT", network: "polygon" },
    errorSchemas: { 400: createDepositError },
    errorExamples: {
      400: {
        message: 'Network not supported: "tron". Supported networks: eth, bsc, polygon',
        extra: { supportedNetworks: ["eth", "bsc", "polygon"] },
      },
    },
  },
  async handle({ merchant, body }) {
    const order = await createDeposit(merchant, body);
    return { order: depositCreatedView(order, await splitsOfDeposit(db(), order)) };
  },
  async replay({ merchant, resource }) {
    const order = await findDepositById(merchant.id, resource.id);
    if (!order) throw new NotFound("On-chain order not found");
    return { order: depositCreatedView(order, await splitsOfDeposit(db(), order)) };
  },
});

export const getDepositEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/onchain/order/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: successFalseBody,
  // The spec's row: an unknown on-chain order is a 400 here.
  notFoundStatus: 400,
  response: { status: 200, description: "The deposit order", schema: getDepositResponse, example: depositGetExample },
  docs: {
    summary: "Look up an on-chain deposit",
    description: "By payment link id. An unknown id is a 400 here, as the spec has it.",
    tag: "On-chain",
    params: { id: "Payment link id of the deposit order" },
    errors: [400],
    errorExamples: { 400: { message: "On-chain order not found" } },
  },
  async handle({ merchant, params }) {
    const order = await findDeposit(merchant.id, params.id);
    return { order: depositView(order, await splitsOfDeposit(db(), order)) };
  },
});
