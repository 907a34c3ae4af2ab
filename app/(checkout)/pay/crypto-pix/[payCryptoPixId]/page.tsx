import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CryptoPixCheckout } from "@/components/checkout/crypto-pix-checkout";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { NotFound } from "@/lib/errors";
import { getI18n } from "@/lib/i18n/server";
import { publicCryptoPixPayment } from "@/lib/checkout/crypto-pix";
import type { PublicCryptoPix } from "@/lib/checkout/schemas";

// The Crypto-PIX payer's page: public, no session, keyed by payCryptoPixId (a Crypto-PIX payment
// has no payment link id). publicCryptoPixPayment() carries nothing private to the merchant.

async function load(payCryptoPixId: string): Promise<PublicCryptoPix | null> {
  try {
    return await publicCryptoPixPayment(payCryptoPixId);
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ payCryptoPixId: string }> }): Promise<Metadata> {
  const { t } = await getI18n();
  const payment = await load((await params).payCryptoPixId);
  return {
    title: payment ? t("cpix.title", { merchant: payment.merchantName }) : t("pay.notFound"),
    robots: { index: false },
  };
}

export default async function CryptoPixPayPage({ params }: { params: Promise<{ payCryptoPixId: string }> }) {
  const payment = await load((await params).payCryptoPixId);
  if (!payment) notFound();
  const { locale, t } = await getI18n();
  return (
    <div className="mx-auto flex min-h-screen max-w-md flex-col px-4 py-4 sm:py-10">
      <div className="mb-4 flex items-center justify-between print:hidden">
        <p className="text-sm font-semibold text-slate-700">{t("app.name")}</p>
        <LanguageSwitch locale={locale} />
      </div>
      <main className="flex-1">
        <CryptoPixCheckout initial={payment} />
      </main>
      <footer className="mt-6 text-center text-xs text-slate-600">{t("pay.securedBy")}</footer>
    </div>
  );
}
