// Examples for the OpenAPI document: an answer recorded from the sandbox for the request example of
// ./endpoints.ts. tests/openapi.test.ts checks it against its schema.

export const refundExample = {
  "refund": {
    "id": "3f0c2a8e-6b1d-4f7a-9c2e-8d4b5a6e7f10",
    "orderId": "796cfaae-a257-4dff-b6d2-b02a0883eac4",
    "value": 5,
    "status": "COMPLETED",
    "createdAt": "2026-11-22T01:05:41.118Z",
    "metadata": {},
  },
};
