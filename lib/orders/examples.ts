// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const pixExample = {
  "message": "PIX order created successfully",
  "pixOrder": {
    "provider": "sandbox-pix",
    "hash": "357c64f5a24f771a815d5d9d256f35cf",
    "merchant": "c57406aa-c731-408f-9ea5-5d708a78e91a",
    "value": 25.9,
    "status": "PENDING",
    "currency": "BRL",
    "universalUrl": "https://payments.example.com/pay/ydHBTADudWFSggfCB2Wkj5",
    "removedAt": null,
    "_id": "796cfaae-a257-4dff-b6d2-b02a0883eac4",
    "paymentLinkId": "ydHBTADudWFSggfCB2Wkj5",
    "splits": [],
    "createdAt": "2026-11-22T01:01:03.249Z",
    "updatedAt": "2026-11-22T01:01:03.249Z",
    "__v": 0,
    "reference": {
      "orderId": "pedido-1042",
      "name": "Maria Souza",
      "cpf": "52998224725",
    },
    "metadata": {
      "cartId": "c-88231",
    },
  },
  "qrCode":
    "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F",
};

export const exchangeExample = {
  "message": "Order created successfully",
  "order": {
    "id": "70c95615-30c9-4c63-8414-686584753939",
    "paymentLinkId": "b2uGAQlfOblKtBqspPPWbk",
    "value": 150,
    "status": "PENDING",
    "link": "https://payments.example.com/pay/b2uGAQlfOblKtBqspPPWbk",
    "createdAt": "2026-11-22T01:01:03.330Z",
    "expiresAt": "2026-11-22T01:31:03.329Z",
    "qrCodeLink": "https://payments.example.com/api/v1/public/payments/b2uGAQlfOblKtBqspPPWbk/qr.png",
    "reference": {
      "payerId": "cliente-77",
      "subMerchantId": "loja-centro",
    },
    "metadata": {},
    "splits": [],
  },
};

export const lightningExample = {
  "message": "Lightning invoice created successfully",
  "order": {
    "id": "4037a943-5036-4438-bb96-d5bbf3208556",
    "paymentLinkId": "kHdemChSOi0AqLf1ogibBn",
    "value": 35,
    "status": "PENDING",
    "link": "https://payments.example.com/pay/kHdemChSOi0AqLf1ogibBn",
    "createdAt": "2026-11-22T01:01:03.386Z",
    "expiresAt": "2026-11-22T01:16:03.000Z",
    "invoice":
      "lnbc63640n1p4sy0k0pp5j4guc4uzfc7hynlt2hf909yajvynyskqfj67f7mksm4dlw4cggrqsp5r3achfusf2rue7lsrpmw6hp753nu6qngls8hz88ry3cuqczrrd0sdp9f3hk5cfqg4ux2mtsd3hjqtfq2gjzqve49ccrqxqzuycqpj9qrsgq9wvffk8255vv0rx3jphptxtevf6jlwf3yfqv84z0nngrwlh6gr4z3ea7t6plvatmavlrjc4v4zes5l5n7g6dpe99j3psppegy8sntucqeux3j6",
    "satoshis": 6364,
    "reference": {
      "email": "maria@example.com",
      "name": "Maria Souza",
    },
    "metadata": {},
    "splits": [],
  },
};

export const getOrderExample = {
  "message": "Order retrieved successfully",
  "order": {
    "id": "4037a943-5036-4438-bb96-d5bbf3208556",
    "paymentLinkId": "kHdemChSOi0AqLf1ogibBn",
    "type": "lightning",
    "value": 35,
    "status": "PENDING",
    "createdAt": "2026-11-22T01:01:03.386Z",
    "invoice":
      "lnbc63640n1p4sy0k0pp5j4guc4uzfc7hynlt2hf909yajvynyskqfj67f7mksm4dlw4cggrqsp5r3achfusf2rue7lsrpmw6hp753nu6qngls8hz88ry3cuqczrrd0sdp9f3hk5cfqg4ux2mtsd3hjqtfq2gjzqve49ccrqxqzuycqpj9qrsgq9wvffk8255vv0rx3jphptxtevf6jlwf3yfqv84z0nngrwlh6gr4z3ea7t6plvatmavlrjc4v4zes5l5n7g6dpe99j3psppegy8sntucqeux3j6",
    "satoshis": 6364,
    "link": "https://payments.example.com/pay/kHdemChSOi0AqLf1ogibBn",
    "expiresAt": "2026-11-22T01:16:03.000Z",
    "reference": {
      "email": "maria@example.com",
      "name": "Maria Souza",
    },
    "metadata": {},
    "splits": [],
  },
  "providerDetails": {
    "success": true,
    "data": {
      "id": "9551cc57824e3d724feb55d257949d93093242c04cb5e4fb7686eadfbab84206",
      "name": "Maria Souza",
      "status": "unpaid",
      "currency": "BRL",
      "created_at": 1795309263,
      "fee": 0,
      "notes": "",
      "address": "bc1qzyzq7fz9wdp2qrndaf6n4408j9yxz6dcwrtag0",
      "metadata": {
        "source": "sandbox",
      },
      "fiat_value": 35,
      "amount": 6364,
      "description": "Order kHdemChSOi0AqLf1ogibBn",
      "auto_settle": false,
      "transactions": [],
    },
  },
  "refunds": [],
};

export const ordersExample = {
  "orders": [
    {
      "id": "90f82a35-fb13-4e86-9016-a8b3f6110b6f",
      "type": "crypto_pix",
      "paymentLinkId": null,
      "status": "COMPLETED",
      "value": 49.9,
      "createdAt": "2026-11-22T01:01:03.556Z",
      "payCryptoPixId": "OTBmODJhMzUtZmIxMy00ZTg2LTkwMTYtYThiM2Y2MTEwYjZm",
      "metadata": {},
      "splits": [],
    },
    {
      "id": "4037a943-5036-4438-bb96-d5bbf3208556",
      "type": "lightning",
      "paymentLinkId": "kHdemChSOi0AqLf1ogibBn",
      "status": "PENDING",
      "value": 35,
      "createdAt": "2026-11-22T01:01:03.386Z",
      "link": "https://payments.example.com/pay/kHdemChSOi0AqLf1ogibBn",
      "metadata": {},
      "splits": [],
      "reference": {
        "email": "maria@example.com",
        "name": "Maria Souza",
      },
    },
    {
      "id": "70c95615-30c9-4c63-8414-686584753939",
      "type": "exchange",
      "paymentLinkId": "b2uGAQlfOblKtBqspPPWbk",
      "status": "PENDING",
      "value": 150,
      "createdAt": "2026-11-22T01:01:03.330Z",
      "link": "https://payments.example.com/pay/b2uGAQlfOblKtBqspPPWbk",
      "metadata": {},
      "splits": [],
      "reference": {
        "payerId": "cliente-77",
        "subMerchantId": "loja-centro",
      },
    },
  ],
  "nextCursor":
    "eyJhdCI6IjIwMjYtMTEtMjJUMDE6MDE6MDMuMzMwWiIsImlkIjoiNzBjOTU2MTUtMzBjOS00YzYzLTg0MTQtNjg2NTg0NzUzOTM5In0",
};
