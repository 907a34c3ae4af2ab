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
    },
  },
};
