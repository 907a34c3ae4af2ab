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
import type { PublicCryptoPix } from "@/lib/checkout/schemas";
import { useI18n } from "@/lib/i18n/client";
import { CheckoutFrame, Receipt, ResultScreen, WalletButton } from "./parts";

const OPEN = new Set(["PENDING", "PARTIAL_ORDER"]);

/** How far the crypto has come: received of what is due, as a bar and in words. */
function Progress({ p }: { p: PublicCryptoPix }) {
  const { t, crypto } = useI18n();
  const { received, amount, asset } = p.payment;
  const percent = amount > 0 ? Math.min(100, Math.round((received / amount) * 100)) : 0;
  const words = t("cpix.progress", { received: crypto(received), amount: crypto(amount), asset });
  return (
    <div>
      <div
        className="h-2 overflow-hidden rounded-full bg-slate-200"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-label={words}
      >
        <div className="h-full rounded-full bg-brand-600" style={{ width: `${percent}%` }} />
      </div>
      <p className="mt-1 text-xs text-slate-600" data-testid="cpix-progress">
        {words}
      </p>
    </div>
  );
}

/** The end of a payment that did not pay its PIX: the crypto that came back, or that nothing came. */
function Closed({ p }: { p: PublicCryptoPix }) {
  const { t, crypto } = useI18n();
  const vars = {
    amount: crypto(p.refund?.amount ?? p.payment.received),
    asset: p.payment.asset,
    merchant: p.merchantName,
  };
  if (p.refund?.status === "COMPLETED" || p.status === "REFUNDED") {
    return (
      <div className="space-y-4">
        <ResultScreen tone="muted" title={t("cpix.refundedTitle")} body={t("cpix.refundedBody", vars)} />
        {p.refund?.txHash ? (
          <Receipt
            title={t("cpix.refundReceiptTitle")}
            lines={[
              { label: t("cpix.refundAmount"), value: `${vars.amount} ${vars.asset}` },
              { label: t("cpix.refundNetwork"), value: networkName(p.payment.network) },
              { label: t("pay.receiptTx"), value: p.refund.txHash, mono: true },
              { label: t("pay.receiptReference"), value: p.payCryptoPixId, mono: true },
            ]}
          />
        ) : null}
      </div>
    );
  }
  if (p.refund?.status === "PENDING")
    return (
      <ResultScreen tone="warning" title={t("cpix.refundPendingTitle")} body={t("cpix.refundPendingBody", vars)} />
    );
  if (p.refund?.status === "FAILED")
    return <ResultScreen tone="warning" title={t("cpix.refundPendingTitle")} body={t("cpix.refundFailedBody", vars)} />;
  return <ResultScreen tone="muted" title={t("cpix.expiredTitle")} body={t("cpix.expiredBody", vars)} />;
}

/**
 * The payer's page of a Crypto-PIX payment: the PIX being paid, what to send and where, progress as
 * transfers arrive, and its end (the PIX paid with a receipt, or the crypto refunded), polled live.
 */
export function CryptoPixCheckout({ initial }: { initial: PublicCryptoPix }) {
  const { t, money, crypto, dateTime } = useI18n();
  const client = useQueryClient();
  const key = queryKeys.publicCryptoPix(initial.payCryptoPixId);
  const { data: p } = useQuery({
    queryKey: key,
    queryFn: async () =>
      (await getJson<{ payment: PublicCryptoPix }>(`/api/v1/public/crypto-pix/${initial.payCryptoPixId}`)).payment,
    initialData: initial,
    refetchInterval: (q) =>
      q.state.data && (OPEN.has(q.state.data.status) || q.state.data.refund?.status === "PENDING") ? POLL_MS : false,
  });
  const refresh = useCallback(() => void client.invalidateQueries({ queryKey: key }), [client, key]);
  const value = money(Math.round(p.value * 100));
  const lightning = p.payment.network === "lightning";
  const fullyReceived = p.payment.remaining === 0;
  const expired = new Date(p.expiresAt).getTime() <= Date.now();

  let body: React.ReactNode;
  if (p.status === "COMPLETED") {
    body = (
      <div className="space-y-4">
        <ResultScreen
          tone="success"
          title={t("cpix.successTitle")}
          body={t("cpix.successBody", { value, recipient: p.recipientName })}
        />
        <Receipt
          lines={[
            { label: t("cpix.receiptPix"), value },
            { label: t("cpix.recipient"), value: `${p.recipientName} (${p.recipientCity})` },
            {
              label: t("cpix.receiptCrypto"),
              value: `${crypto(p.payment.received)} ${p.payment.asset} · ${networkName(p.payment.network)}`,
            },
            { label: t("pay.receiptAt"), value: dateTime(p.paidAt ?? p.createdAt) },
            ...(p.txHash ? [{ label: t("pay.receiptTx"), value: p.txHash, mono: true }] : []),
            { label: t("pay.receiptReference"), value: p.payCryptoPixId, mono: true },
          ]}
        />
      </div>
    );
  } else if (!OPEN.has(p.status) || p.refund || (expired && !fullyReceived)) {
    body = <Closed p={p} />;
  } else if (fullyReceived) {
    // Every satoshi or token arrived; the PIX is on its way.
    body = (
      <p className="flex items-center justify-center gap-2 py-6 text-sm font-medium text-slate-800" role="status">
        <Spinner /> {t("cpix.sendingPix")}
      </p>
    );
  } else {
    const due = p.status === "PARTIAL_ORDER" ? p.payment.remaining : p.payment.amount;
    body = (
      <div className="space-y-5">
        <p className="text-sm text-slate-700">
          {t(lightning ? "cpix.instructions.lightning" : "cpix.instructions.chain")}
        </p>
        {p.status === "PARTIAL_ORDER" ? (
          <p role="status" className="rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900">
            <strong>{t("pay.partialTitle")}.</strong>{" "}
            {t("cpix.partialBody", { remaining: crypto(p.payment.remaining), asset: p.payment.asset })}
          </p>
        ) : null}
        <div className="rounded-lg bg-slate-50 px-3 py-2 text-sm">
          <p className="text-slate-600">{t("pay.sendExactly")}</p>
          <p className="text-lg font-bold tabular-nums text-slate-900" data-testid="send-amount">
            {lightning && p.payment.satoshis !== undefined
              ? `${crypto(p.payment.satoshis)} sats`
              : `${crypto(due)} ${p.payment.asset}`}
          </p>
          <p className="text-slate-600">
            {t("order.network")}: <span className="font-semibold text-slate-800">{networkName(p.payment.network)}</span>
          </p>
        </div>
        {!lightning ? <Progress p={p} /> : null}
        <div className="flex flex-col items-center gap-2">
          <QrCode value={p.payment.qrContent} label={t("order.qrAlt", { amount: value })} size={240} />
          <Countdown expiresAt={p.expiresAt} onExpire={refresh} />
        </div>
        <WalletButton
          href={p.payment.qrContent}
          label={t(lightning ? "pay.openLightningWallet" : "pay.openWallet")}
          hint={t(lightning ? "pay.openLightningWalletHint" : "pay.openWalletHint")}
        />
        <CopyField label={t(lightning ? "order.invoice" : "order.address")} value={p.payment.address} />
        <p className="text-xs text-slate-600">{t(lightning ? "cpix.lightningRefundNote" : "cpix.refundNote")}</p>
        <p className="flex items-center justify-center gap-2 text-sm text-slate-600" aria-live="polite">
          <Spinner /> {t("pay.waiting")}
        </p>
      </div>
    );
  }

  return (
    <CheckoutFrame
      status={p.status}
      title={t("cpix.title", { merchant: p.merchantName })}
      amount={value}
      method={t("kind.crypto_pix")}
    >
      <div className="mb-5 rounded-lg border border-slate-200 px-3 py-2 text-sm" data-testid="cpix-recipient">
        <p className="text-slate-600">{t("cpix.paying")}</p>
        <p className="font-semibold text-slate-900">
          {p.recipientName} · {p.recipientCity}
        </p>
        <p className="text-xs text-slate-600">
          {t("cpix.pixKey")}: <span translate="no">{p.pixKey}</span>
        </p>
      </div>
      {body}
    </CheckoutFrame>
  );
}
