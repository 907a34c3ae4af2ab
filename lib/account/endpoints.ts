import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { centavosToBrl } from "@/lib/money";
import { heldFunds } from "@/lib/med/holds";
import { balanceAndLimits } from "@/lib/withdrawals/limits";
import { clientAddress } from "@/lib/http/client-address";
import { apiKeyActor } from "@/lib/identity/audit";
import { merchantSettings, updateMerchantSettings } from "@/lib/merchants/service";
import { accountExample, accountSettingsExample } from "./examples";
import { accountResponse, accountSettingsResponse, updateAccountSettingsBody } from "./schemas";

/** GET /api/v1/account: balance in centavos (docs/api.md#endpoints), plus account type and what is left to withdraw. */
export const getAccountEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/account",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The account", schema: accountResponse, example: accountExample },
  docs: {
    summary: "The merchant account",
    description:
      "Balance in centavos, what is held out of it for open MED infractions (with each one's deadline), account type and what is left of today's withdrawal limit.",
    tag: "Account",
  },
  async handle({ merchant }) {
    const [{ balanceCentavos, limits }, held] = await Promise.all([balanceAndLimits(merchant), heldFunds(merchant.id)]);
    return {
      merchant: {
        companyName: merchant.companyName,
        pixKey: merchant.pixKey ?? "",
        balance: balanceCentavos,
        heldBalance: held.reduce((a, h) => a + h.valueCentavos, 0),
        holds: held.map((h) => ({
          infractionId: h.infractionId,
          orderId: h.orderId,
          value: centavosToBrl(h.valueCentavos),
          deadline: h.deadline.toISOString(),
        })),
        id: merchant.id,
        accountType: merchant.accountType,
        withdrawalLimits: {
          perTransaction: centavosToBrl(limits.perTransaction),
          daily: centavosToBrl(limits.daily),
          usedToday: centavosToBrl(limits.usedToday),
          remainingToday: centavosToBrl(limits.remainingToday),
        },
      },
    };
  },
});

/** GET /api/v1/account/settings (docs/api.md#account-settings): the merchant's own settings. */
export const getAccountSettingsEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/account/settings",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The settings",
    schema: accountSettingsResponse,
    example: accountSettingsExample,
  },
  docs: {
    summary: "The merchant's settings",
    description:
      "`receiptShowsSplits`: whether the payer's receipt names a split order's recipients and their parts (the dashboard's Settings → Payer's receipt).",
    tag: "Account",
  },
  handle: async ({ merchant }) => ({ settings: await merchantSettings(merchant.id) }),
});

/** PATCH /api/v1/account/settings: only the fields sent change; a change is audited, naming the key. */
export const updateAccountSettingsEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/api/v1/account/settings",
  caller: merchantKey,
  // What the payer's pages show of a sale: the scope that makes sales.
  scope: "payments",
  errorBody: messageBody,
  body: updateAccountSettingsBody,
  response: {
    status: 200,
    description: "The settings as changed",
    schema: accountSettingsResponse,
    example: accountSettingsExample,
  },
  docs: {
    summary: "Change the merchant's settings",
    description:
      "Only the fields sent change; sending the value a setting already has changes nothing. Each change is written to the audit trail (the dashboard's Security page), naming the API key.",
    tag: "Account",
    requestExample: { receiptShowsSplits: true },
    errors: [400],
    errorExamples: {
      400: { message: "Invalid request: receiptShowsSplits: Invalid input: expected boolean, received string" },
    },
  },
  handle: async ({ merchant, keyId, req, body }) => ({
    settings: await updateMerchantSettings(
      { ...apiKeyActor(merchant.id, keyId, clientAddress(req.headers)), merchantId: merchant.id },
      body,
    ),
  }),
});
