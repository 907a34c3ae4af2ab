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

const OPEN = new Set(["PENDING", "PARTIAL_ORDER"]);

type Instructions = {
  qrContent: string;
  code: { label: "order.brcode" | "order.invoice" | "order.address" | "order.paymentLink"; value: string };
  chain?: { amount: number; remaining: number; asset: string; network: string };
  satoshis?: number;
  /** The exchange wallet's own checkout page and app link (Binance Pay). */
  openIn?: { checkoutUrl?: string; deeplink?: string };
};

/** The public view's payment data, read by method into one shape. */
function instructionsFor(p: PublicPayment): Instructions {
  const pay = p.payment as Partial<Record<string, string | number>> & { qrContent: string };
  const text = (k: string) => String(pay[k] ?? "");
  switch (p.method) {
    case "pix":
      return { qrContent: pay.qrContent, code: { label: "order.brcode", value: text("brcode") } };
    case "lightning":
      return { qrContent: pay.qrContent, code: { label: "order.invoice", value: text("invoice") }, satoshis: Number(pay.satoshis ?? 0) };
    case "onchain":
      return {
        qrContent: pay.qrContent,
        code: { label: "order.address", value: text("address") },
        chain: { amount: Number(pay.amount ?? 0), remaining: Number(pay.remaining ?? 0), asset: text("asset"), network: text("network") },
      };
    default: {
      const openIn = { checkoutUrl: pay.checkoutUrl ? text("checkoutUrl") : undefined, deeplink: pay.deeplink ? text("deeplink") : undefined };
      return { qrContent: pay.qrContent, code: { label: "order.paymentLink", value: p.link }, ...(openIn.checkoutUrl || openIn.deeplink ? { openIn } : {}) };
    }
  }
}

function ResultScreen({ tone, title, body }: { tone: "success" | "muted"; title: string; body: string }) {
  return (
    <div className="flex flex-col items-center py-6 text-center" role="status">
      <span
        aria-hidden="true"
        className={
          tone === "success"
            ? "grid size-16 place-items-center rounded-full bg-brand-100 text-brand-700"
            : "grid size-16 place-items-center rounded-full bg-slate-100 text-slate-600"
        }
      >
        <svg viewBox="0 0 24 24" className="size-8" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" strokeLinejoin="round">
          {tone === "success" ? <path d="M5 12l5 5L20 7" /> : <path d="M12 8v5m0 3h.01M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z" />}
        </svg>
      </span>
      <h2 className="mt-4 text-xl font-bold text-slate-900" data-testid="checkout-result">
        {title}
      </h2>
      <p className="mt-2 max-w-xs text-sm text-slate-600">{body}</p>
    </div>
  );
}

/**
 * The payer's page: how to pay this one order, a countdown, and a status that turns into a success
 * or an expired screen by itself (polling the public endpoint; nothing private is ever in it).
 */
export function Checkout({ initial }: { initial: PublicPayment }) {
  const { t, money, crypto } = useI18n();
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
    body = <ResultScreen tone="success" title={t("pay.successTitle")} body={t("pay.successBody", { merchant: p.merchantName, amount })} />;
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
        <p className="text-sm text-slate-700">{t(`pay.instructions.${p.method}`)}</p>
        {p.status === "PARTIAL_ORDER" && pay.chain ? (
          <p role="status" className="rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900">
            <strong>{t("pay.partialTitle")}.</strong> {t("pay.partialBody", { remaining: crypto(pay.chain.remaining), asset: pay.chain.asset })}
          </p>
        ) : null}
        {pay.chain ? (
          <div className="rounded-lg bg-slate-50 px-3 py-2 text-sm">
            <p className="text-slate-600">{t("pay.sendExactly")}</p>
            <p className="text-lg font-bold tabular-nums text-slate-900">
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
          <QrCode value={pay.qrContent} label={t("order.qrAlt", { amount })} size={240} />
          {p.expiresAt ? <Countdown expiresAt={p.expiresAt} onExpire={refresh} /> : null}
        </div>
        {pay.openIn ? (
          <div className="flex flex-col gap-2 sm:flex-row sm:justify-center">
            {pay.openIn.deeplink ? (
              <a href={pay.openIn.deeplink} className="rounded-lg bg-slate-900 px-4 py-2 text-center text-sm font-semibold text-white hover:bg-slate-800">
                {t("pay.openApp")}
              </a>
            ) : null}
            {pay.openIn.checkoutUrl ? (
              <a
                href={pay.openIn.checkoutUrl}
                target="_blank"
                rel="noopener noreferrer"
                className="rounded-lg border border-slate-300 px-4 py-2 text-center text-sm font-semibold text-slate-800 hover:bg-slate-50"
              >
                {t("pay.openCheckout")}
              </a>
            ) : null}
          </div>
        ) : (
          <CopyField label={t(pay.code.label)} value={pay.code.value} />
        )}
        <p className="flex items-center justify-center gap-2 text-sm text-slate-600" aria-live="polite">
          <Spinner /> {t("pay.waiting")}
        </p>
      </div>
    );
  }

  return (
    <article className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-8" data-status={p.status} data-testid="checkout">
      <header className="mb-5 border-b border-slate-100 pb-5 text-center">
        <h1 className="text-base font-semibold text-slate-700">{t("pay.title", { merchant: p.merchantName })}</h1>
        <p className="mt-2 text-sm text-slate-600">{t("pay.amount")}</p>
        <p className="text-4xl font-bold tabular-nums tracking-tight text-slate-900">{amount}</p>
        <p className="mt-2 inline-flex rounded-full bg-slate-100 px-3 py-0.5 text-xs font-semibold text-slate-700">{t(`kind.${p.method}`)}</p>
      </header>
      {body}
    </article>
  );
}
