// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const depositTransferExample = {
  "order": {
    "id": "25d34d8b-28dc-47b7-9761-c9185b682f27",
    "network": "polygon",
    "value": 100.5,
    "cryptoValue": 18.611112,
    "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "asset": "USDT",
    "status": "PARTIAL_ORDER",
    "metadata": {
      "orderId": "25d34d8b-28dc-47b7-9761-c9185b682f27",
      "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
      "network": "polygon",
      "walletIndex": 0,
    },
    "splits": [],
    "paymentLinkId": "T9wc4F2xFntQP1925w0yJD",
    "createdAt": "2026-11-22T01:01:02.914Z",
    "receivedValue": 10,
    "remaining": 8.611112,
    "unappliedValue": 0,
    "creditedValue": 0,
    "rate": 5.4,
    "link": "https://payments.example.com/pay/T9wc4F2xFntQP1925w0yJD",
    "expiresAt": "2026-11-23T01:01:03.000Z",
    "final": false,
  },
  "transfer": {
    "txHash": "0xd06b5a357519eff68702af4207e9b574b9ad769ad99d601355e0a165d8939851",
    "amount": 10,
    "applied": 10,
    "unapplied": 0,
    "duplicate": false,
  },
};

export const cryptoPixTransferExample = {
  "payment": {
    "payCryptoPixId": "OTBmODJhMzUtZmIxMy00ZTg2LTkwMTYtYThiM2Y2MTEwYjZm",
    "value": 49.9,
    "cryptoValue": 9.240741,
    "updatedAt": "2026-11-22T01:01:03.733Z",
    "status": "COMPLETED",
    "network": "bsc",
    "asset": "USDT",
    "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "receivedValue": 9.240741,
    "originalCryptoValue": 9.240741,
    "partialUpdatedAt": null,
    "partialBrlValue": null,
    "isPartial": false,
    "remaining": 0,
    "hash": "0xab95ed3b7999c4a1443ce54b56846d83935ec881c673a4a30ad7b42df427fe67",
    "btcQuote": 0,
    "pixKey": "maria@example.com",
    "recipientName": "Maria Souza",
    "expiresAt": "2026-11-22T02:01:03.629Z",
    "createdAt": "2026-11-22T01:01:03.556Z",
    "metadata": {},
  },
  "transfer": {
    "txHash": "0xab95ed3b7999c4a1443ce54b56846d83935ec881c673a4a30ad7b42df427fe67",
    "amount": 9.240741,
    "duplicate": false,
  },
};

export const sandboxPayExample = {
  "order": {
    "id": "796cfaae-a257-4dff-b6d2-b02a0883eac4",
    "paymentLinkId": "ydHBTADudWFSggfCB2Wkj5",
    "type": "pix",
    "value": 25.9,
    "status": "COMPLETED",
    "createdAt": "2026-11-22T01:01:03.249Z",
    "brcode":
      "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F",
    "link": "https://payments.example.com/pay/ydHBTADudWFSggfCB2Wkj5",
    "paidAt": "2026-11-22T01:01:03.827Z",
    "reference": {
      "orderId": "pedido-1042",
      "name": "Maria Souza",
      "cpf": "52998224725",
    },
    "metadata": {
      "cartId": "c-88231",
    },
    "splits": [],
  },
};
