import { describe, expect, it } from "vitest";
import {
  InsufficientBalance,
  InvalidInput,
  LimitExceeded,
  NotFound,
  UpstreamUnavailable,
  type ErrorCode,
  type ErrorValues,
} from "@/lib/errors";
import { FactorLocked } from "@/lib/identity/factor-attempts";
import { apiErrorMessage, wordError } from "./api-errors";

const nb = (s: string) => s.replace(/\s/g, " ");

// One refusal of every code, with values: a code added to lib/errors.ts without one here fails typecheck.
const SAMPLES: { [C in ErrorCode]: ErrorValues[C] } = {
  refused: {},
  notFound: {},
  upstream: {},
  "brcode.invalid": {},
  "brcode.noAmount": {},
  "brcode.contradicts": { value: 1000, codeValue: 1250 },
  "brcode.dynamic": {},
  "brcode.unpayable": {},
  "brcode.expiresSoon": { at: new Date("2026-03-02T15:00:00Z") },
  "asset.notSupported": {},
  "asset.notOnNetwork": { asset: "BUSD", network: "polygon" },
  "network.notSupported": {},
  "amount.belowMinimum": { min: "0.5", asset: "USDT", network: "eth" },
  "amount.aboveMax": { max: 100_000_000 },
  "amount.tooSmallForTokens": {},
  "rates.unavailable": {},
  "balance.insufficient": { debit: "refund", needed: 5025, balance: 1000 },
  "limit.perTransaction": { limit: 100_000, left: 40_000, daily: 500_000 },
  "limit.daily": { daily: 500_000, left: 12_000 },
  "pixKey.none": {},
  "pixKey.noneToCollect": {},
  "pixKey.invalid": {},
  "payoutKey.held": { until: new Date("2026-03-02T15:00:00Z") },
  "destination.held": { destination: "maria@example.com", until: new Date("2026-03-02T15:00:00Z") },
  "order.notPending": {},
  "recipient.documentTaken": {},
  "recipient.disabled": {},
  "recipient.pixKeyHeld": { until: new Date("2026-03-02T15:00:00Z") },
  "recipient.balanceInsufficient": { needed: 5000, balance: 1200 },
  "refund.exceeds": { left: 500, total: 2000 },
  "refund.nothingLeft": {},
  "refund.notCompleted": {},
  "refund.noReceipt": {},
  "refund.lightning": {},
  "refund.exchangeMax": { max: 10, left: 700 },
  "cryptoPix.lightningUnavailable": {},
  "cryptoPix.refundAddressLightning": {},
  "invoice.refusedByProvider": {
    reason: "Cobrança inválida. (cobv.devedor: O objeto cobv.devedor não respeita o schema.)",
  },
  "invoice.dueDatePast": { today: "2026-03-02" },
  "invoice.dueDateFar": { latest: "2031-03-03" },
  "invoice.discountDate": { dueDate: "2026-03-10" },
  "invoice.discountDatePast": { today: "2026-03-02" },
  "invoice.abatementTooLarge": {},
  "invoice.discountTooLarge": {},
  "invoice.amountTooSmall": { day: "2026-03-04" },
  "invoice.notOpen": { status: "PAID" },
  "invoice.alreadyPaid": {},
  "invoice.notPayableOn": { day: "2026-04-20", lastDay: "2026-04-10" },
  "invoice.payDayBeforeCreation": { created: "2026-03-02" },
  "subscription.refusedByProvider": {
    reason: "Recorrência inválida. (rec.vinculo: O objeto rec.vinculo não respeita o schema.)",
  },
  "subscription.firstDatePast": { earliest: "2026-03-04" },
  "subscription.lastDateBeforeFirst": {},
  "subscription.notCancellable": { status: "CANCELLED" },
  "subscription.notAuthorisable": { status: "ACTIVE" },
  "subscription.chargeNotOpen": { status: "PAID" },
  "webhook.max": { max: 10 },
  "webhook.hostUnresolved": { host: "hooks.example.invalid" },
  "webhook.privateAddress": {},
  "webhook.disabled": {},
  "apiKey.max": { max: 5 },
  "auth.emailTaken": {},
  "auth.tooManySignUps": {},
  "auth.signUpLinkInvalid": {},
  "auth.tooManyAttempts": {},
  "auth.resetInvalid": {},
  "auth.inviteInvalid": {},
  "security.factorLocked": { minutes: 4 },
  "security.wrongPassword": {},
  "security.wrongCode": {},
  "security.wrongEmailCode": {},
  "security.userGone": {},
  "security.twoFactorAlreadyOn": {},
  "security.enrollAgain": {},
  "security.linkInvalid": {},
  "security.confirmOwnFactor": {},
  "security.nothingToConfirm": {},
  "team.cannotManage": {},
  "team.alreadyMember": {},
  "team.lastOwner": {},
  "developers.scopeNotAllowed": {},
  "destinations.linkInvalid": {},
  "destinations.isPayoutKey": {},
  "destinations.exists": {},
  "destinations.gone": {},
  "destinations.incomplete": {},
  "disputes.error.length": {},
  "disputes.error.notFound": {},
  "disputes.error.alreadyDefended": {},
  "disputes.error.late": {},
  "disputes.error.closed": {},
  "developers.testEventWaiting": {},
  "unapplied.notResolvable": {},
  "unapplied.alreadyResolved": {},
  "unapplied.tooSmallToAccept": {},
  "unapplied.addressInvalid": {},
  "unapplied.feeAboveAmount": {},
  "withdrawals.notFound": {},
  "withdrawals.notWaiting": {},
  "unapplied.notWaiting": {},
  "destinations.inUse": {},
};

const GENERIC = ["refused", "notFound", "upstream"] as const;
const sample = <C extends ErrorCode>(code: C) => SAMPLES[code];

describe("service errors on the dashboard", () => {
  it("are worded from their code and values for a pt-BR merchant, whatever the API sentence says", () => {
    const err = new InsufficientBalance("Saldo: reworded for API clients", {
      code: "balance.insufficient",
      values: { debit: "withdrawal", needed: 5025, balance: 1000 },
    });
    expect(nb(apiErrorMessage(err, "pt-BR"))).toBe(
      "Saldo insuficiente: este saque precisa de R$ 50,25 e o saldo disponível é R$ 10,00.",
    );
    const limit = new LimitExceeded("Daily limit (any wording)", {
      code: "limit.daily",
      values: { daily: 500000, left: 12000 },
    });
    expect(nb(apiErrorMessage(limit, "pt-BR"))).toBe(
      "Acima do limite diário de saques (R$ 5.000,00); hoje restam R$ 120,00.",
    );
    expect(
      apiErrorMessage(new InvalidInput("Invalid PIX QR code: CRC mismatch", { code: "brcode.invalid" }), "pt-BR"),
    ).toBe("Código PIX inválido: confira se você copiou o código inteiro.");
    const token = new InvalidInput("Token not supported: BUSD is not available on polygon", {
      code: "asset.notOnNetwork",
      values: { asset: "BUSD", network: "polygon" },
    });
    expect(apiErrorMessage(token, "pt-BR")).toBe("O token BUSD não está disponível na rede Polygon.");
    expect(apiErrorMessage(new FactorLocked(150), "pt-BR")).toMatch(/^Muitos códigos errados\. Tente de novo em 3 min/);
  });

  it("keep the service's own sentence in English, the most precise one", () => {
    const err = new InsufficientBalance("Insufficient balance: this refund needs R$ 50,25", {
      code: "balance.insufficient",
      values: { debit: "refund", needed: 5025, balance: 1000 },
    });
    expect(apiErrorMessage(err, "en")).toBe("Insufficient balance: this refund needs R$ 50,25");
    expect(nb(wordError("balance.insufficient", { debit: "refund", needed: 5025, balance: 1000 }, "en"))).toBe(
      "Insufficient balance: this refund needs R$50.25 and the available balance is R$10.00.",
    );
  });

  it("never reach a pt-BR merchant in English when thrown without a code", () => {
    expect(apiErrorMessage(new UpstreamUnavailable("LND node refused to create the invoice: boom"), "pt-BR")).toMatch(
      /^Um serviço externo/,
    );
    expect(apiErrorMessage(new NotFound("Order not found"), "pt-BR")).toBe("Não encontrado.");
    expect(apiErrorMessage(new InvalidInput("Some new rule nobody translated"), "pt-BR")).toMatch(
      /^O pedido foi recusado/,
    );
  });

  it("keep the service's own sentence in English when thrown without a code, and word dashboard-only refusals in both languages", () => {
    expect(apiErrorMessage(new InvalidInput("Some new rule nobody translated"), "en")).toBe(
      "Some new rule nobody translated",
    );
    expect(apiErrorMessage(InvalidInput.of("auth.emailTaken"), "pt-BR")).toBe("Já existe uma conta com este e-mail.");
    expect(apiErrorMessage(InvalidInput.of("auth.emailTaken"), "en")).toBe(
      "An account with this e-mail already exists.",
    );
  });

  it("have a wording of their own in pt-BR and in English for every code", () => {
    const generic = new Set(GENERIC.flatMap((code) => [wordError(code, {}, "pt-BR"), wordError(code, {}, "en")]));
    const specific = (Object.keys(SAMPLES) as ErrorCode[]).filter(
      (code) => !(GENERIC as readonly string[]).includes(code),
    );
    expect(specific.length).toBeGreaterThan(60);
    for (const code of specific) {
      const pt = wordError(code, sample(code), "pt-BR");
      const en = wordError(code, sample(code), "en");
      expect(pt, code).not.toBe("");
      expect(en, code).not.toBe("");
      expect(generic.has(pt), `${code} in pt-BR`).toBe(false);
      expect(generic.has(en), `${code} in en`).toBe(false);
      expect(pt, `${code}: pt-BR and en differ`).not.toBe(en);
      // Every value is used: no placeholder is left unfilled.
      expect(pt, code).not.toMatch(/\{\w+\}/);
      expect(en, code).not.toMatch(/\{\w+\}/);
    }
  });
});
