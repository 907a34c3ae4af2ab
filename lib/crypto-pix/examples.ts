// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

/** A static BR Code with an amount, as a payer's bank app would show it. */
export const QRCODE_EXAMPLE =
  "00020126390014br.gov.bcb.pix0117maria@example.com520400005303986540549.905802BR5911Maria Souza6009SAO PAULO62140510PEDIDO104263049D41";

export const cryptoPixExample = {
  "data": {
    "pixKey": "maria@example.com",
    "payCryptoPixId": "OTBmODJhMzUtZmIxMy00ZTg2LTkwMTYtYThiM2Y2MTEwYjZm",
    "value": 49.9,
    "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "network": "bsc",
    "asset": "USDT",
    "tokenAddress": "0x55d398326f99059fF775485246999027B3197955",
    "cryptoValue": 9.240741,
    "rate": 5.4,
    "recipientName": "Maria Souza",
    "status": "PENDING",
    "expiresAt": "2026-11-22T02:01:03.629Z",
    "metadata": {},
  },
};

export const cryptoPixGetExample = {
  "payCryptoPixId": "OTBmODJhMzUtZmIxMy00ZTg2LTkwMTYtYThiM2Y2MTEwYjZm",
  "value": 49.9,
  "cryptoValue": 9.240741,
  "updatedAt": "2026-11-22T01:01:03.556Z",
  "status": "PENDING",
  "network": "bsc",
  "asset": "USDT",
  "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "receivedValue": 0,
  "originalCryptoValue": 9.240741,
  "partialUpdatedAt": null,
  "partialBrlValue": null,
  "isPartial": false,
  "remaining": 9.240741,
  "hash": "",
  "btcQuote": 0,
  "pixKey": "maria@example.com",
  "recipientName": "Maria Souza",
  "expiresAt": "2026-11-22T02:01:03.629Z",
  "createdAt": "2026-11-22T01:01:03.556Z",
  "metadata": {},
};
