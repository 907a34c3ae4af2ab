import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { Checkout } from "@/components/checkout/checkout";
import { SubscriptionCheckout } from "@/components/checkout/subscription-checkout";
import { publicSubscription } from "@/lib/checkout/subscription";
import { foundOrNull } from "@/lib/errors";
import { getI18n } from "@/lib/i18n/server";
import { publicPayment } from "@/lib/checkout/payment";

// The hosted checkout. publicPayment() is the payer's view — amount, method, how to pay, status,
// expiry — and carries nothing private to the merchant. cache(): the metadata and the page read once.

const loadPayment = cache((paymentLinkId: string) => foundOrNull(publicPayment(paymentLinkId)));
const loadSubscription = cache((paymentLinkId: string) => publicSubscription(paymentLinkId));

export async function generateMetadata({ params }: { params: Promise<{ paymentLinkId: string }> }): Promise<Metadata> {
  const { t } = await getI18n();
  const { paymentLinkId } = await params;
  const subscription = await loadSubscription(paymentLinkId);
  const payment = subscription ? null : await loadPayment(paymentLinkId);
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
  const subscription = (await searchParams).receipt === undefined ? await loadSubscription(paymentLinkId) : null;
  if (subscription) return <SubscriptionCheckout sub={subscription} />;
  const payment = await loadPayment(paymentLinkId);
  if (!payment) notFound();
  return <Checkout initial={payment} />;
}
