import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Checkout } from "@/components/checkout/checkout";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { NotFound } from "@/lib/errors";
import { getI18n } from "@/lib/i18n/server";
import { publicPayment, type PublicPayment } from "@/lib/checkout/payment";

// The hosted checkout: public, no session. publicPayment() is the payer's view — amount, method,
// how to pay, status, expiry — and carries nothing private to the merchant.

async function load(paymentLinkId: string): Promise<PublicPayment | null> {
  try {
    return await publicPayment(paymentLinkId);
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ paymentLinkId: string }> }): Promise<Metadata> {
  const { t } = await getI18n();
  const payment = await load((await params).paymentLinkId);
  return {
    title: payment ? t("pay.title", { merchant: payment.merchantName }) : t("pay.notFound"),
    robots: { index: false },
  };
}

export default async function PayPage({ params }: { params: Promise<{ paymentLinkId: string }> }) {
  const payment = await load((await params).paymentLinkId);
  if (!payment) notFound();
  const { locale, t } = await getI18n();
  return (
    <div className="mx-auto flex min-h-screen max-w-md flex-col px-4 py-4 sm:py-10">
      <div className="mb-4 flex items-center justify-between print:hidden">
        <p className="text-sm font-semibold text-slate-700">{t("app.name")}</p>
        <LanguageSwitch locale={locale} />
      </div>
      <main className="flex-1">
        <Checkout initial={payment} />
      </main>
      <footer className="mt-6 text-center text-xs text-slate-600">{t("pay.securedBy")}</footer>
    </div>
  );
}
