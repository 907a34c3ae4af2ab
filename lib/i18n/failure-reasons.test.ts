import { describe, expect, it } from "vitest";
import { isMessageKey, translator } from "./index";
import { describeFailure, FAILURE_CODES, failureCode } from "./failure-reasons";

const t = translator("pt-BR");

describe("failure reasons", () => {
  it("gives each reason the services store its code", () => {
    const stored: [string, string][] = [
      ["Recipient bank rejected the transfer (sandbox failing key)", "pix.recipientRejected"],
      ["the PSP did not make the PIX (NAO_REALIZADO, ERR_KEY: chave inexistente)", "pix.notMade"],
      ["PIX payout not made", "pix.notMade"],
      ["refused by the PIX payout provider: HTTP 422", "pix.refused"],
      ["refused by the sandbox (reason: sandbox-fail)", "refund.sandbox"],
      ["the PSP did not make the refund (NAO_REALIZADO)", "refund.notMade"],
      ["the provider did not make the refund", "refund.notMade"],
      ["refused by the PIX provider: Devolução inválida", "refund.notMade"],
      ["Binance Pay did not make the refund (REFUND_FAIL)", "refund.binance"],
      ["Binance Pay refused to refund: 400201 order not found", "refund.binance"],
      ["transaction reverted on-chain", "chain.reverted"],
      ["cancelled: a zero-value transaction at its nonce was mined instead", "chain.cancelled"],
      ["another transaction used its nonce (sent outside this service)", "chain.nonceTaken"],
      [
        "Lightning payment refused: the node did not say when its HTLC expires; the invoice is cancelled",
        "lightning.tooLittleTime",
      ],
      ["expired with no payment", "cryptoPix.expired"],
      ["refund failed: insufficient funds for gas * price + value", "cryptoPix.refundFailed"],
      [
        "hot wallet short on polygon: USDT (holds 1; this transfer needs 5); waiting for a top-up",
        "hotWallet.waitingTopUp",
      ],
      ["something the table has never seen", "unknown"],
    ];
    expect(stored.map(([reason]) => failureCode(reason))).toEqual(stored.map(([, code]) => code));
  });

  it("has a sentence in the catalogs for every code, and keeps the stored text as data", () => {
    for (const code of FAILURE_CODES) expect(isMessageKey(`failure.${code}`)).toBe(true);
    expect(describeFailure(t, "transaction reverted on-chain")).toEqual({
      code: "chain.reverted",
      text: "A transação foi revertida na rede; a taxa de rede foi gasta.",
      raw: "transaction reverted on-chain",
    });
    expect(describeFailure(t, "weird").text).toBe(t("failure.unknown"));
  });
});
