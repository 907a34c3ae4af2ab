"use client";

import { useI18n } from "@/lib/i18n/client";

// Pieces every payer page shares: the frame with the amount, the end screens, the receipt and the
// "open in wallet" button.

export function CheckoutFrame({
  status,
  title,
  amount,
  method,
  children,
  testId = "checkout",
  amountLabel,
}: {
  status: string;
  title: string;
  amount: string;
  method: string;
  children: React.ReactNode;
  testId?: string;
  /** What the amount is, once nothing is left to pay ("Valor a pagar" until then). */
  amountLabel?: string;
}) {
  const { t } = useI18n();
  return (
    <article
      className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm print:border-0 print:shadow-none sm:p-8"
      data-status={status}
      data-testid={testId}
    >
      <header className="mb-5 border-b border-slate-100 pb-5 text-center">
        <h1 className="text-base font-semibold text-slate-700">{title}</h1>
        <p className="mt-2 text-sm text-slate-600" data-testid="checkout-amount-label">
          {amountLabel ?? t("pay.amount")}
        </p>
        <p className="text-4xl font-bold tabular-nums tracking-tight text-slate-900">{amount}</p>
        <p className="mt-2 inline-flex rounded-full bg-slate-100 px-3 py-0.5 text-xs font-semibold text-slate-700">
          {method}
        </p>
      </header>
      {children}
    </article>
  );
}

export function ResultScreen({
  tone,
  title,
  body,
}: {
  tone: "success" | "muted" | "warning" | "refund";
  title: string;
  body: string;
}) {
  const circle = {
    success: "bg-brand-100 text-brand-700",
    muted: "bg-slate-100 text-slate-600",
    warning: "bg-amber-100 text-amber-800",
    refund: "bg-sky-100 text-sky-800",
  }[tone];
  return (
    <div className="flex flex-col items-center py-6 text-center" role="status">
      <span aria-hidden="true" className={`grid size-16 place-items-center rounded-full ${circle}`}>
        <svg
          viewBox="0 0 24 24"
          className="size-8"
          fill="none"
          stroke="currentColor"
          strokeWidth="2.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          {tone === "success" ? (
            <path d="M5 12l5 5L20 7" />
          ) : tone === "refund" ? (
            <path d="M9 14L4 9l5-5M4 9h10.5a5.5 5.5 0 0 1 0 11H11" />
          ) : (
            <path d="M12 8v5m0 3h.01M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z" />
          )}
        </svg>
      </span>
      <h2 className="mt-4 text-xl font-bold text-slate-900" data-testid="checkout-result">
        {title}
      </h2>
      <p className="mt-2 max-w-xs text-sm text-slate-600">{body}</p>
    </div>
  );
}

export type ReceiptLine = { label: string; value: string; mono?: boolean; testId?: string };

/** What a payer keeps after paying: amount, who was paid, when, and the references to quote. */
export function Receipt({ lines, title }: { lines: ReceiptLine[]; title?: string }) {
  const { t } = useI18n();
  return (
    <section
      aria-labelledby="receipt-title"
      data-testid="receipt"
      className="rounded-xl border border-dashed border-slate-300 bg-slate-50 p-4 print:bg-white"
    >
      <h3 id="receipt-title" className="text-sm font-semibold uppercase tracking-wide text-slate-700">
        {title ?? t("pay.receiptTitle")}
      </h3>
      <dl className="mt-3 space-y-2 text-sm">
        {lines.map((line) => (
          <div key={line.label} className="flex flex-wrap justify-between gap-x-4" data-testid={line.testId}>
            <dt className="text-slate-600">{line.label}</dt>
            <dd
              translate={line.mono ? "no" : undefined}
              className={
                line.mono ? "min-w-0 break-all font-mono text-xs text-slate-900" : "font-medium text-slate-900"
              }
            >
              {line.value}
            </dd>
          </div>
        ))}
      </dl>
      <button
        type="button"
        onClick={() => window.print()}
        className="mt-4 w-full rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50 print:hidden"
      >
        {t("pay.print")}
      </button>
    </section>
  );
}

/** A link a phone hands to the wallet app registered for its scheme (EIP-681 `ethereum:`, `lightning:`). */
export function WalletButton({ href, label, hint }: { href: string; label: string; hint: string }) {
  return (
    <div className="text-center">
      <a
        href={href}
        data-testid="open-in-wallet"
        className="inline-flex w-full items-center justify-center gap-2 rounded-lg bg-slate-900 px-4 py-2.5 text-sm font-semibold text-white hover:bg-slate-800 sm:w-auto"
      >
        <svg
          aria-hidden="true"
          viewBox="0 0 24 24"
          className="size-4"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <path d="M3 7a2 2 0 0 1 2-2h13v4M3 7v10a2 2 0 0 0 2 2h15V9H5a2 2 0 0 1-2-2zM16 14h.01" />
        </svg>
        {label}
      </a>
      <p className="mt-1 text-xs text-slate-600">{hint}</p>
    </div>
  );
}
