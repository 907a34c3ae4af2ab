// The kinds of order the dashboard can create, shared by the server page and the client form.
export const NEW_ORDER_KINDS = ["pix", "exchange", "lightning", "onchain", "crypto_pix"] as const;
export type NewOrderKind = (typeof NEW_ORDER_KINDS)[number];
