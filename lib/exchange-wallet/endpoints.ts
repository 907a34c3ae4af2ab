import { z } from "zod";
import { db } from "@/db";
import { UpstreamUnavailable } from "@/lib/errors";
import { defineEndpoint } from "@/lib/http/endpoint";
import { readBodyText } from "@/lib/http/body";
import { messageBody } from "@/lib/http/error-body";
import { providerCallback } from "@/lib/http/provider-caller";
import { log } from "@/lib/log";
import { orderByLink } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { BINANCE_PAY_PROVIDER } from "@/lib/providers/exchange/binance-pay";
import { followRefund } from "@/lib/refunds/machine";
import { confirmExchangeOrder } from "./confirm";

// Binance Pay's notifications (docs/providers.md#exchange-wallet-binance-pay): POST {PUBLIC_BASE_URL}/api/v1/providers/binance-pay/webhook.
// The RSA-SHA256 signature over timestamp\nnonce\nrawBody\n must verify against Binance's certificate
// (fetched by serial, within the bounds of lib/providers/exchange/certificate-cache.ts); then the order
// is read back and only what Binance answers is applied. A refund's notification wakes that refund's
// job. Binance retries until it gets {"returnCode":"SUCCESS","returnMessage":null}: when Binance itself
// cannot be asked (its keys, the order), the answer is 503 with nothing of Binance's own text, so it
// comes again. Limited per client address (lib/http/provider-caller.ts).

const ACK = { returnCode: "SUCCESS", returnMessage: null } as const;
const RETRY = "Temporarily unable to process the notification; retry later";

/** Our refund's id from the refundRequestId we gave Binance (its uuid without dashes). */
function refundIdOf(id: string | null): string | null {
  if (!id || !/^[0-9a-f]{32}$/.test(id)) return null;
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

export const binancePayNotificationEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/providers/binance-pay/webhook",
  caller: providerCallback("binance-pay"),
  errorBody: messageBody,
  unavailable: () =>
    providers().exchange.name === BINANCE_PAY_PROVIDER
      ? null
      : "Binance Pay is not this server's exchange-wallet provider",
  response: {
    status: 200,
    description: "Received (Binance's acknowledgement); the order is read back before anything counts",
    schema: z.strictObject({ returnCode: z.literal("SUCCESS"), returnMessage: z.null() }),
    example: ACK,
  },
  docs: {
    summary: "Binance Pay notification (for Binance Pay)",
    description:
      "Where Binance Pay reports an order paid or closed, or a refund settled (`webhookUrl` of every order). Refused unless the RSA-SHA256 signature verifies against Binance's certificate; then the order is read back and only what Binance answers is applied.",
    tag: "Provider callbacks",
    errors: [401, 404, 503],
    errorExamples: {
      401: { message: "Notification signature does not verify" },
      503: { message: RETRY },
    },
  },
  async handle({ req }) {
    const raw = await readBodyText(req);
    try {
      return await receive(req.headers, raw);
    } catch (err) {
      if (!(err instanceof UpstreamUnavailable)) throw err;
      log.warn("Binance Pay notification not processed: Binance could not be asked; it will retry", {
        err: err.message,
      });
      return Response.json(messageBody(503, RETRY), { status: 503 });
    }
  },
});

async function receive(headers: Pick<Headers, "get">, raw: string): Promise<typeof ACK | Response> {
  const exchange = providers().exchange;
  const notice = exchange.verifyNotification ? await exchange.verifyNotification(headers, raw) : null;
  if (!notice) {
    log.warn("Binance Pay notification refused: its signature does not verify");
    return Response.json({ returnCode: "FAIL", returnMessage: "signature does not verify" }, { status: 401 });
  }
  const refundId = refundIdOf(notice.refundRequestId);
  if (notice.kind === "PAY_REFUND" && refundId) {
    await followRefund(refundId);
    return ACK;
  }
  const order = notice.merchantTradeNo ? await orderByLink(db(), notice.merchantTradeNo) : undefined;
  if (!order || order.provider !== exchange.name) {
    log.warn("Binance Pay notification for no order of ours", {
      merchantTradeNo: notice.merchantTradeNo,
      bizIdStr: notice.id,
    });
    return ACK;
  }
  // PAY_SUCCESS is read back and applied; PAY_CLOSED needs nothing: expiry cancels the order here.
  if (notice.status === "PAY_SUCCESS") await confirmExchangeOrder(order, "notification");
  return ACK;
}

export const EXCHANGE_WALLET_ENDPOINTS = [binancePayNotificationEndpoint];
