// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const publicPaymentExample = {
  "payment": {
    "paymentLinkId": "ydHBTADudWFSggfCB2Wkj5",
    "merchantName": "Loja Exemplo",
    "method": "pix",
    "status": "PENDING",
    "value": 25.9,
    "currency": "BRL",
    "createdAt": "2026-11-22T01:01:03.249Z",
    "expiresAt": null,
    "paidAt": null,
    "link": "https://payments.example.com/pay/ydHBTADudWFSggfCB2Wkj5",
    "payment": {
      "brcode":
        "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F",
      "qrContent":
        "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F",
      "recipientName": "PIXCRYPTO PAGAMENTOS",
    },
    "description": "Bolo de cenoura",
  },
};

export const publicCryptoPixExample = {
  "payment": {
    "payCryptoPixId": "ZjNkOTU2YjYtNGI1Ny00NmQ1LWE4ZWMtOGU2YTM1NmY0YjJi",
    "merchantName": "Loja Exemplo",
    "status": "PARTIAL_ORDER",
    "value": 54,
    "currency": "BRL",
    "recipientName": "PADARIA PAO QUENTE",
    "recipientCity": "SAO PAULO",
    "pixKey": "pa***@example.com",
    "createdAt": "2026-11-22T01:01:03.249Z",
    "expiresAt": "2026-11-22T02:01:03.249Z",
    "paidAt": null,
    "link": "https://payments.example.com/pay/crypto-pix/ZjNkOTU2YjYtNGI1Ny00NmQ1LWE4ZWMtOGU2YTM1NmY0YjJi",
    "payment": {
      "network": "bsc",
      "asset": "USDT",
      "address": "0x8C6d4a1f0b5E9f8E1B3D2c4A6f7e8D9c0B1a2F3e",
      "tokenAddress": "0x55d398326f99059fF775485246999027B3197955",
      "amount": 10,
      "received": 4,
      "remaining": 6,
      "qrContent":
        "ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x8C6d4a1f0b5E9f8E1B3D2c4A6f7e8D9c0B1a2F3e&uint256=6000000000000000000",
    },
  },
};
