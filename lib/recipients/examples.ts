// Examples for the OpenAPI document: the shapes the sandbox answers for the request examples of
// ./endpoints.ts. tests/openapi.test.ts checks each against its schema.

const recipient = {
  id: "6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b",
  name: "Maria Souza Doces",
  document: "***.982.247-**",
  documentType: "cpf",
  pixKey: "m***@example.com",
  pixKeyType: "email",
  pixKeyUsableAt: null,
  email: "maria@example.com",
  reference: "seller-1001",
  balance: 0,
  payoutSchedule: null,
  status: "ACTIVE",
  createdAt: "2026-12-02T03:00:00.000Z",
  updatedAt: "2026-12-02T03:00:00.000Z",
};

export const recipientExample = { recipient };

export const recipientsExample = { recipients: [recipient], nextCursor: null };

export const updatedRecipientExample = {
  recipient: {
    ...recipient,
    pixKey: "***.982.247-**",
    pixKeyType: "cpf",
    pixKeyUsableAt: "2026-12-03T03:00:00.000Z",
    payoutSchedule: { interval: "weekly", weekday: "friday", minimumValue: 50, nextSlot: "2026-12-04" },
    updatedAt: "2026-12-02T03:05:00.000Z",
  },
};

export const statementExample = {
  recipientId: recipient.id,
  balance: 55.5,
  entries: [
    {
      id: "0b9e8d7c-6f5a-4b3c-9d2e-1f0a9b8c7d6e",
      kind: "payout_debit",
      amount: -20,
      balanceAfter: 55.5,
      refType: "recipient_payout",
      refId: "4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d",
      description: "PIX payout",
      createdAt: "2026-12-02T04:00:00.000Z",
    },
    {
      id: "1c0d9e8f-7a6b-4c5d-8e9f-0a1b2c3d4e5f",
      kind: "split_credit",
      amount: 75.5,
      balanceAfter: 75.5,
      refType: "order_split",
      refId: "2d1e0f9a-8b7c-4d6e-9f0a-1b2c3d4e5f6a",
      description: null,
      createdAt: "2026-12-02T03:30:00.000Z",
    },
  ],
  nextCursor: null,
};

export const recipientPayoutExample = {
  payout: {
    id: "4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d",
    recipientId: recipient.id,
    status: "PENDING",
    value: 20,
    amount: 2000,
    pixKey: "m***@example.com",
    createdAt: "2026-12-02T04:00:00.000Z",
    updatedAt: "2026-12-02T04:00:00.000Z",
  },
};
