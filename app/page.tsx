import Link from "next/link";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { buttonClass } from "@/components/ui/button";
import { getI18n } from "@/lib/i18n/server";

const METHODS = [
  { title: "PIX", body: "BR Code and payment link for every order; settled to your balance in BRL." },
  { title: "Lightning", body: "BOLT11 invoices priced in BRL, converted to satoshis at creation." },
  { title: "Stablecoins", body: "USDT, USDC, DAI on Ethereum, BSC and Polygon, one address per order." },
  { title: "Crypto-PIX", body: "Your customer pays any PIX QR code with crypto; we send the PIX." },
];

const ENDPOINTS = [
  ["POST", "/api/v1/order/create/pix", "PIX order"],
  ["POST", "/api/v1/order/create", "Exchange-wallet order"],
  ["POST", "/api/v1/order/create/lightning", "Lightning invoice"],
  ["POST", "/api/v1/onchain/deposit", "On-chain stablecoin deposit"],
  ["POST", "/api/v1/crypto-pix/onchain/pay", "Pay a PIX QR code with crypto"],
  ["POST", "/api/v1/onchain/withdraw/initiate", "On-chain withdrawal"],
  ["POST", "/api/v1/order/pix-out", "PIX withdrawal"],
  ["GET", "/api/v1/order/{id}", "Order lookup"],
  ["GET", "/api/v1/onchain/order/{id}", "On-chain order lookup"],
  ["GET", "/api/v1/crypto-pix/order/{id}", "Crypto-PIX lookup"],
  ["GET", "/api/v1/account", "Merchant account and balance"],
];

export default async function Home() {
  const { locale, t } = await getI18n();
  return (
    <main className="mx-auto max-w-5xl px-4 py-8 sm:px-6 sm:py-12">
      <nav aria-label={t("nav.main")} className="mb-10 flex flex-wrap items-center justify-end gap-2">
        <LanguageSwitch locale={locale} />
        <Link href="/signin" className={buttonClass("ghost")}>
          {t("home.signIn")}
        </Link>
        <Link href="/signup" className={buttonClass("primary")}>
          {t("home.signUp")}
        </Link>
      </nav>
      <header className="mb-12">
        <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">PixCrypto Pagamentos</p>
        <h1 className="mt-2 text-3xl font-bold tracking-tight sm:text-4xl">Receba em PIX, Lightning e stablecoins.</h1>
        <p className="mt-4 max-w-2xl text-lg text-slate-600">
          A payments API for Brazilian merchants: collect by PIX, Lightning or on-chain stablecoins, let customers pay PIX codes with crypto, and withdraw to PIX or a
          wallet. Every figure is kept in exact centavos on an append-only ledger.
        </p>
      </header>

      <section aria-labelledby="methods" className="mb-12">
        <h2 id="methods" className="sr-only">
          Payment methods
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {METHODS.map((m) => (
            <li key={m.title} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
              <h3 className="font-semibold">{m.title}</h3>
              <p className="mt-2 text-sm text-slate-600">{m.body}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="api" className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <h2 id="api" className="text-xl font-semibold">
          API
        </h2>
        <p className="mt-2 text-sm text-slate-600">
          Authenticate with <code className="rounded bg-slate-100 px-1">Authorization: Bearer &lt;API_KEY&gt;</code> (or a{" "}
          <code className="rounded bg-slate-100 px-1">Bearer: &lt;API_KEY&gt;</code> header). The README and{" "}
          <code className="rounded bg-slate-100 px-1">docs/api.md</code> describe every endpoint, error and sandbox helper; the{" "}
          <a href="/docs" className="font-medium text-brand-700 underline">
            interactive API reference
          </a>{" "}
          lets you try each one.
        </p>
        <div className="mt-4 overflow-x-auto" tabIndex={0} role="region" aria-labelledby="api">
          <table className="w-full text-left text-sm">
            <thead className="text-slate-500">
              <tr>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Method
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Path
                </th>
                <th scope="col" className="py-2 font-medium">
                  What it does
                </th>
              </tr>
            </thead>
            <tbody>
              {ENDPOINTS.map(([method, path, what]) => (
                <tr key={method + path} className="border-t border-slate-100">
                  <td className="py-2 pr-4 font-mono text-xs font-semibold text-brand-700">{method}</td>
                  <td className="py-2 pr-4 font-mono text-xs">{path}</td>
                  <td className="py-2 text-slate-700">{what}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <footer className="mt-12 text-sm text-slate-500">
        Sandbox mode uses test keys (<code>sk_test_…</code>) and moves no real money; live mode uses <code>sk_live_…</code> keys.
      </footer>
    </main>
  );
}
