import type { components, operations } from "./generated/api.js";

// Names for the generated types (src/generated/api.ts, from the API's OpenAPI document): what each
// endpoint takes and answers, exactly as the server declares it. Nothing here is written twice.

type Ops = operations;
/** The JSON body an operation takes. */
export type BodyOf<K extends keyof Ops> = Ops[K] extends { requestBody?: { content: { "application/json": infer B } } }
  ? B
  : never;
/** The JSON an operation answers with on success. */
export type ResultOf<K extends keyof Ops> = SuccessContent<Ops[K]["responses"]>;
/** The query string an operation takes. */
export type QueryOf<K extends keyof Ops> = Ops[K] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201;
type SuccessContent<R> = {
  [S in keyof R & SuccessStatus]: R[S] extends { content: { "application/json": infer C } } ? C : never;
}[keyof R & SuccessStatus];

type Schemas = components["schemas"];
export type Order = Schemas["Order"];
export type PixOrder = Schemas["PixOrder"];
export type ExchangeOrder = Schemas["ExchangeOrder"];
export type LightningOrder = Schemas["LightningOrder"];
export type Refund = Schemas["Refund"];
export type SplitPart = Schemas["SplitPart"];
export type Deposit = Schemas["Deposit"];
export type DepositCreated = Schemas["DepositCreated"];
export type CryptoPixPayment = Schemas["CryptoPixPayment"];
export type CryptoPixCreated = Schemas["CryptoPixCreated"];
export type Account = Schemas["Account"];
export type AccountSettings = Schemas["AccountSettings"];
export type Withdrawal = Schemas["Withdrawal"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type CreatedWebhookEndpoint = Schemas["CreatedWebhookEndpoint"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type PublicPayment = Schemas["PublicPayment"];
export type PublicCryptoPixPayment = Schemas["PublicCryptoPixPayment"];
export type Invoice = Schemas["Invoice"];
export type InvoiceBatch = Schemas["InvoiceBatch"];
export type PaymentLink = Schemas["PaymentLink"];
export type Subscription = Schemas["Subscription"];
export type SubscriptionWithCycles = Schemas["SubscriptionWithCycles"];
export type SubscriptionCycle = Schemas["SubscriptionCycle"];
export type PaymentLinkSale = Schemas["PaymentLinkSale"];
export type Recipient = Schemas["Recipient"];
export type RecipientStatementEntry = Schemas["RecipientStatementEntry"];
export type RecipientPayout = Schemas["RecipientPayout"];
export type PublicPaymentLink = Schemas["PublicPaymentLink"];
/** An item of GET /orders: every kind of order, in the list's own short view. */
export type OrderListItem = ResultOf<"getOrders">["orders"][number];
/** An item of GET /events, the same object a webhook delivery POSTs (typed by kind: see WebhookEvent). */
export type EventListItem = ResultOf<"getEvents">["events"][number];
