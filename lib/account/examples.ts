// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const accountExample = {
  "merchant": {
    "companyName": "Loja Exemplo",
    "pixKey": "52998224725",
    "balance": 49992560,
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
