// Examples for the OpenAPI document: the shapes the sandbox answers for the request examples of
// ./endpoints.ts, with the base URL replaced. tests/openapi.test.ts checks each against its schema.

const base = "https://payments.example.com";

export const paymentLinkExample = {
  paymentLink: {
    id: "3b0c8f4e-4c55-4d4b-9a51-2f0d1e9c7a10",
    url: `${base}/pay/link/0kP9xQ7mRtS2vW4yZ6aBcD`,
    qrCodeLink: `${base}/api/v1/public/payment-links/0kP9xQ7mRtS2vW4yZ6aBcD/qr.png`,
    status: "ACTIVE",
    available: true,
    unavailableReason: null,
    title: "Bolo de cenoura",
    description: "Com cobertura de chocolate, 1 kg",
    imageUrl: null,
    price: 45,
    minAmount: null,
    maxAmount: null,
    maxQuantity: 5,
    rails: ["pix", "lightning", "onchain"],
    onchain: [{ network: "polygon", asset: "USDC" }],
    payerFields: ["name", "phone"],
    availableUntil: null,
    maxPayments: 30,
    payments: { paid: 0, pending: 0 },
    reference: "bolos-dezembro",
    metadata: { loja: "centro" },
    version: 1,
    createdAt: "2026-12-02T03:00:00.000Z",
    updatedAt: "2026-12-02T03:00:00.000Z",
  },
};

export const paymentLinksExample = { paymentLinks: [paymentLinkExample.paymentLink], nextCursor: null };

export const salesExample = {
  sales: [
    {
      orderId: "9d5b1a8c-77e2-4c3f-8a41-5e2b6c0d9f13",
      paymentLinkId: "0kP9y1AbCdEfGhIjKlMnOp",
      type: "pix",
      status: "COMPLETED",
      value: 90,
      quantity: 2,
      payer: { name: "Maria Souza", phone: "+5511987654321" },
      linkVersion: 1,
      link: `${base}/pay/0kP9y1AbCdEfGhIjKlMnOp`,
      createdAt: "2026-12-02T03:05:00.000Z",
      paidAt: "2026-12-02T03:06:10.000Z",
    },
  ],
  nextCursor: null,
};

export const publicPaymentLinkExample = {
  paymentLink: {
    slug: "0kP9xQ7mRtS2vW4yZ6aBcD",
    merchantName: "Doceria da Ana",
    title: "Bolo de cenoura",
    description: "Com cobertura de chocolate, 1 kg",
    imageUrl: null,
    price: 45,
    minAmount: null,
    maxAmount: null,
    maxQuantity: 5,
    rails: ["pix", "lightning", "onchain"],
    onchain: [{ network: "polygon", asset: "USDC" }],
    payerFields: ["name", "phone"],
    available: true,
    unavailableReason: null,
  },
};

export const sellExample = {
  order: {
    paymentLinkId: "0kP9y1AbCdEfGhIjKlMnOp",
    type: "pix",
    value: 90,
    link: `${base}/pay/0kP9y1AbCdEfGhIjKlMnOp`,
  },
};
