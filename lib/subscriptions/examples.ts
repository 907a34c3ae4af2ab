// Examples for the OpenAPI document, shaped as the sandbox answers the request examples of
// ./endpoints.ts. tests/openapi.test.ts checks each against its schema.

const subscription = {
  id: "8d6f2a4e-1c3b-4f7a-9e2d-5b6c7d8e9f01",
  status: "AWAITING_AUTHORISATION",
  journey: "JORNADA_3",
  payer: { name: "Maria Souza", cpf: "52998224725" },
  description: "Plano mensal Academia Centro",
  reference: "contrato-2291",
  amount: { type: "FIXED", value: 89.9, minimum: null },
  periodicity: "MENSAL",
  firstDate: "2030-01-10",
  lastDate: null,
  retryPolicy: "PERMITE_3R_7D",
  brcode:
    "00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/rec/9d36b84fc70b478fb95c12729b90ca2552040000530398654048.905802BR5913Loja Exemplo6009Sao Paulo62070503***6304ABCD",
  link: "https://pay.example.com/pay/pl_7Qx2mK9vR4tY8wZ1",
  recurrenceId: "RR0000000020291215a1B2c3D4e5F",
  nextChargeDate: "2030-01-10",
  cancelledBy: null,
  metadata: {},
  createdAt: "2029-12-15T13:02:11.000Z",
  updatedAt: "2029-12-15T13:02:11.000Z",
};

const firstPayment = {
  id: "3a1e5c7b-9d2f-4e6a-8b0c-1d2e3f4a5b6c",
  cycle: 0,
  kind: "IMMEDIATE",
  status: "SCHEDULED",
  dueDate: "2029-12-15",
  value: 89.9,
  retries: 0,
  retryDate: null,
  attempts: [],
  paidAt: null,
  endToEndId: null,
  failure: null,
  order: {
    id: "b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e",
    status: "PENDING",
    link: "https://pay.example.com/pay/pl_7Qx2mK9vR4tY8wZ1",
  },
  createdAt: "2029-12-15T13:02:11.000Z",
};

export const subscriptionExample = { subscription: { ...subscription, cycles: [firstPayment] } };

export const activeSubscriptionExample = {
  subscription: {
    ...subscription,
    status: "ACTIVE",
    updatedAt: "2029-12-15T13:05:40.000Z",
    cycles: [
      {
        ...firstPayment,
        status: "PAID",
        paidAt: "2029-12-15T13:05:39.000Z",
        endToEndId: "E00000000202912151605a1b2c3d4e5f",
        order: { ...firstPayment.order, status: "COMPLETED" },
      },
      {
        id: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
        cycle: 1,
        kind: "RECURRING",
        status: "SCHEDULED",
        dueDate: "2030-01-10",
        value: 89.9,
        retries: 0,
        retryDate: null,
        attempts: [{ date: "2030-01-10", type: "AGND", status: "AGENDADA", failure: null }],
        paidAt: null,
        endToEndId: null,
        failure: null,
        order: {
          id: "d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f60",
          status: "PENDING",
          link: "https://pay.example.com/pay/pl_3Hk8sD1fG6jL0qW5",
        },
        createdAt: "2029-12-31T03:00:05.000Z",
      },
    ],
    nextChargeDate: "2030-02-10",
  },
};

export const subscriptionsExample = {
  subscriptions: [{ ...subscription, status: "ACTIVE", nextChargeDate: "2030-02-10" }],
  nextCursor: null,
};
