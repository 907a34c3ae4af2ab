"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { CopyButton, CopyField } from "@/components/ui/copy-button";
import { Countdown } from "@/components/ui/countdown";
import { QrCode } from "@/components/ui/qr-code";
import { Spinner } from "@/components/ui/spinner";
import { getJson } from "@/lib/browser/fetch-json";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import { networkName } from "@/lib/chain/network-names";
import { useI18n } from "@/lib/i18n/client";
import type { PublicPayment } from "@/lib/checkout/payment";
import { InvoiceSummary, InvoiceTerms, invoiceReceiptLines } from "./invoice-terms";
import { CheckoutFrame, Receipt, ResultScreen, WalletButton, type ReceiptLine } from "./parts";

const OPEN = new Set(["PENDING", "PARTIAL_ORDER"]);

type Instructions = {
  qrContent: string | null;
  code: { label: "order.brcode" | "order.invoice" | "order.address" | "order.paymentLink"; value: string } | null;
  chain?: { amount: number; remaining: number; asset: string; network: string };
  satoshis?: number;
  /** A wallet app link for phones: EIP-681 `ethereum:` or `lightning:`. */
  wallet?: { href: string; lightning: boolean };
  /** The exchange wallet's own checkout page and app link (Binance Pay). */
  openIn?: { checkoutUrl?: string; deeplink?: string };
  /** An exchange-wallet order with no provider behind it (the sandbox): nothing a payer can scan. */
  sandboxExchange?: boolean;
};

/** The public view's payment data, read by method into one shape. */
function instructionsFor(p: PublicPayment): Instructions {
  switch (p.method) {
    case "pix":
      return { qrContent: p.payment.qrContent, code: { label: "order.brcode", value: p.payment.brcode } };
    case "lightning":
      return {
        qrContent: p.payment.qrContent,
        code: { label: "order.invoice", value: p.payment.invoice },
        satoshis: p.payment.satoshis,
        wallet: { href: p.payment.qrContent, lightning: true },
      };
    case "onchain":
      return {
        qrContent: p.payment.qrContent,
        code: { label: "order.address", value: p.payment.address },
        chain: {
          amount: p.payment.amount,
          remaining: p.payment.remaining,
          asset: p.payment.asset,
          network: p.payment.network,
        },
        wallet: { href: p.payment.qrContent, lightning: false },
      };
    case "exchange": {
      const { checkoutUrl, deeplink, qrContent } = p.payment;
      // Without the provider's own QR or links, the only QR there is would be this page's address.
      if (!checkoutUrl && !deeplink && qrContent === p.link)
        return { qrContent: null, code: null, sandboxExchange: true };
      return { qrContent, code: null, openIn: { checkoutUrl, deeplink } };
    }
  }
}

function ExchangeButtons({ checkoutUrl, deeplink }: { checkoutUrl?: string; deeplink?: string }) {
  const { t } = useI18n();
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:justify-center">
      {deeplink ? (
        <a
          href={deeplink}
          data-testid="open-exchange-app"
          className="rounded-lg bg-slate-900 px-4 py-2.5 text-center text-sm font-semibold text-white hover:bg-slate-800"
        >
          {t("pay.openApp")}
        </a>
      ) : null}
      {checkoutUrl ? (
        <a
          href={checkoutUrl}
          target="_blank"
          rel="noopener noreferrer"
          data-testid="open-exchange-checkout"
          className="rounded-lg border border-slate-300 px-4 py-2.5 text-center text-sm font-semibold text-slate-800 hover:bg-slate-50"
        >
          {t("pay.openCheckout")}
        </a>
      ) : null}
    </div>
  );
}

type ChainPayment = Extract<PublicPayment, { method: "onchain" }>;

/** Unapplied tokens the merchant has not decided on yet: what arrived, less what was accepted or is being returned. */
function heldOf(payment: ChainPayment["payment"]): number {
  const decided = payment.unappliedResolutions.reduce((sum, r) => sum + r.amount, 0);
  return Math.max(0, Number((payment.unapplied - decided).toFixed(18)));
}

/**
 * What became of money the order did not take: each of the merchant's decisions (accepted, being
 * returned, returned, or a refused return being handled), then what is still held, late or extra.
 */
function UnappliedScreens({ p, held }: { p: ChainPayment; held: "late" | "extra" }) {
  const { t, crypto } = useI18n();
  const { asset } = p.payment;
  const left = heldOf(p.payment);
  const vars = { merchant: p.merchantName, asset };
  return (
    <>
      {p.payment.unappliedResolutions.map((r, i) => {
        const amount = crypto(r.sent ?? r.amount);
        const [tone, title, body] =
          r.kind === "accept"
            ? (["success", "pay.acceptedTitle", "pay.acceptedBody"] as const)
            : r.status === "COMPLETED"
              ? (["refund", "pay.chainReturnedTitle", "pay.chainReturnedBody"] as const)
              : r.status === "FAILED"
                ? (["warning", "pay.returnFailedTitle", "pay.returnFailedBody"] as const)
                : (["refund", "pay.returningTitle", "pay.returningBody"] as const);
        return (
          <div key={i} data-testid="unapplied-outcome" data-status={`${r.kind}:${r.status}`}>
            <ResultScreen tone={tone} title={t(title)} body={t(body, { ...vars, amount })} />
          </div>
        );
      })}
      {left > 0 ? (
        <ResultScreen
          tone="warning"
          title={t(held === "late" ? "pay.lateTitle" : "pay.extraTitle")}
          body={t(held === "late" ? "pay.lateBody" : "pay.extraBody", { ...vars, unapplied: crypto(left) })}
        />
      ) : null}
    </>
  );
}

/** The split's parts, when the merchant shows them on receipts (the public view has `splits` only then). */
function splitLines(p: PublicPayment, t: ReturnType<typeof useI18n>["t"], money: (c: number) => string): ReceiptLine[] {
  return (p.splits ?? []).map((part, i) => ({
    label: t("pay.receiptSplitPart", { name: part.name }),
    value: money(Math.round(part.value * 100)),
    testId: `receipt-split-${i}`,
  }));
}

/** Receipt lines for money the order did not take: what is still held, and a return's transaction once mined. */
function unappliedLines(
  p: ChainPayment,
  t: ReturnType<typeof useI18n>["t"],
  crypto: (v: number) => string,
): ReceiptLine[] {
  const left = heldOf(p.payment);
  const returned = p.payment.unappliedResolutions.filter((r) => r.txHash);
  return [
    ...(left > 0
      ? [{ label: t("pay.receiptHeld"), value: `${crypto(left)} ${p.payment.asset}`, testId: "receipt-held" }]
      : []),
    ...returned.map((r) => ({ label: t("pay.returnTx"), value: r.txHash!, mono: true, testId: "receipt-return-tx" })),
  ];
}

/**
 * A deposit that can take no more and did not simply complete: closed partly paid, or paid after its
 * expiry. Says what arrived, what became of it, and never asks for more.
 */
function ChainOutcome({ p, amount, reference }: { p: ChainPayment; amount: string; reference: ReceiptLine }) {
  const { t, crypto } = useI18n();
  const { asset, received, unapplied } = p.payment;
  const vars = {
    merchant: p.merchantName,
    asset,
    received: crypto(received),
    amount: crypto(p.payment.amount),
    unapplied: crypto(unapplied),
  };
  return (
    <div className="space-y-4" data-testid="chain-outcome">
      {received > 0 ? (
        <ResultScreen tone="warning" title={t("pay.partialClosedTitle")} body={t("pay.partialClosedBody", vars)} />
      ) : null}
      {unapplied > 0 ? <UnappliedScreens p={p} held="late" /> : null}
      <Receipt
        lines={[
          { label: t("pay.receiptOrderAmount"), value: `${amount} · ${crypto(p.payment.amount)} ${asset}` },
          { label: t("pay.receiptTo"), value: p.merchantName },
          { label: t("pay.receiptMethod"), value: `${t("kind.onchain")} · ${networkName(p.payment.network)}` },
          ...(received > 0
            ? [{ label: t("pay.receiptReceived"), value: `${crypto(received)} ${asset}`, testId: "receipt-received" }]
            : []),
          ...unappliedLines(p, t, crypto),
          reference,
        ]}
      />
      <p className="text-center text-xs text-slate-600">{t("pay.contactMerchant", { merchant: p.merchantName })}</p>
    </div>
  );
}

/**
 * The payer's page: how to pay this one order, a countdown, and a status that turns into a receipt
 * or an expired screen by itself (polling the public endpoint; nothing private is ever in it).
 */
export function Checkout({ initial }: { initial: PublicPayment }) {
  const { t, money, crypto, dateTime, locale } = useI18n();
  const client = useQueryClient();
  const key = queryKeys.publicPayment(initial.paymentLinkId);
  const { data: p } = useQuery({
    queryKey: key,
    queryFn: async () =>
      (await getJson<{ payment: PublicPayment }>(`/api/v1/public/payments/${initial.paymentLinkId}`)).payment,
    initialData: initial,
    // A deposit closed at its expiry keeps its PARTIAL_ORDER status, but nothing it could take is left to wait for.
    refetchInterval: (q) =>
      q.state.data && OPEN.has(q.state.data.status) && !(q.state.data.method === "onchain" && q.state.data.final)
        ? POLL_MS
        : false,
  });
  const refresh = useCallback(() => void client.invalidateQueries({ queryKey: key }), [client, key]);
  const amount = money(Math.round(p.value * 100));
  const expired = p.expiresAt !== null && new Date(p.expiresAt).getTime() <= Date.now();
  const reference = { label: t("pay.receiptReference"), value: p.paymentLinkId, mono: true };
  const invoice = p.method === "pix" ? p.invoice : undefined;

  let body: React.ReactNode;
  let payable = false;
  const chainEnded =
    p.method === "onchain" && (p.status === "FAILED" || (p.status === "PARTIAL_ORDER" && (p.final || expired)));
  if (chainEnded && p.method === "onchain" && (p.payment.received > 0 || p.payment.unapplied > 0)) {
    body = <ChainOutcome p={p} amount={amount} reference={reference} />;
  } else if (
    (p.status === "COMPLETED" || p.status === "REFUND") &&
    p.method !== "onchain" &&
    (p.refunded || p.status === "REFUND")
  ) {
    const returned = p.refunded?.value ?? p.value;
    const full = p.status === "REFUND" || returned >= p.value;
    const vars = { merchant: p.merchantName, paid: amount, returned: money(Math.round(returned * 100)) };
    body = (
      <div className="space-y-4">
        <ResultScreen
          tone="refund"
          title={t(full ? "pay.refundedTitle" : "pay.partlyRefundedTitle")}
          body={t(full ? "pay.refundedBody" : "pay.partlyRefundedBody", vars)}
        />
        <Receipt
          title={t("pay.refundReceiptTitle")}
          lines={[
            { label: t("pay.receiptAmount"), value: amount },
            { label: t("pay.receiptTo"), value: p.merchantName },
            { label: t("pay.receiptPaidAt"), value: dateTime(p.paidAt ?? p.createdAt) },
            { label: t("pay.receiptMethod"), value: t(`kind.${p.method}`) },
            ...splitLines(p, t, money),
            { label: t("pay.receiptRefunded"), value: vars.returned, testId: "receipt-refunded" },
            ...(p.refunded
              ? [{ label: t("pay.receiptRefundedAt"), value: dateTime(p.refunded.at), testId: "receipt-refunded-at" }]
              : []),
            {
              label: t("pay.receiptRefundedHow"),
              value: t(`pay.refundHow.${p.method}`),
              testId: "receipt-refunded-how",
            },
            reference,
          ]}
        />
        <p className="text-center text-xs text-slate-600">{t("pay.contactMerchant", { merchant: p.merchantName })}</p>
      </div>
    );
  } else if (p.status === "COMPLETED") {
    const extra = p.method === "onchain" && p.payment.unapplied > 0 ? p.payment : null;
    body = (
      <div className="space-y-4">
        <ResultScreen
          tone="success"
          title={t("pay.successTitle")}
          body={t("pay.successBody", { merchant: p.merchantName, amount })}
        />
        {extra && p.method === "onchain" ? <UnappliedScreens p={p} held="extra" /> : null}
        {p.method === "pix" && p.returned ? (
          <ResultScreen
            tone="warning"
            title={t("pay.returnedTitle")}
            body={t("pay.returnedBody", { amount: money(Math.round(p.returned.value * 100)) })}
          />
        ) : null}
        <Receipt
          lines={[
            { label: t("pay.receiptAmount"), value: amount },
            { label: t("pay.receiptTo"), value: p.merchantName },
            { label: t("pay.receiptAt"), value: dateTime(p.paidAt ?? p.createdAt) },
            { label: t("pay.receiptMethod"), value: t(`kind.${p.method}`) },
            ...splitLines(p, t, money),
            ...(invoice ? invoiceReceiptLines(invoice, t, money, locale) : []),
            ...(p.method === "onchain"
              ? [
                  {
                    // With more than was due, what was sent is more than what paid the order: say which this is.
                    label: t(extra ? "pay.receiptApplied" : "pay.receiptSent"),
                    value: `${crypto(p.payment.received)} ${p.payment.asset} · ${networkName(p.payment.network)}`,
                  },
                ]
              : []),
            ...(extra && p.method === "onchain" ? unappliedLines(p, t, crypto) : []),
            reference,
          ]}
        />
      </div>
    );
  } else if (!OPEN.has(p.status) || (expired && p.status === "PENDING") || (p.method === "onchain" && p.final)) {
    const wasExpiry = (p.status === "CANCELLED" || p.status === "FAILED" || p.status === "PENDING") && expired;
    body =
      invoice?.status === "CANCELLED" ? (
        <ResultScreen
          tone="muted"
          title={t("invoice.pay.cancelledTitle")}
          body={t("invoice.pay.cancelledBody", { merchant: p.merchantName })}
        />
      ) : wasExpiry ? (
        <ResultScreen
          tone="muted"
          title={t("pay.expiredTitle")}
          body={t("pay.expiredBody", { merchant: p.merchantName })}
        />
      ) : (
        <ResultScreen
          tone="muted"
          title={t("pay.failedTitle")}
          body={t("pay.failedBody", { merchant: p.merchantName })}
        />
      );
  } else {
    payable = true;
    const pay = instructionsFor(p);
    const pix = p.method === "pix" ? p : null;
    body = (
      <div className="space-y-5">
        <p className="text-sm text-slate-700">
          {t(pay.sandboxExchange ? "pay.exchangeSandbox" : `pay.instructions.${p.method}`)}
        </p>
        {pix?.invoice ? <InvoiceSummary invoice={pix.invoice} merchant={p.merchantName} /> : null}
        {pix?.description && !pix.invoice ? (
          <p className="rounded-lg bg-slate-50 px-3 py-2 text-sm text-slate-700" data-testid="pay-description">
            {t("pay.description")}: <span className="break-words font-semibold text-slate-900">{pix.description}</span>
          </p>
        ) : null}
        {p.status === "PARTIAL_ORDER" && pay.chain ? (
          <p role="status" className="rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900">
            <strong>{t("pay.partialTitle")}.</strong>{" "}
            {t("pay.partialBody", { remaining: crypto(pay.chain.remaining), asset: pay.chain.asset })}
          </p>
        ) : null}
        {pay.chain ? (
          <div className="rounded-lg bg-slate-50 px-3 py-2 text-sm">
            <p className="text-slate-600">{t("pay.sendExactly")}</p>
            <p className="text-lg font-bold tabular-nums text-slate-900" data-testid="send-amount">
              {crypto(p.status === "PARTIAL_ORDER" ? pay.chain.remaining : pay.chain.amount)} {pay.chain.asset}
            </p>
            <p className="text-slate-600">
              {t("order.network")}:{" "}
              <span className="font-semibold text-slate-800">{networkName(pay.chain.network)}</span>
            </p>
          </div>
        ) : null}
        {pay.satoshis !== undefined ? (
          <p className="text-sm text-slate-700">
            {t("order.satoshis")}: <span className="font-semibold tabular-nums">{crypto(pay.satoshis)}</span>
          </p>
        ) : null}
        {pix ? (
          // A phone cannot scan its own screen: there the copy button comes first and the QR after it;
          // from sm up (a computer, whose QR a phone scans) the QR leads.
          <div className="flex flex-col gap-5">
            <div className="order-1 space-y-1 text-center sm:order-2">
              <CopyButton
                value={pix.payment.brcode}
                what={t("order.brcode")}
                label={t("pay.copyPrimary")}
                variant="primary"
                testId="copy-pix-primary"
                className="min-h-12 w-full text-base"
              />
              <p className="text-xs text-slate-600">{t("pay.copyPrimaryHint")}</p>
            </div>
            <div className="order-2 flex flex-col items-center gap-2 sm:order-1" data-testid="pix-qr">
              <QrCode value={pix.payment.qrContent} label={t("order.qrAlt", { amount })} size={240} />
              {/* An invoice says until when it can be paid, in days (InvoiceTerms): no countdown. */}
              {p.expiresAt && !pix.invoice ? <Countdown expiresAt={p.expiresAt} onExpire={refresh} /> : null}
            </div>
            <p
              className="order-3 rounded-lg border border-slate-200 px-3 py-2 text-xs text-slate-700"
              data-testid="pix-recipient-note"
            >
              {t("pay.recipientNote", { recipient: pix.payment.recipientName, merchant: p.merchantName })}
            </p>
            <div className="order-4">
              <CopyField label={t("order.brcode")} value={pix.payment.brcode} button={false} />
            </div>
          </div>
        ) : (
          <div className="flex flex-col items-center gap-2">
            {pay.qrContent ? <QrCode value={pay.qrContent} label={t("order.qrAlt", { amount })} size={240} /> : null}
            {p.expiresAt ? <Countdown expiresAt={p.expiresAt} onExpire={refresh} /> : null}
          </div>
        )}
        {pix?.invoice ? <InvoiceTerms invoice={pix.invoice} /> : null}
        {pay.wallet ? (
          <WalletButton
            href={pay.wallet.href}
            label={t(pay.wallet.lightning ? "pay.openLightningWallet" : "pay.openWallet")}
            hint={t(pay.wallet.lightning ? "pay.openLightningWalletHint" : "pay.openWalletHint")}
          />
        ) : null}
        {pay.openIn ? <ExchangeButtons {...pay.openIn} /> : null}
        {pay.code && !pix ? <CopyField label={t(pay.code.label)} value={pay.code.value} /> : null}
        <p className="flex items-center justify-center gap-2 text-sm text-slate-600" aria-live="polite">
          <Spinner /> {t("pay.waiting")}
        </p>
      </div>
    );
  }

  return (
    <CheckoutFrame
      status={p.status}
      title={t("pay.title", { merchant: p.merchantName })}
      amount={amount}
      method={t(`kind.${p.method}`)}
      amountLabel={payable ? (invoice ? t("invoice.pay.amountToday") : undefined) : t("pay.amountFinal")}
    >
      {body}
    </CheckoutFrame>
  );
}
