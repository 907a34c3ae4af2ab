import Link from "next/link";
import { Fragment } from "react";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { buttonClass } from "@/components/ui/button";
import type { MessageKey } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";

const METHODS: { title: string; body: MessageKey }[] = [
  { title: "PIX", body: "home.method.pix" },
  { title: "Lightning", body: "home.method.lightning" },
  { title: "Stablecoins", body: "home.method.stablecoins" },
  { title: "Crypto-PIX", body: "home.method.cryptoPix" },
];

const ENDPOINTS: [string, string, MessageKey][] = [
  ["POST", "/api/v1/order/create/pix", "home.ep.pix"],
  ["POST", "/api/v1/order/create", "home.ep.exchange"],
  ["POST", "/api/v1/order/create/lightning", "home.ep.lightning"],
  ["POST", "/api/v1/onchain/deposit", "home.ep.deposit"],
  ["POST", "/api/v1/crypto-pix/onchain/pay", "home.ep.cryptoPix"],
  ["POST", "/api/v1/onchain/withdraw/initiate", "home.ep.onchainWithdraw"],
  ["POST", "/api/v1/order/pix-out", "home.ep.pixOut"],
  ["GET", "/api/v1/order/{id}", "home.ep.order"],
  ["GET", "/api/v1/onchain/order/{id}", "home.ep.onchainOrder"],
  ["GET", "/api/v1/crypto-pix/order/{id}", "home.ep.cryptoPixOrder"],
  ["GET", "/api/v1/account", "home.ep.account"],
];

/** A catalog message with React nodes in its `{placeholders}` (links, code). */
function rich(template: string, nodes: Record<string, React.ReactNode>): React.ReactNode[] {
  return template.split(/\{(\w+)\}/).map((part, i) => (i % 2 === 1 ? <Fragment key={i}>{nodes[part] ?? part}</Fragment> : part));
}

const code = (text: string) => (
  <code translate="no" className="rounded bg-slate-100 px-1 text-slate-800">
    {text}
  </code>
);

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
        <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">{t("app.name")}</p>
        <h1 className="mt-2 text-3xl font-bold tracking-tight sm:text-4xl">{t("home.tagline")}</h1>
        <p className="mt-4 max-w-2xl text-lg text-slate-600">{t("home.intro")}</p>
      </header>

      <section aria-labelledby="methods" className="mb-12">
        <h2 id="methods" className="sr-only">
          {t("home.methods")}
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {METHODS.map((m) => (
            <li key={m.title} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
              <h3 className="font-semibold">
                {m.title === "Crypto-PIX" ? t("kind.crypto_pix") : m.title === "Stablecoins" ? t("home.method.stablecoinsTitle") : m.title}
              </h3>
              <p className="mt-2 text-sm text-slate-600">{t(m.body)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="api" className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <h2 id="api" className="text-xl font-semibold">
          API
        </h2>
        <p className="mt-2 text-sm text-slate-600">
          {rich(t("home.apiIntro"), {
            header1: code("Authorization: Bearer <API_KEY>"),
            header2: code("Bearer: <API_KEY>"),
            link: (
              <a href="/docs" className="font-medium text-brand-700 underline">
                {t("home.apiLink")}
              </a>
            ),
          })}
        </p>
        {/* Phones: one card per endpoint, nothing cut off; wider screens: the table. */}
        <ul className="mt-4 divide-y divide-slate-100 sm:hidden">
          {ENDPOINTS.map(([method, path, what]) => (
            <li key={method + path} className="py-2">
              <p translate="no" className="break-all font-mono text-xs">
                <span className="font-semibold text-brand-700">{method}</span> {path}
              </p>
              <p className="text-sm text-slate-700">{t(what)}</p>
            </li>
          ))}
        </ul>
        <div className="mt-4 hidden overflow-x-auto sm:block">
          <table className="w-full text-left text-sm">
            <thead className="text-slate-500">
              <tr>
                <th scope="col" className="py-2 pr-4 font-medium">
                  {t("home.colMethod")}
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  {t("home.colPath")}
                </th>
                <th scope="col" className="py-2 font-medium">
                  {t("home.colWhat")}
                </th>
              </tr>
            </thead>
            <tbody>
              {ENDPOINTS.map(([method, path, what]) => (
                <tr key={method + path} className="border-t border-slate-100">
                  <td translate="no" className="py-2 pr-4 font-mono text-xs font-semibold text-brand-700">
                    {method}
                  </td>
                  <td translate="no" className="py-2 pr-4 font-mono text-xs">
                    {path}
                  </td>
                  <td className="py-2 text-slate-700">{t(what)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <footer className="mt-12 text-sm text-slate-600">{rich(t("home.footer"), { test: code("sk_test_…"), live: code("sk_live_…") })}</footer>
    </main>
  );
}
