import type { Metadata } from "next";
import { NewOrderForm } from "@/components/dashboard/new-order-form";
import { NEW_ORDER_KINDS, type NewOrderKind } from "@/lib/dashboard/order-kinds";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/auth/session";
import { env } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";
import { providers } from "@/lib/providers";
import { ASSETS, NETWORKS, tokenFor, type Network } from "@/lib/chain/tokens";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("newOrder.title") };
}

function assetsOn(networks: readonly Network[]) {
  const live = env().PAYMENTS_MODE === "live";
  // Live mode refuses BUSD (no longer minted), so the picker does not offer it there.
  return Object.fromEntries(networks.map((n) => [n, ASSETS.filter((a) => tokenFor(n, a) && !(live && a === "BUSD"))]));
}

export default async function NewOrderPage({ searchParams }: { searchParams: Promise<{ kind?: string }> }) {
  await requireMerchant();
  const { t } = await getI18n();
  const requested = (await searchParams).kind;
  const kind: NewOrderKind = NEW_ORDER_KINDS.find((k) => k === requested) ?? "pix";
  const { rates } = providers();
  const symbols = ["USDT", "USDC", "DAI", "BTC"] as const;
  const quotes = await Promise.all(symbols.map((s) => rates.quote(s)));
  const e = env();
  return (
    <>
      <PageHeader title={t("newOrder.title")} />
      <NewOrderForm
        key={kind}
        kind={kind}
        setup={{
          rates: Object.fromEntries(symbols.map((s, i) => [s, quotes[i].rate])),
          expirySeconds: {
            exchange: e.EXPIRY_EXCHANGE_SECONDS,
            lightning: e.EXPIRY_LIGHTNING_SECONDS,
            onchain: e.EXPIRY_ONCHAIN_SECONDS,
            crypto_pix: e.EXPIRY_CRYPTO_PIX_SECONDS,
          },
          depositAssets: assetsOn(NETWORKS),
          cryptoPixAssets: assetsOn(["bsc", "eth"]),
        }}
      />
    </>
  );
}
