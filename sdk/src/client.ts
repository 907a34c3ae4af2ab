import type { operations } from "./generated/api.js";
import { Paginator } from "./pagination.js";
import { Transport, type AuthHeader, type Call, type RequestOptions, type TransportOptions } from "./transport.js";
import type {
  BodyOf,
  EventListItem,
  Invoice,
  OrderListItem,
  PaymentLink,
  PaymentLinkSale,
  QueryOf,
  Recipient,
  ResultOf,
  Subscription,
  WebhookDelivery,
  Withdrawal,
} from "./types.js";

// The merchant's client: one method per endpoint an API key may call, grouped as the API reference
// groups them. Bodies and answers are the generated types of the served OpenAPI document, so a
// field the server adds appears here when the types are regenerated, and one it would not accept
// does not compile. Sandbox helpers live apart (./sandbox.ts), as do the operator's (./operator.ts).

export type PixCryptoOptions = Omit<TransportOptions, "credential"> & {
  /** sk_test_… (sandbox) or sk_live_… */
  apiKey: string;
  /** Which header carries the key; the API accepts both on every endpoint (default "authorization": `Authorization: Bearer <key>`). */
  authHeader?: AuthHeader;
};

type Op = keyof operations;
type PathOf<K extends Op> = { [P in keyof ParamsOf<K>]: string };
type ParamsOf<K extends Op> = operations[K] extends { parameters: { path?: infer P } } ? NonNullable<P> : never;

/** Declares how to call one operation; the client's methods are thin wrappers over these. */
function call<K extends Op>(
  operation: K,
  method: Call["method"],
  path: string,
  repeatable: Call["repeatable"] = method === "POST" ? "idempotency-key" : "safe",
) {
  return (t: Transport, parts: { params?: PathOf<K>; query?: Call["query"]; body?: unknown }, opts?: RequestOptions) =>
    t.request<ResultOf<K>>({ operation, method, path, repeatable, ...parts }, opts);
}

const ops = {
  createDeposit: call("postOnchainDeposit", "POST", "/api/v1/onchain/deposit"),
  withdrawOnchain: call("postOnchainWithdrawInitiate", "POST", "/api/v1/onchain/withdraw/initiate"),
  getDeposit: call("getOnchainOrderId", "GET", "/api/v1/onchain/order/{id}"),
  createPix: call("postOrderCreatePix", "POST", "/api/v1/order/create/pix"),
  createExchange: call("postOrderCreate", "POST", "/api/v1/order/create"),
  createLightning: call("postOrderCreateLightning", "POST", "/api/v1/order/create/lightning"),
  pixOut: call("postOrderPixOut", "POST", "/api/v1/order/pix-out"),
  getOrder: call("getOrderId", "GET", "/api/v1/order/{id}"),
  refund: call("postOrderIdRefund", "POST", "/api/v1/order/{id}/refund"),
  listOrders: call("getOrders", "GET", "/api/v1/orders"),
  createPaymentLink: call("postPaymentLinks", "POST", "/api/v1/payment-links"),
  listPaymentLinks: call("getPaymentLinks", "GET", "/api/v1/payment-links"),
  getPaymentLink: call("getPaymentLinksId", "GET", "/api/v1/payment-links/{id}"),
  // An edit repeated gives the same terms (only `version` moves on): safe to send again.
  updatePaymentLink: call("patchPaymentLinksId", "PATCH", "/api/v1/payment-links/{id}", "safe"),
  pausePaymentLink: call("postPaymentLinksIdPause", "POST", "/api/v1/payment-links/{id}/pause"),
  resumePaymentLink: call("postPaymentLinksIdResume", "POST", "/api/v1/payment-links/{id}/resume"),
  listPaymentLinkSales: call("getPaymentLinksIdSales", "GET", "/api/v1/payment-links/{id}/sales"),
  publicPaymentLink: call("getPublicPaymentLinksSlug", "GET", "/api/v1/public/payment-links/{slug}"),
  // A payer's order: the public call takes no Idempotency-Key, so it is never sent twice.
  buyFromLink: call("postPublicPaymentLinksSlugOrders", "POST", "/api/v1/public/payment-links/{slug}/orders", "once"),
  createRecipient: call("postRecipients", "POST", "/api/v1/recipients"),
  listRecipients: call("getRecipients", "GET", "/api/v1/recipients"),
  getRecipient: call("getRecipientsId", "GET", "/api/v1/recipients/{id}"),
  // An edit repeated sets the same fields again: safe to send again.
  updateRecipient: call("patchRecipientsId", "PATCH", "/api/v1/recipients/{id}", "safe"),
  recipientStatement: call("getRecipientsIdStatement", "GET", "/api/v1/recipients/{id}/statement"),
  payRecipient: call("postRecipientsIdPayouts", "POST", "/api/v1/recipients/{id}/payouts"),
  getRecipientPayout: call("getRecipientsIdPayoutsPayoutId", "GET", "/api/v1/recipients/{id}/payouts/{payoutId}"),
  createInvoice: call("postInvoices", "POST", "/api/v1/invoices"),
  listInvoices: call("getInvoices", "GET", "/api/v1/invoices"),
  getInvoice: call("getInvoicesId", "GET", "/api/v1/invoices/{id}"),
  cancelInvoice: call("postInvoicesIdCancel", "POST", "/api/v1/invoices/{id}/cancel"),
  createInvoiceBatch: call("postInvoicesBatches", "POST", "/api/v1/invoices/batches"),
  getInvoiceBatch: call("getInvoicesBatchesId", "GET", "/api/v1/invoices/batches/{id}"),
  createSubscription: call("postSubscriptions", "POST", "/api/v1/subscriptions"),
  listSubscriptions: call("getSubscriptions", "GET", "/api/v1/subscriptions"),
  getSubscription: call("getSubscriptionsId", "GET", "/api/v1/subscriptions/{id}"),
  updateSubscription: call("patchSubscriptionsId", "PATCH", "/api/v1/subscriptions/{id}", "safe"),
  cancelSubscription: call("postSubscriptionsIdCancel", "POST", "/api/v1/subscriptions/{id}/cancel"),
  payCryptoPix: call("postCryptoPixOnchainPay", "POST", "/api/v1/crypto-pix/onchain/pay"),
  getCryptoPix: call("getCryptoPixOrderId", "GET", "/api/v1/crypto-pix/order/{id}"),
  getAccount: call("getAccount", "GET", "/api/v1/account"),
  getAccountSettings: call("getAccountSettings", "GET", "/api/v1/account/settings"),
  // A change repeated sets the same value again: safe to send again.
  updateAccountSettings: call("patchAccountSettings", "PATCH", "/api/v1/account/settings", "safe"),
  listWithdrawals: call("getWithdrawals", "GET", "/api/v1/withdrawals"),
  getWithdrawal: call("getWithdrawalsId", "GET", "/api/v1/withdrawals/{id}"),
  createWebhook: call("postWebhooks", "POST", "/api/v1/webhooks"),
  listWebhooks: call("getWebhooks", "GET", "/api/v1/webhooks"),
  deleteWebhook: call("deleteWebhooksId", "DELETE", "/api/v1/webhooks/{id}"),
  listDeliveries: call("getWebhooksIdDeliveries", "GET", "/api/v1/webhooks/{id}/deliveries"),
  redeliver: call(
    "postWebhooksIdDeliveriesDeliveryIdRedeliver",
    "POST",
    "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  ),
  listEvents: call("getEvents", "GET", "/api/v1/events"),
  publicPayment: call("getPublicPaymentsPaymentLinkId", "GET", "/api/v1/public/payments/{paymentLinkId}"),
  publicCryptoPix: call("getPublicCryptoPixPayCryptoPixId", "GET", "/api/v1/public/crypto-pix/{payCryptoPixId}"),
};

export class PixCrypto {
  /** @internal The request machinery, shared with sandbox(client). */
  readonly transport: Transport;
  readonly apiKey: string;

  constructor(options: PixCryptoOptions) {
    if (!options.apiKey) throw new TypeError("apiKey is required (sk_test_… or sk_live_…)");
    const { apiKey, authHeader, ...rest } = options;
    this.apiKey = apiKey;
    this.transport = new Transport({ ...rest, credential: { token: apiKey, header: authHeader ?? "authorization" } });
  }

  /** PIX, exchange-wallet and Lightning orders; the list of every kind of order. */
  readonly orders = {
    /**
     * POST /order/create/pix → `{ message, pixOrder, qrCode }` (qrCode: the BR Code to render or copy). `value` is BRL
     * (25.9 is R$ 25,90); `orderId` and your other references come back in `reference`, `metadata` as sent.
     */
    createPix: (body: BodyOf<"postOrderCreatePix">, opts?: RequestOptions) =>
      ops.createPix(this.transport, { body }, opts),
    /** POST /order/create: an exchange-wallet order (`value` BRL) → `{ message, order }` with `qrCodeLink`. */
    createExchange: (body: BodyOf<"postOrderCreate">, opts?: RequestOptions) =>
      ops.createExchange(this.transport, { body }, opts),
    /** POST /order/create/lightning (`value` BRL) → `{ message, order }` with `invoice`, `satoshis`, `expiresAt`. */
    createLightning: (body: BodyOf<"postOrderCreateLightning">, opts?: RequestOptions) =>
      ops.createLightning(this.transport, { body }, opts),
    /** GET /order/{id}, by id or payment link id. */
    get: (id: string, opts?: RequestOptions) => ops.getOrder(this.transport, { params: { id } }, opts),
    /** POST /order/{id}/refund (`value` BRL): all that is left to refund when `value` is absent. */
    refund: (id: string, body: BodyOf<"postOrderIdRefund"> = {}, opts?: RequestOptions) =>
      ops.refund(this.transport, { params: { id }, body }, opts),
    /** GET /orders: one page, newest first. */
    list: (query: QueryOf<"getOrders"> = {}, opts?: RequestOptions) => ops.listOrders(this.transport, { query }, opts),
    /** Every order matching `query`, page after page, as you iterate. */
    iterate: (query: Omit<QueryOf<"getOrders">, "cursor"> = {}, opts?: RequestOptions) =>
      new Paginator<OrderListItem>(async (cursor) => {
        const page = await ops.listOrders(this.transport, { query: { ...query, cursor: cursor ?? undefined } }, opts);
        return { items: page.orders, nextCursor: page.nextCursor };
      }),
  };

  /**
   * Invoices with a due date (API Pix cobv): the amount due changes with the day it is paid (fine,
   * interest, discounts); the invoice's PIX order (`invoice.order`) takes the payment and refunds.
   */
  readonly invoices = {
    /** POST /invoices → 201 `{ invoice }`: OPEN, with today's `amountDue`, its `brcode` and the payer's `link`. */
    create: (body: BodyOf<"postInvoices">, opts?: RequestOptions) => ops.createInvoice(this.transport, { body }, opts),
    /** GET /invoices/{id}: as it stands (an OPEN one past its last payable day is EXPIRED by the read). */
    get: (id: string, opts?: RequestOptions) => ops.getInvoice(this.transport, { params: { id } }, opts),
    /** GET /invoices: one page, newest first; filter by `status`, `reference`, `batchId`. */
    list: (query: QueryOf<"getInvoices"> = {}, opts?: RequestOptions) =>
      ops.listInvoices(this.transport, { query }, opts),
    /** Every invoice matching `query`, page after page, as you iterate. */
    iterate: (query: Omit<QueryOf<"getInvoices">, "cursor"> = {}, opts?: RequestOptions) =>
      new Paginator<Invoice>(async (cursor) => {
        const page = await ops.listInvoices(this.transport, { query: { ...query, cursor: cursor ?? undefined } }, opts);
        return { items: page.invoices, nextCursor: page.nextCursor };
      }),
    /** POST /invoices/{id}/cancel: an OPEN invoice's charge is removed at the PSP (409 when it was already paid). */
    cancel: (id: string, opts?: RequestOptions) => ops.cancelInvoice(this.transport, { params: { id } }, opts),
    /** POST /invoices/batches → 201 `{ batch }`: up to 100 invoices, each with its own result in `batch.items`. */
    createBatch: (body: BodyOf<"postInvoicesBatches">, opts?: RequestOptions) =>
      ops.createInvoiceBatch(this.transport, { body }, opts),
    /** GET /invoices/batches/{id}: each invoice PROCESSING, CREATED or REFUSED (and why). */
    getBatch: (id: string, opts?: RequestOptions) => ops.getInvoiceBatch(this.transport, { params: { id } }, opts),
  };

  /**
   * Subscriptions by Pix Automático: the payer authorises once (`subscription.brcode` or `link`), each
   * cycle is charged 2 to 10 days before its due date and credited through its own PIX order.
   */
  readonly subscriptions = {
    /** POST /subscriptions → 201 `{ subscription }`: AWAITING_AUTHORISATION, with the code and the payer's `link`. */
    create: (body: BodyOf<"postSubscriptions">, opts?: RequestOptions) =>
      ops.createSubscription(this.transport, { body }, opts),
    /** GET /subscriptions/{id}: with every cycle so far, its status, attempts and order. */
    get: (id: string, opts?: RequestOptions) => ops.getSubscription(this.transport, { params: { id } }, opts),
    /** GET /subscriptions: one page, newest first; filter by `status`, `reference`. */
    list: (query: QueryOf<"getSubscriptions"> = {}, opts?: RequestOptions) =>
      ops.listSubscriptions(this.transport, { query }, opts),
    /** Every subscription matching `query`, page after page, as you iterate. */
    iterate: (query: Omit<QueryOf<"getSubscriptions">, "cursor"> = {}, opts?: RequestOptions) =>
      new Paginator<Subscription>(async (cursor) => {
        const page = await ops.listSubscriptions(
          this.transport,
          { query: { ...query, cursor: cursor ?? undefined } },
          opts,
        );
        return { items: page.subscriptions, nextCursor: page.nextCursor };
      }),
    /** PATCH /subscriptions/{id}: a VARIABLE amount's new value for the cycles recorded from now on (409 for FIXED). */
    update: (id: string, body: BodyOf<"patchSubscriptionsId">, opts?: RequestOptions) =>
      ops.updateSubscription(this.transport, { params: { id }, body }, opts),
    /** POST /subscriptions/{id}/cancel: at the PSP first; no further cycle is charged (409 once ended). */
    cancel: (id: string, opts?: RequestOptions) => ops.cancelSubscription(this.transport, { params: { id } }, opts),
  };

  /**
   * Reusable payment links: one page (`paymentLink.url`) that sells one thing; every payer who chooses a
   * rail there gets an order of their own, listed as the link's sales.
   */
  readonly paymentLinks = {
    /** POST /payment-links → 201 `{ paymentLink }`: its `url` to share and `qrCodeLink` for the counter. */
    create: (body: BodyOf<"postPaymentLinks">, opts?: RequestOptions) =>
      ops.createPaymentLink(this.transport, { body }, opts),
    /** GET /payment-links/{id}: with `payments: { paid, pending }` and whether it sells now. */
    get: (id: string, opts?: RequestOptions) => ops.getPaymentLink(this.transport, { params: { id } }, opts),
    /** GET /payment-links: one page, newest first; filter by `status`, `reference`. */
    list: (query: QueryOf<"getPaymentLinks"> = {}, opts?: RequestOptions) =>
      ops.listPaymentLinks(this.transport, { query }, opts),
    /** Every link matching `query`, page after page, as you iterate. */
    iterate: (query: Omit<QueryOf<"getPaymentLinks">, "cursor"> = {}, opts?: RequestOptions) =>
      new Paginator<PaymentLink>(async (cursor) => {
        const page = await ops.listPaymentLinks(
          this.transport,
          { query: { ...query, cursor: cursor ?? undefined } },
          opts,
        );
        return { items: page.paymentLinks, nextCursor: page.nextCursor };
      }),
    /** PATCH /payment-links/{id}: only the fields sent change (`null` clears); orders already made keep their price. */
    update: (id: string, body: BodyOf<"patchPaymentLinksId">, opts?: RequestOptions) =>
      ops.updatePaymentLink(this.transport, { params: { id }, body }, opts),
    /** POST /payment-links/{id}/pause: no new orders; those already made can still be paid. */
    pause: (id: string, opts?: RequestOptions) => ops.pausePaymentLink(this.transport, { params: { id } }, opts),
    /** POST /payment-links/{id}/resume. */
    resume: (id: string, opts?: RequestOptions) => ops.resumePaymentLink(this.transport, { params: { id } }, opts),
    /** GET /payment-links/{id}/sales: one page of the orders it made, newest first. */
    sales: (id: string, query: QueryOf<"getPaymentLinksIdSales"> = {}, opts?: RequestOptions) =>
      ops.listPaymentLinkSales(this.transport, { params: { id }, query }, opts),
    /** Every sale of the link, page after page. */
    iterateSales: (id: string, opts?: RequestOptions) =>
      new Paginator<PaymentLinkSale>(async (cursor) => {
        const page = await ops.listPaymentLinkSales(
          this.transport,
          { params: { id }, query: { cursor: cursor ?? undefined } },
          opts,
        );
        return { items: page.sales, nextCursor: page.nextCursor };
      }),
  };

  /**
   * Recipients (recebedores): sub-accounts that order splits credit, each with its own balance,
   * statement and PIX payouts to its key. A changed key is held like any new withdrawal destination.
   */
  readonly recipients = {
    /** POST /recipients → 201 `{ recipient }`: name, CPF/CNPJ `document` (check digits verified), `pixKey`. */
    create: (body: BodyOf<"postRecipients">, opts?: RequestOptions) =>
      ops.createRecipient(this.transport, { body }, opts),
    /** GET /recipients/{id}: with its `balance` (BRL) and `pixKeyUsableAt` while its key is held. */
    get: (id: string, opts?: RequestOptions) => ops.getRecipient(this.transport, { params: { id } }, opts),
    /** GET /recipients: one page, newest first; filter by `status`, `reference`. */
    list: (query: QueryOf<"getRecipients"> = {}, opts?: RequestOptions) =>
      ops.listRecipients(this.transport, { query }, opts),
    /** Every recipient matching `query`, page after page, as you iterate. */
    iterate: (query: Omit<QueryOf<"getRecipients">, "cursor"> = {}, opts?: RequestOptions) =>
      new Paginator<Recipient>(async (cursor) => {
        const page = await ops.listRecipients(
          this.transport,
          { query: { ...query, cursor: cursor ?? undefined } },
          opts,
        );
        return { items: page.recipients, nextCursor: page.nextCursor };
      }),
    /** PATCH /recipients/{id}: only the fields sent change; a new `pixKey` is held (needs the withdrawals scope). */
    update: (id: string, body: BodyOf<"patchRecipientsId">, opts?: RequestOptions) =>
      ops.updateRecipient(this.transport, { params: { id }, body }, opts),
    /** GET /recipients/{id}/statement: one page of its ledger entries, newest first, each with `balanceAfter`. */
    statement: (id: string, query: QueryOf<"getRecipientsIdStatement"> = {}, opts?: RequestOptions) =>
      ops.recipientStatement(this.transport, { params: { id }, query }, opts),
    /** POST /recipients/{id}/payouts → 201 `{ payout }`: `value` BRL, the whole balance without it. */
    payout: (id: string, body: BodyOf<"postRecipientsIdPayouts"> = {}, opts?: RequestOptions) =>
      ops.payRecipient(this.transport, { params: { id }, body }, opts),
    /** GET /recipients/{id}/payouts/{payoutId}: one payout (asked for, or automatic with `scheduleSlot`) and its state. */
    getPayout: (id: string, payoutId: string, opts?: RequestOptions) =>
      ops.getRecipientPayout(this.transport, { params: { id, payoutId } }, opts),
  };

  /** On-chain stablecoin deposits and withdrawals. */
  readonly onchain = {
    /** POST /onchain/deposit (`value` BRL) → 201 `{ order: { address, amount, … } }`; `amount` is tokens. */
    createDeposit: (body: BodyOf<"postOnchainDeposit">, opts?: RequestOptions) =>
      ops.createDeposit(this.transport, { body }, opts),
    /** GET /onchain/order/{paymentLinkId}. An unknown id is a BadRequestError (400), as the API has it. */
    getDeposit: (paymentLinkId: string, opts?: RequestOptions) =>
      ops.getDeposit(this.transport, { params: { id: paymentLinkId } }, opts),
    /** POST /onchain/withdraw/initiate (value in BRL; needs the withdrawals scope). */
    withdraw: (body: BodyOf<"postOnchainWithdrawInitiate">, opts?: RequestOptions) =>
      ops.withdrawOnchain(this.transport, { body }, opts),
  };

  /** Pay a PIX QR code with crypto. */
  readonly cryptoPix = {
    /** POST /crypto-pix/onchain/pay → 201 `{ data: { payCryptoPixId, address, cryptoValue, … } }`: `value` BRL, `cryptoValue` tokens. */
    pay: (body: BodyOf<"postCryptoPixOnchainPay">, opts?: RequestOptions) =>
      ops.payCryptoPix(this.transport, { body }, opts),
    /** GET /crypto-pix/order/{payCryptoPixId}: the payment's top-level fields. */
    get: (payCryptoPixId: string, opts?: RequestOptions) =>
      ops.getCryptoPix(this.transport, { params: { id: payCryptoPixId } }, opts),
  };

  /** PIX withdrawals (value in centavos) and every withdrawal's tracking. */
  readonly withdrawals = {
    /**
     * POST /order/pix-out → 201 `{ message, amount, id, status }` (needs the withdrawals scope). The request's `value`
     * is integer **centavos** (2590 is R$ 25,90); the answer's `amount` is centavos and its `value` BRL.
     */
    pixOut: (body: BodyOf<"postOrderPixOut">, opts?: RequestOptions) => ops.pixOut(this.transport, { body }, opts),
    get: (id: string, opts?: RequestOptions) => ops.getWithdrawal(this.transport, { params: { id } }, opts),
    list: (query: QueryOf<"getWithdrawals"> = {}, opts?: RequestOptions) =>
      ops.listWithdrawals(this.transport, { query }, opts),
    iterate: (query: Omit<QueryOf<"getWithdrawals">, "cursor"> = {}, opts?: RequestOptions) =>
      new Paginator<Withdrawal>(async (cursor) => {
        const page = await ops.listWithdrawals(
          this.transport,
          { query: { ...query, cursor: cursor ?? undefined } },
          opts,
        );
        return { items: page.withdrawals, nextCursor: page.nextCursor };
      }),
  };

  readonly account = {
    /** GET /account: company, PIX key, balance in centavos (and what MED infractions hold out of it), withdrawal limits. */
    get: (opts?: RequestOptions) => ops.getAccount(this.transport, {}, opts),
    /** GET /account/settings → `{ settings: { receiptShowsSplits } }`. */
    settings: (opts?: RequestOptions) => ops.getAccountSettings(this.transport, {}, opts),
    /** PATCH /account/settings: only the fields sent change; each change is audited (needs the payments scope). */
    updateSettings: (body: BodyOf<"patchAccountSettings">, opts?: RequestOptions) =>
      ops.updateAccountSettings(this.transport, { body }, opts),
  };

  /** Webhook endpoints and their delivery log. Verify what they receive with verifyWebhook(). */
  readonly webhooks = {
    /** POST /webhooks → `{ webhook: { id, secret, … } }`: the secret is shown only in this answer. */
    create: (body: BodyOf<"postWebhooks">, opts?: RequestOptions) => ops.createWebhook(this.transport, { body }, opts),
    list: (opts?: RequestOptions) => ops.listWebhooks(this.transport, {}, opts),
    /** DELETE /webhooks/{id}. */
    delete: async (id: string, opts?: RequestOptions): Promise<void> => {
      await ops.deleteWebhook(this.transport, { params: { id } }, opts);
    },
    deliveries: (webhookId: string, query: QueryOf<"getWebhooksIdDeliveries"> = {}, opts?: RequestOptions) =>
      ops.listDeliveries(this.transport, { params: { id: webhookId }, query }, opts),
    iterateDeliveries: (
      webhookId: string,
      query: Omit<QueryOf<"getWebhooksIdDeliveries">, "cursor"> = {},
      opts?: RequestOptions,
    ) =>
      new Paginator<WebhookDelivery>(async (cursor) => {
        const page = await ops.listDeliveries(
          this.transport,
          { params: { id: webhookId }, query: { ...query, cursor: cursor ?? undefined } },
          opts,
        );
        return { items: page.deliveries, nextCursor: page.nextCursor };
      }),
    /** POST …/redeliver: the same event again, same webhook-id. */
    redeliver: (webhookId: string, deliveryId: string, opts?: RequestOptions) =>
      ops.redeliver(this.transport, { params: { id: webhookId, deliveryId } }, opts),
  };

  /** The event log, oldest first: the same objects webhooks deliver, for reconciliation. */
  readonly events = {
    list: (query: QueryOf<"getEvents"> = {}, opts?: RequestOptions) => ops.listEvents(this.transport, { query }, opts),
    /**
     * Every event after `after` (a cursor you stored; from the start without one) until caught up.
     * Store the paginator's `cursor` when done and pass it next time: nothing is skipped or repeated.
     */
    iterate: (query: Omit<QueryOf<"getEvents">, "after"> & { after?: string | null } = {}, opts?: RequestOptions) =>
      new Paginator<EventListItem>(async (cursor) => {
        const page = await ops.listEvents(
          this.transport,
          { query: { limit: query.limit, after: cursor ?? undefined } },
          opts,
        );
        return { items: page.events, nextCursor: page.nextCursor, hasMore: page.hasMore };
      }, query.after ?? null),
  };

  /** What a payer sees (no key needed; sent with yours anyway, harmlessly). */
  readonly public = {
    payment: (paymentLinkId: string, opts?: RequestOptions) =>
      ops.publicPayment(this.transport, { params: { paymentLinkId } }, opts),
    cryptoPix: (payCryptoPixId: string, opts?: RequestOptions) =>
      ops.publicCryptoPix(this.transport, { params: { payCryptoPixId } }, opts),
    /** A payment link as its payer sees it (by the last part of its `url`). */
    paymentLink: (slug: string, opts?: RequestOptions) =>
      ops.publicPaymentLink(this.transport, { params: { slug } }, opts),
    /** Buys from a payment link as its payer would: their own order of `rail`; its page is `order.link`. */
    buyFromLink: (slug: string, body: BodyOf<"postPublicPaymentLinksSlugOrders">, opts?: RequestOptions) =>
      ops.buyFromLink(this.transport, { params: { slug }, body }, opts),
    /** A payment link's QR code image (PNG bytes), for a shop's counter. */
    paymentLinkQrPng: (slug: string, opts?: RequestOptions) =>
      this.transport.request<Uint8Array>(
        {
          operation: "getPublicPaymentLinksSlugQrPng",
          method: "GET",
          path: "/api/v1/public/payment-links/{slug}/qr.png",
          params: { slug },
          repeatable: "safe",
          binary: true,
        },
        opts,
      ),
    /** The URL of the order's QR code image (PNG), to put in an <img>: no request is made. */
    qrCodeUrl: (paymentLinkId: string) =>
      this.transport.url("/api/v1/public/payments/{paymentLinkId}/qr.png", { paymentLinkId }),
    /** The QR code image itself (PNG bytes). */
    qrCodePng: (paymentLinkId: string, opts?: RequestOptions) =>
      this.transport.request<Uint8Array>(
        {
          operation: "getPublicPaymentsPaymentLinkIdQrPng",
          method: "GET",
          path: "/api/v1/public/payments/{paymentLinkId}/qr.png",
          params: { paymentLinkId },
          repeatable: "safe",
          binary: true,
        },
        opts,
      ),
  };
}
