import type { Metadata } from "next";
import { NewOrderForm } from "@/components/dashboard/new-order-form";
import { NEW_ORDER_KINDS, type NewOrderKind } from "@/lib/dashboard/order-kinds";
import { Alert, PageHeader } from "@/components/ui/card";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { env } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";
import { providers } from "@/lib/providers";
import { railEnabled } from "@/lib/providers/rails";
import { liveNetworks } from "@/lib/chain/config";
import { ASSETS, NETWORKS, tokenFor, type Asset, type Network } from "@/lib/chain/tokens";
import { minimumDeposit } from "@/lib/chain/networks";
import { CRYPTO_PIX_NETWORKS } from "@/lib/crypto-pix/schemas";
import { splitChoices } from "@/lib/dashboard/server/recipients";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("newOrder.title") };
}

function assetsOn(networks: readonly Network[]) {
  const live = env().PAYMENTS_MODE === "live";
  // Live mode takes money only on networks with a node, and refuses BUSD (no longer minted).
  const usable = live ? networks.filter((n) => liveNetworks().includes(n)) : networks;
  return Object.fromEntries(usable.map((n) => [n, ASSETS.filter((a) => tokenFor(n, a) && !(live && a === "BUSD"))]));
}

/**
 * Every network POST /crypto-pix/onchain/pay takes that this server can serve: its chains (bsc, eth:
 * lib/crypto-pix/schemas.ts) and Lightning, paid in BTC, where hold invoices are available.
 */
function cryptoPixAssets(): Record<string, string[]> {
  const chains = railEnabled("crypto_pix") ? assetsOn(CRYPTO_PIX_NETWORKS) : {};
  return railEnabled("crypto_pix_lightning") ? { ...chains, lightning: ["BTC"] } : chains;
}

/** Today's rates for the form's hints; none when the rate source is off or failing (the form then shows no hint). */
async function hintRates(symbols: readonly (Asset | "BTC")[]): Promise<Record<string, string>> {
  const { rates } = providers();
  const quotes = await Promise.allSettled(symbols.map((s) => rates.quote(s)));
  return Object.fromEntries(
    symbols.flatMap((s, i) => (quotes[i].status === "fulfilled" ? [[s, quotes[i].value.rate]] : [])),
  );
}

export default async function NewOrderPage({ searchParams }: { searchParams: Promise<{ kind?: string }> }) {
  const { merchant } = await requirePermission("orders.create");
  const { t } = await getI18n();
  const requested = (await searchParams).kind;
  // Live mode offers only the rails this server has (docs/api.md#live-mode-rails).
  const kinds = NEW_ORDER_KINDS.filter((k) => railEnabled(k));
  if (kinds.length === 0) {
    return (
      <>
        <PageHeader title={t("newOrder.title")} />
        <Alert tone="info">{t("newOrder.noRails")}</Alert>
      </>
    );
  }
  const kind: NewOrderKind = kinds.find((k) => k === requested) ?? kinds[0];
  const e = env();
  return (
    <>
      <PageHeader title={t("newOrder.title")} />
      <NewOrderForm
        key={kind}
        kind={kind}
        kinds={kinds}
        setup={{
          rates: await hintRates([...ASSETS, "BTC"]),
          expirySeconds: {
            exchange: e.EXPIRY_EXCHANGE_SECONDS,
            lightning: e.EXPIRY_LIGHTNING_SECONDS,
            onchain: e.EXPIRY_ONCHAIN_SECONDS,
            crypto_pix: e.EXPIRY_CRYPTO_PIX_SECONDS,
          },
          depositAssets: assetsOn(NETWORKS),
          cryptoPixAssets: cryptoPixAssets(),
          // The service refuses a Crypto-PIX whose crypto comes to less than the network's minimum, in token units.
          minimums: Object.fromEntries(CRYPTO_PIX_NETWORKS.map((n) => [n, minimumDeposit(n)])),
          recipients: await splitChoices(merchant.id),
        }}
      />
    </>
  );
}
