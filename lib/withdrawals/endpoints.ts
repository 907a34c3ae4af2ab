import type { Withdrawal } from "@/db/schema";
import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody, pixOutBody as pixOutErrorBody, withdrawBody } from "@/lib/http/error-body";
import { clientAddress } from "@/lib/http/client-address";
import { apiKeyActor } from "@/lib/identity/audit";
import { pixOutExample, withdrawalExample, withdrawalsExample, withdrawExample } from "./examples";
import {
  getWithdrawalResponse,
  listWithdrawalsQuery,
  listWithdrawalsResponse,
  onchainWithdrawBody,
  onchainWithdrawResponse,
  pixOutBody,
  pixOutResponse,
} from "./schemas";
import { createPixOut, findWithdrawal, initiateOnchainWithdrawal, listWithdrawals } from "./service";
import { withdrawalView } from "./views";

const initiated = (w: Withdrawal) => ({
  message: "Withdrawal initiated",
  transactionHash: w.txHash!,
  success: true as const,
  ...withdrawalView(w),
});
const pixOutCreated = (w: Withdrawal) => ({
  message: "PIX withdrawal created",
  ...withdrawalView(w),
  amount: w.valueCentavos,
});

export const onchainWithdrawEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/onchain/withdraw/initiate",
  caller: merchantKey,
  scope: "withdrawals",
  errorBody: withdrawBody,
  body: onchainWithdrawBody,
  response: {
    status: 200,
    description: "Withdrawal signed and sent; it is PENDING until confirmed",
    schema: onchainWithdrawResponse,
    example: withdrawExample,
  },
  docs: {
    summary: "Withdraw on-chain",
    description:
      "Sends tokens worth `value` BRL to an external address. Tokens sent = value ÷ rate, rounded down; the debit is value + 0.5% service fee (rounded up to the centavo) + the network fee in BRL. Counts against the account's withdrawal limits.",
    tag: "On-chain",
    requestExample: {
      toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      value: 50,
      token: "USDT",
      network: "polygon",
    },
    errorExamples: {
      400: { message: "Insufficient balance: the withdrawal needs R$ 50,30 and the balance is R$ 12,00" },
    },
  },
  async handle({ merchant, keyId, req, body }) {
    // The service writes the audit row and the owners' mail in the withdrawal's own transaction.
    const actor = apiKeyActor(merchant.id, keyId, clientAddress(req.headers));
    return initiated(
      await initiateOnchainWithdrawal(merchant, body, {
        channel: "api",
        actor: { ...actor, merchantId: merchant.id },
        keyId,
      }),
    );
  },
  replay: async ({ merchant, resource }) => initiated(await findWithdrawal(merchant.id, resource.id)),
});

export const pixOutEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/order/pix-out",
  caller: merchantKey,
  scope: "withdrawals",
  errorBody: pixOutErrorBody,
  body: pixOutBody,
  response: {
    status: 201,
    description: "PIX withdrawal created; it is PENDING until the PIX settles",
    schema: pixOutResponse,
    example: pixOutExample,
  },
  docs: {
    summary: "Withdraw by PIX",
    description:
      "Pays `value` centavos from the balance to a PIX key (the merchant's registered key when omitted). Counts against the account's withdrawal limits.",
    tag: "Withdrawals",
    requestExample: { value: 5000, pixKey: "maria@example.com" },
    errorExamples: {
      400: { message: "Withdrawal limit exceeded: R$ 5.000,00 per transaction for a standard account" },
    },
  },
  async handle({ merchant, keyId, req, body }) {
    const actor = apiKeyActor(merchant.id, keyId, clientAddress(req.headers));
    return pixOutCreated(
      await createPixOut(merchant, body, { channel: "api", actor: { ...actor, merchantId: merchant.id }, keyId }),
    );
  },
  replay: async ({ merchant, resource }) => pixOutCreated(await findWithdrawal(merchant.id, resource.id)),
});

export const listWithdrawalsEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/withdrawals",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listWithdrawalsQuery,
  response: {
    status: 200,
    description: "A page of withdrawals",
    schema: listWithdrawalsResponse,
    example: withdrawalsExample,
  },
  docs: {
    summary: "List withdrawals",
    description: "On-chain and PIX withdrawals, newest first.",
    tag: "Withdrawals",
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  async handle({ merchant, query }) {
    const page = await listWithdrawals(merchant.id, query.limit, query.cursor);
    return { withdrawals: page.withdrawals.map(withdrawalView), nextCursor: page.nextCursor };
  },
});

export const getWithdrawalEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/withdrawals/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The withdrawal", schema: getWithdrawalResponse, example: withdrawalExample },
  docs: {
    summary: "Look up a withdrawal",
    description: "Status (PENDING, COMPLETED, FAILED), fees and, on-chain, the transaction hash.",
    tag: "Withdrawals",
    params: { id: "Withdrawal id" },
    errors: [404],
    errorExamples: { 404: { message: "Withdrawal not found" } },
  },
  async handle({ merchant, params }) {
    return { withdrawal: withdrawalView(await findWithdrawal(merchant.id, params.id)) };
  },
});
