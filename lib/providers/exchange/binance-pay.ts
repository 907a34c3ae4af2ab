import { createHmac, createVerify, randomInt } from "node:crypto";
import { env, publicBaseUrl } from "@/lib/env";
import { InvalidInput, UpstreamUnavailable } from "@/lib/errors";
import { log } from "@/lib/log";
import { Decimal } from "@/lib/money";
import { secret } from "@/lib/secrets";
import { processSingleton } from "@/lib/singleton";
import { requestText, UpstreamHttpError } from "../http/client";
import type { SendAnswer } from "../outcome";
import type { RefundState } from "../refund/types";
import { CertificateCache, CertificatesUnavailable, type Certificate } from "./certificate-cache";
import type {
  ExchangeNotification,
  ExchangeOrderRecord,
  ExchangePayment,
  ExchangePaymentState,
  ExchangeRefundRecord,
  ExchangeWalletProvider,
} from "./types";

// Exchange-wallet orders through Binance Pay's merchant API (docs/providers.md#exchange-wallet-binance-pay):
//   POST /binancepay/openapi/v3/order            create, with fiatAmount + fiatCurrency "BRL"
//   POST /binancepay/openapi/v2/order/query      read by merchantTradeNo (ours: the payment link id)
//   POST /binancepay/openapi/order/close         close at expiry
//   POST /binancepay/openapi/order/refund        refund (refundRequestId ours), read with …/refund/query
//   POST /binancepay/openapi/certificates        the key notifications are signed with
// Reconciliation reads the same order and refund queries by our ids: the merchant API has no list of
// orders (only a report download for whitelisted merchants), so what Binance has is asked one by one.
// Every request is signed: BinancePay-Signature = upper-case hex HMAC-SHA512(secret, ts\nnonce\nbody\n)
// over the exact bytes sent. Binance's ids exceed 2^53: they are kept as the strings Binance sends,
// and a notification's bizId (a bare JSON number) is never read; its bizIdStr is.

export const BINANCE_PAY_PROVIDER = "binance-pay";

const PATHS = {
  create: "/binancepay/openapi/v3/order",
  query: "/binancepay/openapi/v2/order/query",
  close: "/binancepay/openapi/order/close",
  refund: "/binancepay/openapi/order/refund",
  refundQuery: "/binancepay/openapi/order/refund/query",
  certificates: "/binancepay/openapi/certificates",
} as const;

type Json = Record<string, unknown>;
/** A FAIL answer: Binance refused the request (its code and message). */
class BinanceRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const NONCE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function nonce(): string {
  let s = "";
  for (let i = 0; i < 32; i++) s += NONCE_CHARS[randomInt(NONCE_CHARS.length)];
  return s;
}

function config() {
  const e = env();
  return {
    base: e.BINANCE_PAY_URL.replace(/\/+$/, ""),
    key: e.BINANCE_PAY_API_KEY!,
    secret: secret("BINANCE_PAY_SECRET_KEY", e.BINANCE_PAY_SECRET_KEY, e.BINANCE_PAY_SECRET_KEY_FILE)!,
    timeoutMs: e.BINANCE_PAY_TIMEOUT_MS,
  };
}

/** One signed call; `data` of a SUCCESS answer. Retries only where a repeat is harmless (every call here is keyed by an id of ours). */
async function call(path: string, body: Json, what: string, retries = 2): Promise<unknown> {
  const { base, key, secret: secretKey, timeoutMs } = config();
  const text = JSON.stringify(body);
  let answer: string;
  try {
    answer = await requestText(`${base}${path}`, {
      method: "POST",
      // Signed again on every retry: the timestamp and nonce are part of what is signed.
      headers: () => {
        const ts = String(Date.now());
        const n = nonce();
        const signature = createHmac("sha512", secretKey).update(`${ts}\n${n}\n${text}\n`).digest("hex").toUpperCase();
        return {
          "content-type": "application/json",
          "BinancePay-Timestamp": ts,
          "BinancePay-Nonce": n,
          "BinancePay-Certificate-SN": key,
          "BinancePay-Signature": signature,
        };
      },
      body: text,
      timeoutMs,
      retries,
      // A FAIL is a decided answer, whatever its HTTP status; a 429 never is (it is retried after its Retry-After).
      acceptBody: (status, raw) => status < 500 && status !== 429 && /"status"\s*:\s*"(SUCCESS|FAIL)"/.test(raw),
    });
  } catch (err) {
    throw new UpstreamUnavailable(
      `Binance Pay unavailable (${what}): ${err instanceof UpstreamHttpError ? err.message : String(err)}`,
    );
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(answer) as Json;
  } catch {
    throw new UpstreamUnavailable(`Binance Pay answered ${what} with something that is not JSON`);
  }
  if (parsed.status === "SUCCESS") return parsed.data;
  throw new BinanceRefusal(
    String(parsed.code ?? "?"),
    `Binance Pay refused to ${what}: ${String(parsed.code ?? "?")} ${String(parsed.errorMessage ?? "")}`.trim(),
  );
}

const toDate = (ms: unknown) => (typeof ms === "number" && ms > 0 ? new Date(ms) : null);

function stateOf(d: Json): ExchangePaymentState {
  switch (d.status) {
    case "PAID":
    case "REFUNDING":
    case "REFUNDED":
    case "FULL_REFUNDED":
      return {
        status: "paid",
        paidAt: toDate(d.transactTime),
        paymentRef: typeof d.transactionId === "string" ? d.transactionId : String(d.prepayId),
      };
    case "CANCELED":
    case "EXPIRED":
    case "ERROR":
      return { status: "closed", paidAt: null, paymentRef: null };
    default:
      return { status: "pending", paidAt: null, paymentRef: null };
  }
}

/**
 * The keys notifications are signed with, by serial, for the configured Binance account: fetched again
 * for a serial not known, within the bounds of ./certificate-cache.ts (the serial is the sender's choice).
 */
export function binancePayCertificates(): CertificateCache {
  const { base, key } = config();
  return processSingleton(
    `binance-pay-certificates:${base}:${key}`,
    () => new CertificateCache({ fetch: listCertificates }),
  );
}

async function listCertificates(): Promise<Certificate[]> {
  const data = await call(PATHS.certificates, {}, "list its certificates");
  const list: Certificate[] = [];
  for (const c of Array.isArray(data) ? (data as Json[]) : []) {
    if (typeof c.certSerial === "string" && typeof c.certPublic === "string")
      list.push({ serial: c.certSerial, publicKey: c.certPublic });
  }
  return list;
}

/** A refusal of the order itself (a value Binance does not take, …) is the create endpoint's 400, naming Binance's answer. */
async function createOrder({
  valueCentavos,
  paymentLinkId,
  expiresAt,
  description,
}: {
  valueCentavos: number;
  paymentLinkId: string;
  expiresAt: Date;
  description: string;
}) {
  return call(
    PATHS.create,
    {
      env: { terminalType: "WEB" },
      merchantTradeNo: paymentLinkId,
      fiatAmount: Number(new Decimal(valueCentavos).div(100).toFixed(2)),
      fiatCurrency: "BRL",
      description: plainText(description, 256),
      goodsDetails: [
        {
          goodsType: "02",
          goodsCategory: "Z000",
          referenceGoodsId: paymentLinkId,
          goodsName: plainText(description, 256),
        },
      ],
      orderExpireTime: expiresAt.getTime(),
      webhookUrl: `${publicBaseUrl()}/api/v1/providers/binance-pay/webhook`,
    },
    "create the order",
  );
}

/** api-common's 400201 INVALID_MERCHANT_TRADE_NO: "merchantTradeNo is invalid or duplicated". */
const DUPLICATE_TRADE_NO = "400201";
/** api-order-close: the order "is not applicable to close as it was paid or has any payment activity on the way". */
const PAYMENT_ON_THE_WAY = "400204";
const UNPAID = new Set(["INITIAL", "PENDING"]);
const NOT_PAYABLE = new Set(["CANCELED", "EXPIRED", "ERROR"]);

/**
 * A create refused with 400201 although its merchantTradeNo is a payment link id made for this create
 * alone. Either Binance refused the id itself, or an earlier attempt of this same call made the order
 * and its answer was lost (call() repeats a create after a timeout, a dropped connection or a 5xx), and
 * Binance refuses every repeat, however alike. The order is read by merchantTradeNo to tell which.
 *
 * Found, it cannot be handed back as created: the query (api-order-query-v2) answers prepayId, status,
 * currency, orderAmount and times, but nothing a payer pays with (no qrcodeLink, qrContent, checkoutUrl,
 * deeplink or universalUrl), and no other call gives them again. So an unpaid one is closed at Binance,
 * where nobody could pay an order we do not keep, and the create fails saying a new one is safe. One
 * with payment activity (which needs its QR, so should never happen) is kept as created, without links:
 * its payment is then read like any other, and nothing paid is dropped.
 */
async function recoverDuplicate(
  paymentLinkId: string,
  payLink: string,
  refusal: BinanceRefusal,
): Promise<ExchangePayment> {
  let order: Json;
  try {
    order = (await call(
      PATHS.query,
      { merchantTradeNo: paymentLinkId },
      "read the order it refused as a duplicate",
    )) as Json;
  } catch (err) {
    // Binance has no such order: it refused the id itself, as it may refuse anything in a create.
    if (err instanceof BinanceRefusal) throw new InvalidInput(refusal.message);
    throw err;
  }
  if (order?.merchantTradeNo !== paymentLinkId || typeof order.prepayId !== "string")
    throw new InvalidInput(refusal.message);
  const status = String(order.status);
  let paying = !UNPAID.has(status) && !NOT_PAYABLE.has(status);
  if (UNPAID.has(status)) {
    try {
      await call(
        PATHS.close,
        { merchantTradeNo: paymentLinkId },
        "close the order whose creation was answered to nobody",
      );
    } catch (err) {
      if (!(err instanceof BinanceRefusal && err.code === PAYMENT_ON_THE_WAY)) throw err;
      paying = true;
    }
  }
  if (paying) {
    log.warn(
      "Binance Pay order whose creation answer was lost shows payment activity: kept as created, without its payment links",
      {
        merchantTradeNo: paymentLinkId,
        prepayId: order.prepayId,
        status,
      },
    );
    return { providerRef: order.prepayId, qrContent: payLink, links: {} };
  }
  throw new UpstreamUnavailable(
    "Binance Pay made the order but its answer was lost, and Binance refuses to create it again (400201); its query gives no QR code or payment link, so the order was closed at Binance and nothing was created: create the order again",
  );
}

/**
 * The refund a PAY_REFUND notification is about. refund-order-notification puts it in data.refundInfo,
 * an object in Binance's sample but typed "string" in its table: both are read. No Binance page puts
 * refundRequestId at the top of data.
 */
function refundRequestIdOf(data: Json): string | null {
  let info: unknown = data.refundInfo;
  if (typeof info === "string") {
    try {
      info = JSON.parse(info);
    } catch {
      return null;
    }
  }
  const id = info && typeof info === "object" ? (info as Json).refundRequestId : undefined;
  return typeof id === "string" ? id : null;
}

const REFUND_STATES: Record<string, RefundState["status"]> = {
  REFUND_SUCCESS: "COMPLETED",
  REFUND_FAIL: "FAILED",
  REFUND_PENDING: "PROCESSING",
};

/** A description Binance accepts: no backslash, quote or emoji, at most 256 characters. */
const plainText = (s: string, max: number) =>
  s
    .replace(/[\\"\p{Extended_Pictographic}]/gu, "")
    .slice(0, max)
    .trim() || "Pedido";

export const binancePay: ExchangeWalletProvider = {
  name: BINANCE_PAY_PROVIDER,

  async createPayment({ valueCentavos, paymentLinkId, payLink, expiresAt, description }) {
    let data: Json;
    try {
      data = (await createOrder({ valueCentavos, paymentLinkId, expiresAt, description })) as Json;
    } catch (err) {
      if (err instanceof BinanceRefusal && err.code === DUPLICATE_TRADE_NO)
        return recoverDuplicate(paymentLinkId, payLink, err);
      if (err instanceof BinanceRefusal) throw new InvalidInput(err.message);
      throw err;
    }
    if (typeof data?.prepayId !== "string" || typeof data.qrcodeLink !== "string")
      throw new UpstreamUnavailable("Binance Pay answered the order without its prepayId or qrcodeLink");
    const links: Record<string, string> = {};
    for (const k of ["qrcodeLink", "qrContent", "checkoutUrl", "deeplink", "universalUrl"] as const)
      if (typeof data[k] === "string") links[k] = data[k];
    return {
      providerRef: data.prepayId,
      qrContent: typeof data.qrContent === "string" ? data.qrContent : data.qrcodeLink,
      links,
    };
  },

  async readPayment({ merchantTradeNo }) {
    try {
      return stateOf((await call(PATHS.query, { merchantTradeNo }, "read the order")) as Json);
    } catch (err) {
      if (err instanceof BinanceRefusal && err.code === "400202")
        return { status: "closed", paidAt: null, paymentRef: null };
      throw err;
    }
  },

  async readOrderRecord(merchantTradeNo): Promise<ExchangeOrderRecord | null> {
    let d: Json;
    try {
      d = (await call(PATHS.query, { merchantTradeNo }, "read the order")) as Json;
    } catch (err) {
      if (err instanceof BinanceRefusal && err.code === "400202") return null;
      throw err;
    }
    if (typeof d.status !== "string" || (typeof d.orderAmount !== "string" && typeof d.orderAmount !== "number"))
      throw new UpstreamUnavailable("Binance Pay answered the order without its status or amount");
    return {
      status: d.status,
      orderAmount: String(d.orderAmount),
      currency: String(d.currency ?? ""),
      paidAt: toDate(d.transactTime),
      createdAt: toDate(d.createTime),
    };
  },

  async readRefundRecord(refundId): Promise<ExchangeRefundRecord | null> {
    let d: Json;
    try {
      d = (await call(PATHS.refundQuery, { refundRequestId: refundId }, "read the refund")) as Json;
    } catch (err) {
      if (err instanceof BinanceRefusal && err.code === "400202") return null;
      throw err;
    }
    const status = d.refundStatus ?? d.status;
    if (typeof status !== "string" || d.refundAmount === undefined || d.orderAmount === undefined)
      throw new UpstreamUnavailable("Binance Pay answered the refund without its status or amounts");
    return { status, refundAmount: String(d.refundAmount), orderAmount: String(d.orderAmount) };
  },

  async closePayment({ merchantTradeNo }) {
    try {
      await call(PATHS.close, { merchantTradeNo }, "close the order");
      return "closed";
    } catch (err) {
      if (!(err instanceof BinanceRefusal)) throw err;
      // Refused: paid meanwhile, or unknown. The order itself says which.
      const state = await this.readPayment!({ merchantTradeNo, providerRef: "" });
      return state.status === "paid" ? "paid" : "gone";
    }
  },

  async verifyNotification(headers, rawBody): Promise<ExchangeNotification | null> {
    const ts = headers.get("binancepay-timestamp");
    const n = headers.get("binancepay-nonce");
    const serial = headers.get("binancepay-certificate-sn");
    const signature = headers.get("binancepay-signature");
    if (!ts || !n || !serial || !signature) return null;
    let key: string | null;
    try {
      key = await binancePayCertificates().publicKey(serial);
    } catch (err) {
      // Binance could not be asked for its keys: whether the notification is genuine is not known yet.
      if (err instanceof CertificatesUnavailable || err instanceof UpstreamUnavailable)
        throw new UpstreamUnavailable("Binance Pay's notification keys could not be read");
      throw err;
    }
    if (!key) return null;
    let valid = false;
    try {
      valid = createVerify("RSA-SHA256").update(`${ts}\n${n}\n${rawBody}\n`).verify(key, signature, "base64");
    } catch {
      valid = false;
    }
    if (!valid) return null;
    // Parsed only once verified; bizId is a bare number above 2^53, so only bizIdStr is used.
    let body: Json;
    try {
      body = JSON.parse(rawBody) as Json;
    } catch {
      return null;
    }
    let data: Json = {};
    try {
      data = typeof body.data === "string" ? (JSON.parse(body.data) as Json) : {};
    } catch {
      data = {};
    }
    const merchantTradeNo = typeof data.merchantTradeNo === "string" ? data.merchantTradeNo : null;
    return {
      kind: String(body.bizType ?? ""),
      status: String(body.bizStatus ?? ""),
      id: String(body.bizIdStr ?? ""),
      merchantTradeNo,
      refundRequestId: refundRequestIdOf(data),
    };
  },

  async refund({ id, paymentRef, valueCentavos, orderValueCentavos, reason }): Promise<SendAnswer> {
    // Binance refunds in the order's own currency (USDT for a BRL order): the same share of it.
    let order: Json;
    try {
      order = (await call(PATHS.query, { prepayId: paymentRef }, "read the order to refund")) as Json;
    } catch (err) {
      if (err instanceof BinanceRefusal) return { status: "REFUSED", reason: err.message };
      throw err;
    }
    const total = new Decimal(String(order.orderAmount));
    const share =
      orderValueCentavos && valueCentavos < orderValueCentavos
        ? total.times(valueCentavos).div(orderValueCentavos).toDecimalPlaces(8, Decimal.ROUND_DOWN)
        : total;
    try {
      // Sent once: after a lost answer Binance may refuse the repeat (the order already refunded, the
      // amount now beyond what is left) although the first was made; the refund machine reads it back.
      await call(
        PATHS.refund,
        {
          refundRequestId: id,
          prepayId: paymentRef,
          refundAmount: share.toFixed(8),
          ...(reason ? { refundReason: plainText(reason, 256) } : {}),
        },
        "refund the order",
        0,
      );
    } catch (err) {
      // Refused (beyond what is left, too many refunds, …): lib/providers/outcome judges what that means.
      if (err instanceof BinanceRefusal) return { status: "REFUSED", reason: err.message };
      throw err;
    }
    // Accepted: Binance refunds asynchronously; its state is read back.
    return (await this.readRefund({ id, paymentRef })) ?? { status: "PROCESSING" };
  },

  async readRefund({ id }) {
    let data: Json;
    try {
      data = (await call(PATHS.refundQuery, { refundRequestId: id }, "read the refund")) as Json;
    } catch (err) {
      if (err instanceof BinanceRefusal && err.code === "400202") return null;
      throw err;
    }
    const status = REFUND_STATES[String(data.refundStatus ?? data.status)];
    if (!status)
      throw new UpstreamUnavailable(
        `Binance Pay answered the refund with a status we do not know: ${String(data.refundStatus ?? data.status)}`,
      );
    return status === "FAILED" ? { status, reason: "Binance Pay did not make the refund (REFUND_FAIL)" } : { status };
  },
};
