// Examples for the OpenAPI document: responses recorded from the sandbox for the request examples
// below, with the base URL replaced. tests/openapi.test.ts checks each against its schema and sends
// each request example through the real handler.

export const QRCODE_EXAMPLE = "00020126390014br.gov.bcb.pix0117maria@example.com520400005303986540549.905802BR5911Maria Souza6009SAO PAULO62140510PEDIDO104263049D41";

export const RESPONSE_EXAMPLES = {
  "deposit": {
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
      "expiresAt": "2026-11-23T01:01:03.000Z"
    }
  },
  "depositGet": {
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
        "walletIndex": 0
      },
      "paymentLinkId": "T9wc4F2xFntQP1925w0yJD",
      "createdAt": "2026-11-22T01:01:02.914Z",
      "receivedValue": 0,
      "remaining": 18.611112,
      "unappliedValue": 0,
      "creditedValue": 0,
      "rate": 5.4,
      "link": "https://payments.example.com/pay/T9wc4F2xFntQP1925w0yJD",
      "expiresAt": "2026-11-23T01:01:03.000Z",
      "final": false
    }
  },
  "depositTransfer": {
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
        "walletIndex": 0
      },
      "paymentLinkId": "T9wc4F2xFntQP1925w0yJD",
      "createdAt": "2026-11-22T01:01:02.914Z",
      "receivedValue": 10,
      "remaining": 8.611112,
      "unappliedValue": 0,
      "creditedValue": 0,
      "rate": 5.4,
      "link": "https://payments.example.com/pay/T9wc4F2xFntQP1925w0yJD",
      "expiresAt": "2026-11-23T01:01:03.000Z",
      "final": false
    },
    "transfer": {
      "txHash": "0xd06b5a357519eff68702af4207e9b574b9ad769ad99d601355e0a165d8939851",
      "amount": 10,
      "applied": 10,
      "unapplied": 0,
      "duplicate": false
    }
  },
  "withdraw": {
    "message": "Withdrawal initiated",
    "transactionHash": "0x97e31bcb0b57bf2156deef52d062c024265be3a34c908f81168d663d86f6349c",
    "success": true,
    "id": "97ac3816-6f74-4cb5-8a68-b2c5f4ad153a",
    "type": "onchain",
    "status": "PENDING",
    "value": 50,
    "amount": 5000,
    "fees": {
      "service": 0.25,
      "network": 0.05
    },
    "totalDebited": 50.3,
    "network": "polygon",
    "token": "USDT",
    "toAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "tokenAmount": 9.259259,
    "createdAt": "2026-11-22T01:01:03.139Z",
    "updatedAt": "2026-11-22T01:01:03.139Z"
  },
  "pix": {
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
      "__v": 0
    },
    "qrCode": "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F"
  },
  "exchange": {
    "message": "Order created successfully",
    "order": {
      "id": "70c95615-30c9-4c63-8414-686584753939",
      "paymentLinkId": "b2uGAQlfOblKtBqspPPWbk",
      "value": 150,
      "status": "PENDING",
      "link": "https://payments.example.com/pay/b2uGAQlfOblKtBqspPPWbk",
      "createdAt": "2026-11-22T01:01:03.330Z",
      "expiresAt": "2026-11-22T01:31:03.329Z",
      "qrCodeLink": "https://payments.example.com/api/v1/public/payments/b2uGAQlfOblKtBqspPPWbk/qr.png"
    }
  },
  "lightning": {
    "message": "Lightning invoice created successfully",
    "order": {
      "id": "4037a943-5036-4438-bb96-d5bbf3208556",
      "paymentLinkId": "kHdemChSOi0AqLf1ogibBn",
      "value": 35,
      "status": "PENDING",
      "link": "https://payments.example.com/pay/kHdemChSOi0AqLf1ogibBn",
      "createdAt": "2026-11-22T01:01:03.386Z",
      "expiresAt": "2026-11-22T01:16:03.000Z",
      "invoice": "lnbc63640n1p4sy0k0pp5j4guc4uzfc7hynlt2hf909yajvynyskqfj67f7mksm4dlw4cggrqsp5r3achfusf2rue7lsrpmw6hp753nu6qngls8hz88ry3cuqczrrd0sdp9f3hk5cfqg4ux2mtsd3hjqtfq2gjzqve49ccrqxqzuycqpj9qrsgq9wvffk8255vv0rx3jphptxtevf6jlwf3yfqv84z0nngrwlh6gr4z3ea7t6plvatmavlrjc4v4zes5l5n7g6dpe99j3psppegy8sntucqeux3j6",
      "satoshis": 6364
    }
  },
  "pixOut": {
    "message": "PIX withdrawal created",
    "id": "3d4253a3-aafe-43af-ae4f-1731a7ee8155",
    "type": "pix_out",
    "status": "PENDING",
    "value": 50,
    "amount": 5000,
    "fees": {
      "service": 0,
      "network": 0
    },
    "totalDebited": 50,
    "pixKey": "m***@example.com",
    "createdAt": "2026-11-22T01:01:03.407Z",
    "updatedAt": "2026-11-22T01:01:03.407Z"
  },
  "getOrder": {
    "message": "Order retrieved successfully",
    "order": {
      "id": "4037a943-5036-4438-bb96-d5bbf3208556",
      "paymentLinkId": "kHdemChSOi0AqLf1ogibBn",
      "type": "lightning",
      "value": 35,
      "status": "PENDING",
      "createdAt": "2026-11-22T01:01:03.386Z",
      "invoice": "lnbc63640n1p4sy0k0pp5j4guc4uzfc7hynlt2hf909yajvynyskqfj67f7mksm4dlw4cggrqsp5r3achfusf2rue7lsrpmw6hp753nu6qngls8hz88ry3cuqczrrd0sdp9f3hk5cfqg4ux2mtsd3hjqtfq2gjzqve49ccrqxqzuycqpj9qrsgq9wvffk8255vv0rx3jphptxtevf6jlwf3yfqv84z0nngrwlh6gr4z3ea7t6plvatmavlrjc4v4zes5l5n7g6dpe99j3psppegy8sntucqeux3j6",
      "satoshis": 6364,
      "link": "https://payments.example.com/pay/kHdemChSOi0AqLf1ogibBn",
      "expiresAt": "2026-11-22T01:16:03.000Z"
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
          "source": "sandbox"
        },
        "fiat_value": 35,
        "amount": 6364,
        "description": "Order kHdemChSOi0AqLf1ogibBn",
        "auto_settle": false,
        "transactions": []
      }
    }
  },
  "cryptoPix": {
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
      "expiresAt": "2026-11-22T02:01:03.629Z"
    }
  },
  "cryptoPixGet": {
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
    "createdAt": "2026-11-22T01:01:03.556Z"
  },
  "cryptoPixTransfer": {
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
      "createdAt": "2026-11-22T01:01:03.556Z"
    },
    "transfer": {
      "txHash": "0xab95ed3b7999c4a1443ce54b56846d83935ec881c673a4a30ad7b42df427fe67",
      "amount": 9.240741,
      "duplicate": false
    }
  },
  "sandboxPay": {
    "order": {
      "id": "796cfaae-a257-4dff-b6d2-b02a0883eac4",
      "paymentLinkId": "ydHBTADudWFSggfCB2Wkj5",
      "type": "pix",
      "value": 25.9,
      "status": "COMPLETED",
      "createdAt": "2026-11-22T01:01:03.249Z",
      "brcode": "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F",
      "link": "https://payments.example.com/pay/ydHBTADudWFSggfCB2Wkj5",
      "paidAt": "2026-11-22T01:01:03.827Z"
    }
  },
  "orders": {
    "orders": [
      {
        "id": "90f82a35-fb13-4e86-9016-a8b3f6110b6f",
        "type": "crypto_pix",
        "paymentLinkId": null,
        "status": "COMPLETED",
        "value": 49.9,
        "createdAt": "2026-11-22T01:01:03.556Z",
        "payCryptoPixId": "OTBmODJhMzUtZmIxMy00ZTg2LTkwMTYtYThiM2Y2MTEwYjZm"
      },
      {
        "id": "4037a943-5036-4438-bb96-d5bbf3208556",
        "type": "lightning",
        "paymentLinkId": "kHdemChSOi0AqLf1ogibBn",
        "status": "PENDING",
        "value": 35,
        "createdAt": "2026-11-22T01:01:03.386Z",
        "link": "https://payments.example.com/pay/kHdemChSOi0AqLf1ogibBn"
      },
      {
        "id": "70c95615-30c9-4c63-8414-686584753939",
        "type": "exchange",
        "paymentLinkId": "b2uGAQlfOblKtBqspPPWbk",
        "status": "PENDING",
        "value": 150,
        "createdAt": "2026-11-22T01:01:03.330Z",
        "link": "https://payments.example.com/pay/b2uGAQlfOblKtBqspPPWbk"
      }
    ],
    "nextCursor": "eyJhdCI6IjIwMjYtMTEtMjJUMDE6MDE6MDMuMzMwWiIsImlkIjoiNzBjOTU2MTUtMzBjOS00YzYzLTg0MTQtNjg2NTg0NzUzOTM5In0"
  },
  "account": {
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
        "remainingToday": 9900
      }
    }
  },
  "withdrawals": {
    "withdrawals": [
      {
        "id": "3d4253a3-aafe-43af-ae4f-1731a7ee8155",
        "type": "pix_out",
        "status": "PENDING",
        "value": 50,
        "amount": 5000,
        "fees": {
          "service": 0,
          "network": 0
        },
        "totalDebited": 50,
        "pixKey": "m***@example.com",
        "createdAt": "2026-11-22T01:01:03.407Z",
        "updatedAt": "2026-11-22T01:01:03.407Z"
      },
      {
        "id": "97ac3816-6f74-4cb5-8a68-b2c5f4ad153a",
        "type": "onchain",
        "status": "PENDING",
        "value": 50,
        "amount": 5000,
        "fees": {
          "service": 0.25,
          "network": 0.05
        },
        "totalDebited": 50.3,
        "network": "polygon",
        "token": "USDT",
        "toAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "tokenAmount": 9.259259,
        "transactionHash": "0x97e31bcb0b57bf2156deef52d062c024265be3a34c908f81168d663d86f6349c",
        "createdAt": "2026-11-22T01:01:03.139Z",
        "updatedAt": "2026-11-22T01:01:03.139Z"
      }
    ],
    "nextCursor": null
  },
  "withdrawal": {
    "withdrawal": {
      "id": "97ac3816-6f74-4cb5-8a68-b2c5f4ad153a",
      "type": "onchain",
      "status": "PENDING",
      "value": 50,
      "amount": 5000,
      "fees": {
        "service": 0.25,
        "network": 0.05
      },
      "totalDebited": 50.3,
      "network": "polygon",
      "token": "USDT",
      "toAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      "tokenAmount": 9.259259,
      "transactionHash": "0x97e31bcb0b57bf2156deef52d062c024265be3a34c908f81168d663d86f6349c",
      "createdAt": "2026-11-22T01:01:03.139Z",
      "updatedAt": "2026-11-22T01:01:03.139Z"
    }
  },
  "publicPayment": {
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
        "brcode": "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F",
        "qrContent": "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986540525.905802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO62290525LRzaMUkORYEc3Rt8G52qsufCb6304896F"
      }
    }
  },
  "adminCreate": {
    "merchant": {
      "id": "aea8e9c4-20a5-42d5-9b4b-3780eb35df0c",
      "companyName": "Padaria Pão Quente",
      "pixKey": "11222333000181",
      "accountType": "verified",
      "balance": 0
    },
    "apiKey": "sk_test_7OKYl4ipPOPg4mkbkU0UY6zHjLBFmbwMHvp8gRft"
  },
  "adminUpdate": {
    "merchant": {
      "id": "aea8e9c4-20a5-42d5-9b4b-3780eb35df0c",
      "companyName": "Padaria Pão Quente",
      "pixKey": "11222333000181",
      "accountType": "business",
      "balance": 0
    }
  }
};
