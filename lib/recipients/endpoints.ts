import type { ApiRequest } from "@/lib/http/request";
import { defineEndpoint } from "@/lib/http/endpoint";
import { clientAddress } from "@/lib/http/client-address";
import { messageBody } from "@/lib/http/error-body";
import { DEFAULT_LOCALE } from "@/lib/i18n";
import { merchantKey } from "@/lib/identity/api-keys/callers";
import { apiKeyActor } from "@/lib/identity/audit";
import {
  recipientExample,
  recipientPayoutExample,
  recipientsExample,
  statementExample,
  updatedRecipientExample,
} from "./examples";
import type { RecipientOrigin } from "./key-hold";
import { findRecipientPayout, requestRecipientPayout } from "./payouts";
import {
  createRecipientBody,
  listRecipientsQuery,
  listRecipientsResponse,
  recipientPayoutBody,
  recipientPayoutResponse,
  recipientResponse,
  statementQuery,
  statementResponse,
  updateRecipientBody,
} from "./schemas";
import {
  createRecipient,
  findRecipient,
  getRecipient,
  listRecipients,
  recipientStatement,
  updateRecipient,
} from "./service";

// Recipients ("recebedores", docs/api.md#recipients): sub-accounts of the merchant with a balance of
// their own on its ledger, a statement, and PIX payouts to their key.

const TAG = "Recipients";
const params = { id: "Recipient id (UUID)" };
const notFound = { 404: { message: "Recipient not found" } };

/** The API key as the actor of a change: audited and named in the owners' mail. */
const apiOrigin = (merchantId: string, keyId: string, req: ApiRequest): RecipientOrigin => ({
  actor: { ...apiKeyActor(merchantId, keyId, clientAddress(req.headers)), merchantId },
  locale: DEFAULT_LOCALE,
});

export const createRecipientEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/recipients",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createRecipientBody,
  response: { status: 201, description: "Recipient created", schema: recipientResponse, example: recipientExample },
  docs: {
    summary: "Create a recipient",
    description:
      "A sub-account of the merchant (a seller, a franchisee, a waiter) that splits of orders credit. It has its own `balance` on the merchant's ledger (never part of GET /api/v1/account), a statement, and PIX payouts to its `pixKey`. " +
      "`document` is a CPF or CNPJ whose check digits must be right; one recipient per document. The key given here is recorded as one of the merchant's withdrawal destinations and may be paid at once; a later change is held (PATCH). " +
      "`payoutSchedule` pays the whole balance automatically on each slot (a São Paulo day: daily, a weekday, or a day of the month), once per slot, never while the key is held or the balance is below `minimumValue`.",
    tag: TAG,
    requestExample: {
      name: "Maria Souza Doces",
      document: "529.982.247-25",
      pixKey: "maria@example.com",
      email: "maria@example.com",
      reference: "seller-1001",
    },
    errors: [400, 409],
    errorExamples: {
      400: {
        message: "Invalid request: document: is not a valid CPF",
      },
      409: { message: "A recipient with this document already exists" },
    },
  },
  handle: async ({ merchant, keyId, req, body }) => ({
    recipient: await createRecipient(merchant.id, body, apiOrigin(merchant.id, keyId, req)),
  }),
  replay: async ({ merchant, resource }) => ({ recipient: await getRecipient(merchant.id, resource.id) }),
});

export const listRecipientsEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/recipients",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listRecipientsQuery,
  response: {
    status: 200,
    description: "A page of recipients",
    schema: listRecipientsResponse,
    example: recipientsExample,
  },
  docs: {
    summary: "List recipients",
    description:
      "Newest first, keyset-paginated like GET /api/v1/orders: pass `nextCursor` back as `cursor`. Filter by `status` or `reference`.",
    tag: TAG,
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  handle: ({ merchant, query }) => listRecipients(merchant.id, query),
});

export const getRecipientEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/recipients/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The recipient", schema: recipientResponse, example: recipientExample },
  docs: {
    summary: "Look up a recipient",
    description: "With its balance and whether its payout key is held (`pixKeyUsableAt`).",
    tag: TAG,
    params,
    errors: [404],
    errorExamples: notFound,
  },
  handle: async ({ merchant, params }) => ({ recipient: await getRecipient(merchant.id, params.id) }),
});

export const updateRecipientEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/api/v1/recipients/{id}",
  caller: merchantKey,
  scope: "withdrawals",
  errorBody: messageBody,
  body: updateRecipientBody,
  response: {
    status: 200,
    description: "The recipient as edited",
    schema: recipientResponse,
    example: updatedRecipientExample,
  },
  docs: {
    summary: "Edit a recipient",
    description:
      "Only the fields sent change; `null` clears `email` or `reference`. A new `pixKey` is a new withdrawal destination of the merchant's: held for DESTINATION_HOLD_HOURS (default 24) and announced to the owners by e-mail with a link that confirms it; payouts are refused until then (`pixKeyUsableAt`). " +
      "`status: DISABLED` stops its payouts; its balance and statement remain. `payoutSchedule` sets automatic payouts (its first slot is the first São Paulo day to begin after the change) or, with null, stops them. The document cannot change: create another recipient.",
    tag: TAG,
    params,
    requestExample: {
      pixKey: "529.982.247-25",
      name: "Maria Souza Doces",
      payoutSchedule: { interval: "weekly", weekday: "friday", minimumValue: 50 },
    },
    errors: [400, 404],
    errorExamples: {
      400: {
        message:
          "Invalid request: pixKey: must be a PIX key: a CPF, CNPJ, e-mail, phone (+55 and area code) or random (EVP) key",
      },
      ...notFound,
    },
  },
  handle: async ({ merchant, keyId, req, params, body }) => ({
    recipient: await updateRecipient(merchant.id, params.id, body, apiOrigin(merchant.id, keyId, req)),
  }),
});

export const recipientStatementEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/recipients/{id}/statement",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: statementQuery,
  response: {
    status: 200,
    description: "A page of the recipient's ledger entries",
    schema: statementResponse,
    example: statementExample,
  },
  docs: {
    summary: "A recipient's statement",
    description:
      "Its ledger entries newest first (split credits, refund take-backs, payouts and their reversals), each with the balance after it; `balance` is the sum of all of them. Keyset-paginated: pass `nextCursor` back as `cursor`.",
    tag: TAG,
    params,
    errors: [400, 404],
    errorExamples: { 400: { message: "Invalid cursor" }, ...notFound },
  },
  handle: ({ merchant, params, query }) => recipientStatement(merchant.id, params.id, query),
});

export const recipientPayoutEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/recipients/{id}/payouts",
  caller: merchantKey,
  scope: "withdrawals",
  errorBody: messageBody,
  body: recipientPayoutBody,
  response: {
    status: 201,
    description: "Payout created; it is PENDING until the PIX settles",
    schema: recipientPayoutResponse,
    example: recipientPayoutExample,
  },
  docs: {
    summary: "Pay a recipient out",
    description:
      "A PIX of `value` BRL (default: the whole balance) from the recipient's balance to its `pixKey`, debited from its statement at once. " +
      "The event `recipient.payout.status_changed` tells COMPLETED or FAILED; a FAILED payout (the provider says the PIX was not made) is credited back to the recipient. " +
      "Refused while the key is held, when the recipient is DISABLED, or when its balance does not cover `value`. The merchant's own withdrawal limits do not apply: this is not the merchant's balance.",
    tag: TAG,
    params,
    requestExample: { value: 20 },
    errors: [400, 404],
    errorExamples: {
      400: {
        message: "Insufficient recipient balance: the payout needs R$ 20,00 and the recipient's balance is R$ 5,00",
      },
      ...notFound,
    },
  },
  handle: async ({ merchant, keyId, req, params, body }) => ({
    payout: await requestRecipientPayout(merchant.id, params.id, body, apiOrigin(merchant.id, keyId, req)),
  }),
  replay: async ({ merchant, resource }) => ({ payout: await findRecipientPayout(merchant.id, resource.id) }),
});

export const getRecipientPayoutEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/recipients/{id}/payouts/{payoutId}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The payout as it stands",
    schema: recipientPayoutResponse,
    example: recipientPayoutExample,
  },
  docs: {
    summary: "Look up a recipient's payout",
    description:
      "One payout of the recipient, asked for or automatic (`scheduleSlot`), with its state: PENDING until the provider decides, then COMPLETED or FAILED (with `failureReason`, credited back). " +
      "Another merchant's payout, another recipient's, or an unknown id is a 404.",
    tag: TAG,
    params: { id: "Recipient id (UUID)", payoutId: "Payout id (UUID), as POST /recipients/{id}/payouts answered" },
    errors: [404],
    errorExamples: { 404: { message: "Recipient payout not found" } },
  },
  handle: async ({ merchant, params }) => {
    const recipient = await findRecipient(merchant.id, params.id);
    return { payout: await findRecipientPayout(merchant.id, params.payoutId, recipient.id) };
  },
});

export const RECIPIENT_ENDPOINTS = [
  createRecipientEndpoint,
  listRecipientsEndpoint,
  getRecipientEndpoint,
  updateRecipientEndpoint,
  recipientStatementEndpoint,
  recipientPayoutEndpoint,
  getRecipientPayoutEndpoint,
];
