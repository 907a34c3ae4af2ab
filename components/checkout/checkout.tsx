"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { CopyField } from "@/components/ui/copy-button";
import { Countdown } from "@/components/ui/countdown";
import { QrCode } from "@/components/ui/qr-code";
import { Spinner } from "@/components/ui/spinner";
import { getJson } from "@/lib/browser/fetch-json";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import { networkName } from "@/lib/chain/network-names";
import { useI18n } from "@/lib/i18n/client";
import type { PublicPayment } from "@/lib/checkout/payment";
import { CheckoutFrame, Receipt, ResultScreen, WalletButton } from "./parts";

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
        chain: { amount: p.payment.amount, remaining: p.payment.remaining, asset: p.payment.asset, network: p.payment.network },
        wallet: { href: p.payment.qrContent, lightning: false },
      };
    case "exchange": {
      const { checkoutUrl, deeplink, qrContent } = p.payment;
      // Without the provider's own QR or links, the only QR there is would be this page's address.
      if (!checkoutUrl && !deeplink && qrContent === p.link) return { qrContent: null, code: null, sandboxExchange: true };
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

/**
 * The payer's page: how to pay this one order, a countdown, and a status that turns into a receipt
 * or an expired screen by itself (polling the public endpoint; nothing private is ever in it).
 */
export function Checkout({ initial }: { initial: PublicPayment }) {
  const { t, money, crypto, dateTime } = useI18n();
  const client = useQueryClient();
  const key = queryKeys.publicPayment(initial.paymentLinkId);
  const { data: p } = useQuery({
    queryKey: key,
    queryFn: async () => (await getJson<{ payment: PublicPayment }>(`/api/v1/public/payments/${initial.paymentLinkId}`)).payment,
    initialData: initial,
    refetchInterval: (q) => (q.state.data && OPEN.has(q.state.data.status) ? POLL_MS : false),
  });
  const refresh = useCallback(() => void client.invalidateQueries({ queryKey: key }), [client, key]);
  const amount = money(Math.round(p.value * 100));
  const expired = p.expiresAt !== null && new Date(p.expiresAt).getTime() <= Date.now();

  let body: React.ReactNode;
  if (p.status === "COMPLETED") {
    body = (
      <div className="space-y-4">
        <ResultScreen tone="success" title={t("pay.successTitle")} body={t("pay.successBody", { merchant: p.merchantName, amount })} />
        {p.method === "pix" && p.returned ? (
          <ResultScreen tone="warning" title={t("pay.returnedTitle")} body={t("pay.returnedBody", { amount: money(Math.round(p.returned.value * 100)) })} />
        ) : null}
        <Receipt
          lines={[
            { label: t("pay.receiptAmount"), value: amount },
            { label: t("pay.receiptTo"), value: p.merchantName },
            { label: t("pay.receiptAt"), value: dateTime(p.paidAt ?? p.createdAt) },
            { label: t("pay.receiptMethod"), value: t(`kind.${p.method}`) },
            ...(p.method === "onchain"
              ? [{ label: t("pay.receiptSent"), value: `${crypto(p.payment.received)} ${p.payment.asset} · ${networkName(p.payment.network)}` }]
              : []),
            { label: t("pay.receiptReference"), value: p.paymentLinkId, mono: true },
          ]}
        />
      </div>
    );
  } else if (!OPEN.has(p.status) || (expired && p.status === "PENDING")) {
    const wasExpiry = (p.status === "CANCELLED" || p.status === "FAILED" || p.status === "PENDING") && expired;
    body = wasExpiry ? (
      <ResultScreen tone="muted" title={t("pay.expiredTitle")} body={t("pay.expiredBody", { merchant: p.merchantName })} />
    ) : (
      <ResultScreen tone="muted" title={t("pay.failedTitle")} body={t("pay.failedBody", { merchant: p.merchantName })} />
    );
  } else {
    const pay = instructionsFor(p);
    body = (
      <div className="space-y-5">
        <p className="text-sm text-slate-700">{t(pay.sandboxExchange ? "pay.exchangeSandbox" : `pay.instructions.${p.method}`)}</p>
        {p.status === "PARTIAL_ORDER" && pay.chain ? (
          <p role="status" className="rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900">
            <strong>{t("pay.partialTitle")}.</strong> {t("pay.partialBody", { remaining: crypto(pay.chain.remaining), asset: pay.chain.asset })}
          </p>
        ) : null}
        {pay.chain ? (
          <div className="rounded-lg bg-slate-50 px-3 py-2 text-sm">
            <p className="text-slate-600">{t("pay.sendExactly")}</p>
            <p className="text-lg font-bold tabular-nums text-slate-900" data-testid="send-amount">
              {crypto(p.status === "PARTIAL_ORDER" ? pay.chain.remaining : pay.chain.amount)} {pay.chain.asset}
            </p>
            <p className="text-slate-600">
              {t("order.network")}: <span className="font-semibold text-slate-800">{networkName(pay.chain.network)}</span>
            </p>
          </div>
        ) : null}
        {pay.satoshis !== undefined ? (
          <p className="text-sm text-slate-700">
            {t("order.satoshis")}: <span className="font-semibold tabular-nums">{crypto(pay.satoshis)}</span>
          </p>
        ) : null}
        <div className="flex flex-col items-center gap-2">
          {pay.qrContent ? <QrCode value={pay.qrContent} label={t("order.qrAlt", { amount })} size={240} /> : null}
          {p.expiresAt ? <Countdown expiresAt={p.expiresAt} onExpire={refresh} /> : null}
        </div>
        {pay.wallet ? (
          <WalletButton
            href={pay.wallet.href}
            label={t(pay.wallet.lightning ? "pay.openLightningWallet" : "pay.openWallet")}
            hint={t(pay.wallet.lightning ? "pay.openLightningWalletHint" : "pay.openWalletHint")}
          />
        ) : null}
        {pay.openIn ? <ExchangeButtons {...pay.openIn} /> : null}
        {pay.code ? <CopyField label={t(pay.code.label)} value={pay.code.value} /> : null}
        <p className="flex items-center justify-center gap-2 text-sm text-slate-600" aria-live="polite">
          <Spinner /> {t("pay.waiting")}
        </p>
      </div>
    );
  }

  return (
    <CheckoutFrame status={p.status} title={t("pay.title", { merchant: p.merchantName })} amount={amount} method={t(`kind.${p.method}`)}>
      {body}
    </CheckoutFrame>
  );
}
