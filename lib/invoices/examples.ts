// Examples for the OpenAPI document: answers recorded from the sandbox for the request examples of
// ./endpoints.ts and lib/sandbox/endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks
// each against its schema.

export const invoiceExample = {
  "invoice": {
    "id": "1f459fa6-bba6-4e07-a49d-b3d67050edd7",
    "status": "OPEN",
    "reference": "contrato-2291/12",
    "description": "Mensalidade de dezembro",
    "payer": {
      "name": "Maria Souza",
      "cpf": "52998224725",
      "email": "maria@example.com",
    },
    "value": 150,
    "dueDate": "2026-12-31",
    "daysAfterDue": 30,
    "effectiveDueDate": "2026-12-31",
    "lastPayableDay": "2027-02-01",
    "expiresAt": "2027-02-02T02:59:59.999Z",
    "fine": {
      "modalidade": 2,
      "percent": 2,
    },
    "interest": {
      "modalidade": 3,
      "percent": 1,
    },
    "abatement": null,
    "discount": {
      "modalidade": 1,
      "dates": [
        {
          "date": "2026-12-26",
          "value": 10,
        },
      ],
    },
    "amountDue": {
      "day": "2026-12-01",
      "value": 140,
      "original": 150,
      "fine": 0,
      "interest": 0,
      "abatement": 0,
      "discount": 10,
      "late": false,
    },
    "brcode":
      "00020126850014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d369060223Mensalidade de dezembro5204000053039865406140.005802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO622905251xYW79EcnzpkH1CI76rLsV9Hz6304E40D",
    "link": "https://payments.example.com/pay/1xYW7972RsUAd90ee5kHmP",
    "order": {
      "id": "0b0448ab-e23f-4d34-9d10-72341b39df5f",
      "paymentLinkId": "1xYW7972RsUAd90ee5kHmP",
      "status": "PENDING",
    },
    "payment": null,
    "batchId": null,
    "problem": null,
    "notifyPayer": false,
    "mailedAt": null,
    "createdAt": "2026-12-01T22:14:19.563Z",
    "closedAt": null,
    "metadata": {},
  },
};

export const invoicesExample = {
  "invoices": [
    {
      "id": "1f459fa6-bba6-4e07-a49d-b3d67050edd7",
      "status": "OPEN",
      "reference": "contrato-2291/12",
      "description": "Mensalidade de dezembro",
      "payer": {
        "name": "Maria Souza",
        "cpf": "52998224725",
        "email": "maria@example.com",
      },
      "value": 150,
      "dueDate": "2026-12-31",
      "daysAfterDue": 30,
      "effectiveDueDate": "2026-12-31",
      "lastPayableDay": "2027-02-01",
      "expiresAt": "2027-02-02T02:59:59.999Z",
      "fine": {
        "modalidade": 2,
        "percent": 2,
      },
      "interest": {
        "modalidade": 3,
        "percent": 1,
      },
      "abatement": null,
      "discount": {
        "modalidade": 1,
        "dates": [
          {
            "date": "2026-12-26",
            "value": 10,
          },
        ],
      },
      "amountDue": {
        "day": "2026-12-01",
        "value": 140,
        "original": 150,
        "fine": 0,
        "interest": 0,
        "abatement": 0,
        "discount": 10,
        "late": false,
      },
      "brcode":
        "00020126850014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d369060223Mensalidade de dezembro5204000053039865406140.005802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO622905251xYW79EcnzpkH1CI76rLsV9Hz6304E40D",
      "link": "https://payments.example.com/pay/1xYW7972RsUAd90ee5kHmP",
      "order": {
        "id": "0b0448ab-e23f-4d34-9d10-72341b39df5f",
        "paymentLinkId": "1xYW7972RsUAd90ee5kHmP",
        "status": "PENDING",
      },
      "payment": null,
      "batchId": null,
      "problem": null,
      "notifyPayer": false,
      "mailedAt": null,
      "createdAt": "2026-12-01T22:14:19.563Z",
      "closedAt": null,
      "metadata": {},
    },
  ],
  "nextCursor": null,
};

export const paidInvoiceExample = {
  "invoice": {
    "id": "466911a7-9359-4df4-a29f-0902234e02c1",
    "status": "PAID",
    "reference": "contrato-2290/11",
    "description": "Mensalidade de dezembro",
    "payer": {
      "name": "Maria Souza",
      "cpf": "52998224725",
      "email": "maria@example.com",
    },
    "value": 150,
    "dueDate": "2026-12-31",
    "daysAfterDue": 30,
    "effectiveDueDate": "2026-12-31",
    "lastPayableDay": "2027-02-01",
    "expiresAt": "2027-02-02T02:59:59.999Z",
    "fine": {
      "modalidade": 2,
      "percent": 2,
    },
    "interest": {
      "modalidade": 3,
      "percent": 1,
    },
    "abatement": null,
    "discount": {
      "modalidade": 1,
      "dates": [
        {
          "date": "2026-12-26",
          "value": 10,
        },
      ],
    },
    "amountDue": null,
    "brcode":
      "00020126850014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d369060223Mensalidade de dezembro5204000053039865406140.005802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO622905251xYW792KgV3v8UFGqAekcIlRl6304C90D",
    "link": "https://payments.example.com/pay/1xYW794KlnincvmnrvTIsW",
    "order": {
      "id": "957b92cf-b8f1-41a5-985c-11856c845249",
      "paymentLinkId": "1xYW794KlnincvmnrvTIsW",
      "status": "COMPLETED",
    },
    "payment": {
      "day": "2027-01-04",
      "paidAt": "2027-01-04T15:00:00.000Z",
      "value": 153.2,
      "original": 150,
      "fine": 3,
      "interest": 0.2,
      "abatement": 0,
      "discount": 0,
      "endToEndId": "E00000000202701041500XR8BG5NtxQH",
    },
    "batchId": null,
    "problem": null,
    "notifyPayer": false,
    "mailedAt": null,
    "createdAt": "2026-12-01T22:14:19.697Z",
    "closedAt": "2026-12-01T22:14:19.745Z",
    "metadata": {},
  },
};

export const batchExample = {
  "batch": {
    "id": "f8430e38-d6ee-4022-9e2d-f01aeba906ad",
    "description": "Mensalidades de dezembro",
    "status": "DONE",
    "createdAt": "2026-12-01T22:14:19.846Z",
    "counts": {
      "processing": 0,
      "created": 1,
      "refused": 1,
    },
    "items": [
      {
        "index": 0,
        "status": "CREATED",
        "invoice": {
          "id": "2fab69d0-2efc-4038-b105-272440863a38",
          "status": "OPEN",
          "reference": "contrato-2291/12",
          "description": "Mensalidade de dezembro",
          "payer": {
            "name": "Maria Souza",
            "cpf": "52998224725",
            "email": "maria@example.com",
          },
          "value": 150,
          "dueDate": "2026-12-31",
          "daysAfterDue": 30,
          "effectiveDueDate": "2026-12-31",
          "lastPayableDay": "2027-02-01",
          "expiresAt": "2027-02-02T02:59:59.999Z",
          "fine": {
            "modalidade": 2,
            "percent": 2,
          },
          "interest": {
            "modalidade": 3,
            "percent": 1,
          },
          "abatement": null,
          "discount": {
            "modalidade": 1,
            "dates": [
              {
                "date": "2026-12-26",
                "value": 10,
              },
            ],
          },
          "amountDue": {
            "day": "2026-12-01",
            "value": 140,
            "original": 150,
            "fine": 0,
            "interest": 0,
            "abatement": 0,
            "discount": 10,
            "late": false,
          },
          "brcode":
            "00020126850014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d369060223Mensalidade de dezembro5204000053039865406140.005802BR5920PIXCRYPTO PAGAMENTOS6009SAO PAULO622905251xYW79ZNIsI5U1RxtQRVaEF3n630498CE",
          "link": "https://payments.example.com/pay/1xYW79sEDazTYxn8ZhHLm3",
          "order": {
            "id": "e9a8d341-b065-43a7-a375-db01aa0976d3",
            "paymentLinkId": "1xYW79sEDazTYxn8ZhHLm3",
            "status": "PENDING",
          },
          "payment": null,
          "batchId": "f8430e38-d6ee-4022-9e2d-f01aeba906ad",
          "problem": null,
          "notifyPayer": false,
          "mailedAt": null,
          "createdAt": "2026-12-01T22:14:19.846Z",
          "closedAt": null,
          "metadata": {},
        },
        "error": null,
      },
      {
        "index": 1,
        "status": "REFUSED",
        "invoice": null,
        "error": "Invalid request: value: must be greater than 0",
      },
    ],
  },
};
