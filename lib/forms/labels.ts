import type { MessageKey } from "@/lib/i18n";

// The label each form field is known by in error messages ("Valor: precisa ser maior que zero."):
// one table for every form, since the forms post the API's own field names. A form whose field
// means something else under the same name passes its own label for it.

export const FIELD_LABELS: Record<string, MessageKey> = {
  value: "fields.value",
  orderId: "newOrder.orderId",
  name: "newOrder.customerName",
  cpf: "order.ref.cpf",
  cnpj: "order.ref.cnpj",
  email: "auth.email",
  password: "auth.password",
  payerId: "newOrder.payerId",
  expiresIn: "newOrder.expiresIn",
  network: "newOrder.network",
  asset: "newOrder.asset",
  token: "withdrawals.token",
  qrcode: "fields.qrcode",
  refundAddress: "newOrder.refundAddress",
  toAddress: "fields.toAddress",
  pixKey: "fields.pixKey",
  companyName: "auth.companyName",
  url: "developers.webhookUrl",
  description: "developers.webhookDescription",
  reason: "refunds.reason",
  id: "fields.order",
  _form: "fields.form",
};
