import type { PixCrypto } from "./client.js";
import { PixCryptoError } from "./errors.js";
import type { RequestOptions } from "./transport.js";
import type { BodyOf, ResultOf } from "./types.js";

// The sandbox's test helpers (PAYMENTS_MODE=sandbox servers only; 404 in live mode): play the payer.
// Kept out of the client so production code never reaches them by accident; a live key is refused here
// before anything is sent.

export type Sandbox = {
  /** POST /sandbox/orders/{id}/pay: a PENDING PIX, exchange-wallet or Lightning order becomes COMPLETED. */
  payOrder(id: string, opts?: RequestOptions): Promise<ResultOf<"postSandboxOrdersIdPay">>;
  /** POST /sandbox/invoices/{id}/pay: the payer pays an OPEN invoice on `date` (YYYY-MM-DD, default today): that day's amount due. */
  payInvoice(
    id: string,
    body?: BodyOf<"postSandboxInvoicesIdPay">,
    opts?: RequestOptions,
  ): Promise<ResultOf<"postSandboxInvoicesIdPay">>;
  /** POST /sandbox/subscriptions/{id}/authorize: the payer authorises (journey 3: and pays cycle 0). */
  authoriseSubscription(id: string, opts?: RequestOptions): Promise<ResultOf<"postSandboxSubscriptionsIdAuthorize">>;
  /** POST /sandbox/subscriptions/{id}/payer-cancel: the payer cancels at the bank. */
  cancelSubscriptionAsPayer(
    id: string,
    opts?: RequestOptions,
  ): Promise<ResultOf<"postSandboxSubscriptionsIdPayerCancel">>;
  /** POST /sandbox/subscriptions/{id}/cycles/{cycle}/pay: the cycle's scheduled attempt is debited. */
  payCycle(
    id: string,
    cycle: number,
    opts?: RequestOptions,
  ): Promise<ResultOf<"postSandboxSubscriptionsIdCyclesCyclePay">>;
  /** POST /sandbox/subscriptions/{id}/cycles/{cycle}/fail: the attempt is rejected (`final`: the charge itself). */
  failCycle(
    id: string,
    cycle: number,
    body?: BodyOf<"postSandboxSubscriptionsIdCyclesCycleFail">,
    opts?: RequestOptions,
  ): Promise<ResultOf<"postSandboxSubscriptionsIdCyclesCycleFail">>;
  /** POST /sandbox/onchain/{paymentLinkId}/transfer: a confirmed token transfer to a deposit's address (`amount` in tokens, a decimal string). */
  transferToDeposit(
    paymentLinkId: string,
    body: BodyOf<"postSandboxOnchainPaymentLinkIdTransfer">,
    opts?: RequestOptions,
  ): Promise<ResultOf<"postSandboxOnchainPaymentLinkIdTransfer">>;
  /** POST /sandbox/crypto-pix/{payCryptoPixId}/transfer: the same for a Crypto-PIX payment; `failPix: true` makes its PIX fail. */
  transferToCryptoPix(
    payCryptoPixId: string,
    body: BodyOf<"postSandboxCryptoPixPayCryptoPixIdTransfer">,
    opts?: RequestOptions,
  ): Promise<ResultOf<"postSandboxCryptoPixPayCryptoPixIdTransfer">>;
};

export function sandbox(client: PixCrypto): Sandbox {
  if (!client.apiKey.startsWith("sk_test_"))
    throw new PixCryptoError("The sandbox helpers take a sandbox key (sk_test_…)");
  const t = client.transport;
  return {
    payOrder: (id, opts) =>
      t.request(
        {
          operation: "postSandboxOrdersIdPay",
          method: "POST",
          path: "/api/v1/sandbox/orders/{id}/pay",
          params: { id },
          repeatable: "idempotency-key",
        },
        opts,
      ),
    payInvoice: (id, body = {}, opts) =>
      t.request(
        {
          operation: "postSandboxInvoicesIdPay",
          method: "POST",
          path: "/api/v1/sandbox/invoices/{id}/pay",
          params: { id },
          body,
          repeatable: "idempotency-key",
        },
        opts,
      ),
    authoriseSubscription: (id, opts) =>
      t.request(
        {
          operation: "postSandboxSubscriptionsIdAuthorize",
          method: "POST",
          path: "/api/v1/sandbox/subscriptions/{id}/authorize",
          params: { id },
          repeatable: "idempotency-key",
        },
        opts,
      ),
    cancelSubscriptionAsPayer: (id, opts) =>
      t.request(
        {
          operation: "postSandboxSubscriptionsIdPayerCancel",
          method: "POST",
          path: "/api/v1/sandbox/subscriptions/{id}/payer-cancel",
          params: { id },
          repeatable: "idempotency-key",
        },
        opts,
      ),
    payCycle: (id, cycle, opts) =>
      t.request(
        {
          operation: "postSandboxSubscriptionsIdCyclesCyclePay",
          method: "POST",
          path: "/api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/pay",
          params: { id, cycle: String(cycle) },
          repeatable: "idempotency-key",
        },
        opts,
      ),
    failCycle: (id, cycle, body = {}, opts) =>
      t.request(
        {
          operation: "postSandboxSubscriptionsIdCyclesCycleFail",
          method: "POST",
          path: "/api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/fail",
          params: { id, cycle: String(cycle) },
          body,
          repeatable: "idempotency-key",
        },
        opts,
      ),
    transferToDeposit: (paymentLinkId, body, opts) =>
      t.request(
        {
          operation: "postSandboxOnchainPaymentLinkIdTransfer",
          method: "POST",
          path: "/api/v1/sandbox/onchain/{paymentLinkId}/transfer",
          params: { paymentLinkId },
          body,
          repeatable: "idempotency-key",
        },
        opts,
      ),
    transferToCryptoPix: (payCryptoPixId, body, opts) =>
      t.request(
        {
          operation: "postSandboxCryptoPixPayCryptoPixIdTransfer",
          method: "POST",
          path: "/api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer",
          params: { payCryptoPixId },
          body,
          repeatable: "idempotency-key",
        },
        opts,
      ),
  };
}
