import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type {
  CryptoPixPayment,
  Deposit,
  Invoice,
  Order,
  Refund,
  Recipient,
  RecipientPayout,
  SplitPart,
  Subscription,
  SubscriptionCycle,
  Withdrawal,
} from "./types.js";

// Webhook deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp,
// webhook-signature: v1,<base64 HMAC-SHA256>). The check is the `standardwebhooks` package's, the
// specification's own library: constant-time comparison, several signatures per header, a 5-minute
// timestamp tolerance against replays. What this module adds: taking the body and headers as Node's
// http server, Express (raw body) or a fetch Request give them, and typing the event by its `type`.
//
// The payload is parsed with JSON.parse and nothing else: ids and amounts arrive exactly as the API
// sends them (a UUID or a `satoshis` string stays a string, a BRL `value` a number).

export { WebhookVerificationError };

type Status<T extends { status: unknown }> = T["status"];

/** Why money was recorded on an object without being applied to it. */
export type UnappliedReason = "overpayment" | "after_final" | "wrong_token" | "wrong_network";

/** Each event type and its `data`, as docs/webhooks.md ("Payload per type") describes them. */
export type WebhookEventData = {
  "order.status_changed": Order & { previousStatus: Status<Order> | null };
  /** A payment that reached an order but could not complete it: a PIX (`endToEndId`) or another provider's payment (`paymentRef`). */
  "order.funds_unapplied": Order & {
    unappliedValue?: number;
    endToEndId?: string;
    paymentRef?: string;
    paidAt: string;
    reason: "wrong_value" | "order_not_pending" | "after_expiry" | (string & {});
  };
  /** A received PIX returned by the payer's bank through the Central Bank's MED, without the merchant asking; the order keeps its status. */
  "order.disputed": Order & {
    dispute: {
      id: string;
      endToEndId: string;
      natureza: "MED_OPERACIONAL" | "MED_FRAUDE" | "MED_PIX_AUTOMATICO" | "ORIGINAL" | (string & {});
      value: number;
      status: "DEVOLVIDO";
      returnedAt: string;
    };
  };
  /** A MED infraction's disputed amount held out of the balance (HELD), given back when it closed without a return (RELEASED), or replaced by the devolução's debit (RETURNED). */
  "order.hold.status_changed": Order & {
    hold: {
      infractionId: string;
      endToEndId: string;
      value: number;
      status: "HELD" | "RELEASED" | "RETURNED";
      infractionStatus: string;
      deadline: string;
    };
  };
  /** A split order's (or deposit's) payment confirmed: each part credited to its recipient, the merchant `merchantValue`. */
  "order.split.credited": {
    orderId: string;
    orderType: "pix" | "exchange" | "lightning" | "onchain";
    paymentLinkId: string;
    creditedValue: number;
    merchantValue: number;
    splits: SplitPart[];
  };
  "refund.status_changed": Refund & { previousStatus: Status<Refund> | null; order: Order };
  "onchain.deposit.status_changed": Deposit & { previousStatus: Status<Deposit> | null };
  "onchain.deposit.funds_unapplied": Deposit & {
    unappliedAmount: number;
    txHash: string;
    reason: UnappliedReason;
    transferNetwork?: string;
    transferToken?: string;
  };
  /** The merchant accepted a transfer's unapplied tokens as payment (`value` BRL credited) or is returning them (`fee` kept, `to`, `txHash`). */
  "onchain.deposit.unapplied.status_changed": Deposit & {
    resolution: {
      id: string;
      kind: "accept" | "return";
      status: "PENDING" | "COMPLETED" | "FAILED";
      amount: number;
      value: number | null;
      fee: number | null;
      to: string | null;
      txHash: string | null;
      transferId: string;
      reason?: string;
    };
  };
  "crypto_pix.status_changed": CryptoPixPayment & { previousStatus: Status<CryptoPixPayment> | null };
  "crypto_pix.funds_unapplied": CryptoPixPayment & {
    unappliedAmount: number;
    txHash: string;
    reason: UnappliedReason;
    refunded: boolean;
  };
  "crypto_pix.refund.status_changed": CryptoPixPayment & {
    refund: {
      status: "PENDING" | "COMPLETED" | "FAILED";
      amount: number;
      to: string | null;
      txHash: string | null;
      transferId: string | null;
      reason?: string;
    };
  };
  "withdrawal.onchain.status_changed": Withdrawal & { previousStatus: Status<Withdrawal> | null };
  "withdrawal.pix_out.status_changed": Withdrawal & { previousStatus: Status<Withdrawal> | null };
  /** An invoice paid (`payment` says what was paid), expired, cancelled, or a batch's made (OPEN) or refused. */
  "invoice.status_changed": Invoice & { previousStatus: Status<Invoice> | null };
  /** A subscription authorised (ACTIVE), cancelled (by the merchant or the payer), rejected, expired or completed. */
  "subscription.status_changed": Subscription & { previousStatus: Status<Subscription> | null };
  /** A variable subscription's amount changed by the merchant: the cycles recorded from now on ask the new one. */
  "subscription.amount_changed": Subscription & { previousAmount: Subscription["amount"] };
  /** A cycle's charge created, scheduled at the PSP, retried, paid, failed or cancelled. */
  "subscription.charge.status_changed": SubscriptionCycle & {
    subscriptionId: string;
    previousStatus: Status<SubscriptionCycle> | null;
  };
  /** A recipient created. */
  "recipient.created": Recipient;
  /** A recipient edited: name, e-mail, reference, status, or a new (held) PIX key. */
  "recipient.updated": Recipient;
  /** A recipient's payout requested (PENDING), paid (COMPLETED) or not made (FAILED, credited back). */
  "recipient.payout.status_changed": RecipientPayout & { previousStatus: Status<RecipientPayout> | null };
  /** A due slot of a recipient's automatic schedule that paid nothing, once per reason; the slot stays due. */
  "recipient.payout.skipped": {
    recipientId: string;
    /** The São Paulo day the slot began (YYYY-MM-DD). */
    scheduleSlot: string;
    reason: "no_balance" | "below_minimum" | "key_held";
    /** BRL: the recipient's balance when the slot was looked at. */
    balance: number;
    /** BRL, or null when the schedule has no minimum. */
    minimumValue: number | null;
    createdAt: string;
  };
  /** Sent to one endpoint from the dashboard's "send test event": nothing happened; answer 2xx. */
  "webhook.test": { test: true; webhookId: string; url: string; message: string };
};

export type WebhookEventType = keyof WebhookEventData;

// A record, so that adding a type to WebhookEventData without listing it here does not compile.
const KNOWN: Record<WebhookEventType, true> = {
  "order.status_changed": true,
  "order.funds_unapplied": true,
  "order.disputed": true,
  "order.hold.status_changed": true,
  "order.split.credited": true,
  "refund.status_changed": true,
  "onchain.deposit.status_changed": true,
  "onchain.deposit.funds_unapplied": true,
  "onchain.deposit.unapplied.status_changed": true,
  "crypto_pix.status_changed": true,
  "crypto_pix.funds_unapplied": true,
  "crypto_pix.refund.status_changed": true,
  "withdrawal.onchain.status_changed": true,
  "withdrawal.pix_out.status_changed": true,
  "invoice.status_changed": true,
  "subscription.status_changed": true,
  "subscription.amount_changed": true,
  "subscription.charge.status_changed": true,
  "recipient.created": true,
  "recipient.updated": true,
  "recipient.payout.status_changed": true,
  "recipient.payout.skipped": true,
  "webhook.test": true,
};

/** Every event type this version of the SDK has a type for. */
export const WEBHOOK_EVENT_TYPES = Object.keys(KNOWN) as WebhookEventType[];

/**
 * A delivered event, narrowed by `type` (`switch (event.type)`). The API may add event types in a
 * minor version (docs/versioning.md): a handler should ignore a type it does not know.
 */
export type WebhookEvent = {
  [T in WebhookEventType]: { id: string; type: T; createdAt: string; data: WebhookEventData[T] };
}[WebhookEventType];

/** Headers as fetch (Headers), Node's http server (IncomingHttpHeaders) or a plain record give them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

/** The body exactly as received: the signature is over its bytes, never over a re-serialised object. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/**
 * Checks a delivery's signature and timestamp with the endpoint's secret (`whsec_…`, shown once when the
 * endpoint was created) and returns its event. Throws WebhookVerificationError when it is not ours,
 * altered, or older than 5 minutes: answer 400 then, and 2xx quickly otherwise. Deduplicate on
 * `event.id` (the webhook-id header): a delivery can arrive more than once.
 */
export function verifyWebhook(body: RawBody, headers: HeadersLike, secret: string): WebhookEvent {
  const payload = typeof body === "string" ? body : utf8(body);
  const event = new Webhook(secret).verify(payload, standardHeaders(headers));
  if (!isEvent(event)) throw new WebhookVerificationError("Signed payload is not an event");
  return event;
}

/** verifyWebhook for a fetch Request (Next.js route handlers, edge functions, Deno, Bun, Hono…). */
export async function verifyWebhookRequest(request: Request, secret: string): Promise<WebhookEvent> {
  return verifyWebhook(await request.text(), request.headers, secret);
}

function utf8(bytes: Uint8Array | ArrayBuffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new WebhookVerificationError("Body is not UTF-8");
  }
}

function standardHeaders(headers: HeadersLike): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value =
      headers instanceof Headers
        ? headers.get(name)
        : (headers[name] ?? headers[name.replace(/(^|-)\w/g, (c) => c.toUpperCase())]);
    // A repeated header is joined as Node joins it; standardwebhooks reads space-separated signatures.
    const joined = Array.isArray(value) ? value.join(" ") : value;
    if (typeof joined === "string") out[name] = joined;
  }
  return out;
}

function isEvent(value: unknown): value is WebhookEvent {
  if (!value || typeof value !== "object") return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.id === "string" &&
    typeof e.type === "string" &&
    typeof e.createdAt === "string" &&
    !!e.data &&
    typeof e.data === "object"
  );
}

/** The three headers a delivery carries, as `generateTestHeaders` makes them. */
export type WebhookHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * Signs `payload` with an endpoint's secret exactly as the API signs a delivery, so a receiver can be
 * unit-tested without a server (like stripe-node's `webhooks.generateTestHeaderString`). `timestamp`
 * defaults to now: verifyWebhook refuses one more than 5 minutes away.
 */
export function generateTestHeaders(options: {
  payload: string;
  secret: string;
  id?: string;
  timestamp?: Date;
}): WebhookHeaders {
  const id = options.id ?? `msg_test_${randomHex(12)}`;
  const at = options.timestamp ?? new Date();
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(options.secret).sign(id, at, options.payload),
  };
}

/**
 * A signed test delivery of one event: the JSON body (`{ id, type, createdAt, data }`, as the API sends it) and
 * its headers. Hand both to your receiver as a request would; `data` is whatever the test needs it to be.
 */
export function createTestWebhook<T extends WebhookEventType>(options: {
  type: T;
  data: WebhookEventData[T];
  secret: string;
  id?: string;
  timestamp?: Date;
}): { body: string; headers: WebhookHeaders; event: Extract<WebhookEvent, { type: T }> } {
  const id = options.id ?? `msg_test_${randomHex(12)}`;
  const at = options.timestamp ?? new Date();
  const event = { id, type: options.type, createdAt: at.toISOString(), data: options.data } as Extract<
    WebhookEvent,
    { type: T }
  >;
  const body = JSON.stringify(event);
  return { body, headers: generateTestHeaders({ payload: body, secret: options.secret, id, timestamp: at }), event };
}

function randomHex(bytes: number): string {
  const b = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
