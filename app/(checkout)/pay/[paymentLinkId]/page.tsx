import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Checkout } from "@/components/checkout/checkout";
import { SubscriptionCheckout } from "@/components/checkout/subscription-checkout";
import { publicSubscription } from "@/lib/checkout/subscription";
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
  const { paymentLinkId } = await params;
  const subscription = await publicSubscription(paymentLinkId);
  const payment = subscription ? null : await load(paymentLinkId);
  const merchant = subscription?.merchantName ?? payment?.merchantName;
  return {
    title: merchant !== undefined ? t("pay.title", { merchant }) : t("pay.notFound"),
    robots: { index: false },
  };
}

export default async function PayPage({
  params,
  searchParams,
}: {
  params: Promise<{ paymentLinkId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { paymentLinkId } = await params;
  // A subscription's page (Pix Automático). Journey 3's first payment shares its id: `?receipt` opens
  // that payment's own page, its receipt.
  const subscription = (await searchParams).receipt === undefined ? await publicSubscription(paymentLinkId) : null;
  const payment = subscription ? null : await load(paymentLinkId);
  if (!subscription && !payment) notFound();
  const { locale, t } = await getI18n();
  return (
    <div className="mx-auto flex min-h-screen max-w-md flex-col px-4 py-4 sm:py-10">
      <div className="mb-4 flex items-center justify-between print:hidden">
        <p className="text-sm font-semibold text-slate-700">{t("app.name")}</p>
        <LanguageSwitch locale={locale} />
      </div>
      <main className="flex-1">
        {subscription ? <SubscriptionCheckout sub={subscription} /> : <Checkout initial={payment!} />}
      </main>
      <footer className="mt-6 text-center text-xs text-slate-600">{t("pay.securedBy")}</footer>
    </div>
  );
}
