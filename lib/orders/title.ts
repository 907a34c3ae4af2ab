import type { OrderListType } from "./schemas";

// What an order is called wherever a person reads it (the dashboard's lists, the order page, the
// statement, e-mails): how the merchant knows it, not our ids. The merchant's own reference when the
// order was created with one, else the customer's name, else (for a Crypto-PIX payment) whom the PIX
// pays, else its kind and amount with a short id. Ids stay beside it, as secondary text.

/** The fields of any kind of order the title is made of; a Crypto-PIX payment's reference is `{ recipientName }`. */
export type TitledOrder = {
  id: string;
  kind: OrderListType;
  valueCentavos: number;
  paymentLinkId: string | null;
  reference: Record<string, string> | null;
};

export type OrderTitle =
  | { by: "reference"; text: string }
  | { by: "customer"; text: string }
  | { by: "recipient"; text: string }
  | { by: "kind"; kind: OrderListType; valueCentavos: number; shortId: string };

/** The creation request's fields that are the merchant's own name for the order, the first given wins. */
const REFERENCE_FIELDS = ["orderId", "orderRequest", "description"] as const;

const given = (s: string | undefined) => (s && s.trim() ? s.trim() : null);

/** The first 8 hex digits of the order's id: short enough for a title, and what search takes for an id. */
export const shortOrderId = (o: Pick<TitledOrder, "id">): string => o.id.slice(0, 8);

/** The merchant's own reference for the order, if it gave one. */
export function orderReference(o: Pick<TitledOrder, "reference">): string | null {
  for (const field of REFERENCE_FIELDS) {
    const value = given(o.reference?.[field]);
    if (value) return value;
  }
  return null;
}

/** The customer's name the order was created with, if any. */
export const orderCustomer = (o: Pick<TitledOrder, "reference">): string | null => given(o.reference?.name);

export function orderTitle(o: TitledOrder): OrderTitle {
  const reference = orderReference(o);
  if (reference) return { by: "reference", text: reference };
  const customer = orderCustomer(o);
  if (customer) return { by: "customer", text: customer };
  const recipient = o.kind === "crypto_pix" ? given(o.reference?.recipientName) : null;
  if (recipient) return { by: "recipient", text: recipient };
  return { by: "kind", kind: o.kind, valueCentavos: o.valueCentavos, shortId: shortOrderId(o) };
}

/** The title, and the customer when the title is not already the customer's name: what lists show of an order. */
export function orderNaming(o: TitledOrder): { title: OrderTitle; customer: string | null } {
  const title = orderTitle(o);
  const customer = orderCustomer(o);
  return { title, customer: title.by === "customer" ? null : customer };
}

/** The title in text that needs no catalog (a bilingual e-mail): the reference and customer, or the payment link id. */
export function plainOrderName(o: TitledOrder): string {
  const { title, customer } = orderNaming(o);
  const name = title.by === "kind" ? (o.paymentLinkId ?? title.shortId) : title.text;
  return customer ? `${name} (${customer})` : name;
}
