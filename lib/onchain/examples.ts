// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const depositExample = {
  "order": {
    "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "paymentLinkId": "T9wc4F2xFntQP1925w0yJD",
    "network": "polygon",
    "asset": "USDT",
    "amount": 18.611112,
    "id": "25d34d8b-28dc-47b7-9761-c9185b682f27",
    "value": 100.5,
    "status": "PENDING",
    "rate": 5.4,
    "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
    "link": "https://payments.example.com/pay/T9wc4F2xFntQP1925w0yJD",
    "expiresAt": "2026-11-23T01:01:03.000Z",
    "metadata": {
      "orderId": "25d34d8b-28dc-47b7-9761-c9185b682f27",
      "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
      "network": "polygon",
      "walletIndex": 0,
    },
    "splits": [],
  },
};

export const depositGetExample = {
  "order": {
    "id": "25d34d8b-28dc-47b7-9761-c9185b682f27",
    "network": "polygon",
    "value": 100.5,
    "cryptoValue": 18.611112,
    "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "asset": "USDT",
    "status": "PENDING",
    "metadata": {
      "orderId": "25d34d8b-28dc-47b7-9761-c9185b682f27",
      "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
      "network": "polygon",
      "walletIndex": 0,
    },
    "splits": [],
    "paymentLinkId": "T9wc4F2xFntQP1925w0yJD",
    "createdAt": "2026-11-22T01:01:02.914Z",
    "receivedValue": 0,
    "remaining": 18.611112,
    "unappliedValue": 0,
    "creditedValue": 0,
    "rate": 5.4,
    "link": "https://payments.example.com/pay/T9wc4F2xFntQP1925w0yJD",
    "expiresAt": "2026-11-23T01:01:03.000Z",
    "final": false,
  },
};
