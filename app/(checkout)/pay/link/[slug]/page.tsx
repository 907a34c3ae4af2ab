import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { LinkCheckout } from "@/components/checkout/link-checkout";
import { foundOrNull } from "@/lib/errors";
import { getI18n } from "@/lib/i18n/server";
import { publicPaymentLink } from "@/lib/payment-links/sell";

// A payment link's public page: what is sold and how to pay. Opening it makes no order; the payer's
// choice does (POST /api/v1/public/payment-links/{slug}/orders), and then the order's own checkout
// (/pay/{paymentLinkId}) takes over.

const load = cache((slug: string) => foundOrNull(publicPaymentLink(slug)));

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
  return <LinkCheckout link={link} />;
}
