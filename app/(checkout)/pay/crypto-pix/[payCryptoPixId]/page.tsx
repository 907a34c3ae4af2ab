import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { CryptoPixCheckout } from "@/components/checkout/crypto-pix-checkout";
import { foundOrNull } from "@/lib/errors";
import { getI18n } from "@/lib/i18n/server";
import { publicCryptoPixPayment } from "@/lib/checkout/crypto-pix";

// The Crypto-PIX payer's page, keyed by payCryptoPixId (a Crypto-PIX payment has no payment link id).
// publicCryptoPixPayment() carries nothing private to the merchant.

const load = cache((payCryptoPixId: string) => foundOrNull(publicCryptoPixPayment(payCryptoPixId)));

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
  return <CryptoPixCheckout initial={payment} />;
}
