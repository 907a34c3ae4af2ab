// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

export const withdrawExample = {
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
    "network": 0.05,
  },
  "totalDebited": 50.3,
  "network": "polygon",
  "token": "USDT",
  "toAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  "tokenAmount": 9.259259,
  "createdAt": "2026-11-22T01:01:03.139Z",
  "updatedAt": "2026-11-22T01:01:03.139Z",
  "metadata": {},
};

export const pixOutExample = {
  "message": "PIX withdrawal created",
  "id": "3d4253a3-aafe-43af-ae4f-1731a7ee8155",
  "type": "pix_out",
  "status": "PENDING",
  "value": 50,
  "amount": 5000,
  "fees": {
    "service": 0,
    "network": 0,
  },
  "totalDebited": 50,
  "pixKey": "m***@example.com",
  "createdAt": "2026-11-22T01:01:03.407Z",
  "updatedAt": "2026-11-22T01:01:03.407Z",
  "metadata": {},
};

export const withdrawalsExample = {
  "withdrawals": [
    {
      "id": "3d4253a3-aafe-43af-ae4f-1731a7ee8155",
      "type": "pix_out",
      "status": "PENDING",
      "value": 50,
      "amount": 5000,
      "fees": {
        "service": 0,
        "network": 0,
      },
      "totalDebited": 50,
      "pixKey": "m***@example.com",
      "createdAt": "2026-11-22T01:01:03.407Z",
      "updatedAt": "2026-11-22T01:01:03.407Z",
      "metadata": {},
    },
    {
      "id": "97ac3816-6f74-4cb5-8a68-b2c5f4ad153a",
      "type": "onchain",
      "status": "PENDING",
      "value": 50,
      "amount": 5000,
      "fees": {
        "service": 0.25,
        "network": 0.05,
      },
      "totalDebited": 50.3,
      "network": "polygon",
      "token": "USDT",
      "toAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      "tokenAmount": 9.259259,
      "transactionHash": "0x97e31bcb0b57bf2156deef52d062c024265be3a34c908f81168d663d86f6349c",
      "createdAt": "2026-11-22T01:01:03.139Z",
      "updatedAt": "2026-11-22T01:01:03.139Z",
      "metadata": {},
    },
  ],
  "nextCursor": null,
};

export const withdrawalExample = {
  "withdrawal": {
    "id": "97ac3816-6f74-4cb5-8a68-b2c5f4ad153a",
    "type": "onchain",
    "status": "PENDING",
    "value": 50,
    "amount": 5000,
    "fees": {
      "service": 0.25,
      "network": 0.05,
    },
    "totalDebited": 50.3,
    "network": "polygon",
    "token": "USDT",
    "toAddress": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "tokenAmount": 9.259259,
    "transactionHash": "0x97e31bcb0b57bf2156deef52d062c024265be3a34c908f81168d663d86f6349c",
    "createdAt": "2026-11-22T01:01:03.139Z",
    "updatedAt": "2026-11-22T01:01:03.139Z",
    "metadata": {},
  },
};
