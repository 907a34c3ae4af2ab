// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const accountExample = {
  "merchant": {
    "companyName": "Loja Exemplo",
    "pixKey": "52998224725",
    "balance": 49992560,
    "heldBalance": 15000,
    "holds": [
      {
        "infractionId": "4b9e7f7c-2f3a-4d55-9a37-0c4f6e1d2b10",
        "orderId": "a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "value": 150,
        "deadline": "2026-12-09T15:00:00.000Z",
      },
    ],
    "id": "c57406aa-c731-408f-9ea5-5d708a78e91a",
    "accountType": "standard",
    "withdrawalLimits": {
      "perTransaction": 5000,
      "daily": 10000,
      "usedToday": 100,
      "remainingToday": 9900,
    },
  },
};

export const accountSettingsExample = { "settings": { "receiptShowsSplits": true } };
