import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { LinkCheckout } from "@/components/checkout/link-checkout";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { NotFound } from "@/lib/errors";
import { getI18n } from "@/lib/i18n/server";
import { publicPaymentLink } from "@/lib/payment-links/sell";
import type { PublicPaymentLink } from "@/lib/payment-links/schemas";

// A payment link's public page: what is sold and how to pay. Opening it makes no order; the payer's
// choice does (POST /api/v1/public/payment-links/{slug}/orders), and then the order's own checkout
// (/pay/{paymentLinkId}) takes over.

async function load(slug: string): Promise<PublicPaymentLink | null> {
  try {
    return await publicPaymentLink(slug);
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ slug: string }> }): Promise<Metadata> {
  const { t } = await getI18n();
  const link = await load((await params).slug);
  return {
    title: link ? t("plink.pay.title", { title: link.title, merchant: link.merchantName }) : t("plink.pay.notFound"),
    robots: { index: false },
  };
}

export const dynamic = "force-dynamic";

export default async function PaymentLinkPage({ params }: { params: Promise<{ slug: string }> }) {
  const link = await load((await params).slug);
  if (!link) notFound();
  const { locale, t } = await getI18n();
  return (
    <div className="mx-auto flex min-h-screen max-w-md flex-col px-4 py-4 sm:py-10">
      <div className="mb-4 flex items-center justify-between">
        <p className="text-sm font-semibold text-slate-700">{t("app.name")}</p>
        <LanguageSwitch locale={locale} />
      </div>
      <main className="flex-1">
        <LinkCheckout link={link} />
      </main>
      <footer className="mt-6 text-center text-xs text-slate-600">{t("pay.securedBy")}</footer>
    </div>
  );
}
