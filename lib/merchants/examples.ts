// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const adminCreateExample = {
  "merchant": {
    "id": "aea8e9c4-20a5-42d5-9b4b-3780eb35df0c",
    "companyName": "Padaria Pão Quente",
    "pixKey": "11222333000181",
    "accountType": "verified",
    "balance": 0,
  },
  "apiKey": "sk_test_7OKYl4ipPOPg4mkbkU0UY6zHjLBFmbwMHvp8gRft",
};

export const adminUpdateExample = {
  "merchant": {
    "id": "aea8e9c4-20a5-42d5-9b4b-3780eb35df0c",
    "companyName": "Padaria Pão Quente",
    "pixKey": "11222333000181",
    "accountType": "business",
    "balance": 0,
  },
};
