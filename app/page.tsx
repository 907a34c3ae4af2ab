import Link from "next/link";
import { Fragment } from "react";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { Logo } from "@/components/layout/logo";
import { buttonClass } from "@/components/ui/button";
import { ACCOUNT_TYPES } from "@/db/schema";
import { env } from "@/lib/env";
import { formatMoney, type Locale, type MessageKey } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { SERVICE_FEE_RATE, serviceFeeCentavos, WITHDRAWAL_LIMITS } from "@/lib/money";

// The landing page, for a Brazilian shop owner first: what the service does, what it costs, how to
// start, and a short way in for developers. Fees and limits are read from the code that charges
// them (lib/money), never written here: a payment is credited in full (orderCredit), a PIX
// withdrawal debits its value only, an on-chain one adds SERVICE_FEE_RATE and the network's fee.

const WHAT: { title: MessageKey; body: MessageKey; icon: string }[] = [
  { title: "home.what.pix", body: "home.what.pixBody", icon: "PIX" },
  { title: "home.what.crypto", body: "home.what.cryptoBody", icon: "USDT" },
  { title: "home.what.lightning", body: "home.what.lightningBody", icon: "BTC" },
  { title: "home.what.withdraw", body: "home.what.withdrawBody", icon: "R$" },
];

const START: { title: MessageKey; body: MessageKey }[] = [
  { title: "home.start.signUp", body: "home.start.signUpBody" },
  { title: "home.start.sandbox", body: "home.start.sandboxBody" },
  { title: "home.start.link", body: "home.start.linkBody" },
];

/** A catalog message with React nodes in its `{placeholders}` (links, code). */
function rich(template: string, nodes: Record<string, React.ReactNode>): React.ReactNode[] {
  return template
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 === 1 ? <Fragment key={i}>{nodes[part] ?? part}</Fragment> : part));
}

const code = (text: string) => (
  <code translate="no" className="rounded bg-slate-100 px-1 text-slate-800">
    {text}
  </code>
);

function percent(rate: string, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 2 }).format(Number(rate));
}

/** What an on-chain withdrawal of R$ 1.000,00 pays the service, by the function that charges it. */
const EXAMPLE_WITHDRAWAL_CENTAVOS = 1_000_00;

export default async function Home() {
  const { locale, t } = await getI18n();
  const money = (centavos: number) => formatMoney(centavos, locale);
  const fee = percent(SERVICE_FEE_RATE, locale);
  const prices: { what: MessageKey; price: string; note: string }[] = [
    { what: "home.price.receive", price: t("home.price.free"), note: t("home.price.receiveNote") },
    { what: "home.price.pixOut", price: t("home.price.free"), note: t("home.price.pixOutNote") },
    {
      what: "home.price.cryptoOut",
      price: t("home.price.cryptoOutPrice", { fee }),
      note: t("home.price.cryptoOutNote", {
        value: money(EXAMPLE_WITHDRAWAL_CENTAVOS),
        fee: money(serviceFeeCentavos(EXAMPLE_WITHDRAWAL_CENTAVOS)),
      }),
    },
  ];
  const apiUrl = `${env().PUBLIC_BASE_URL ?? ""}/api/v1/order/create/pix`;
  return (
    <div className="min-h-screen bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <nav
          aria-label={t("nav.main")}
          className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6"
        >
          <Logo label={t("app.name")} />
          <div className="flex flex-wrap items-center gap-2">
            <LanguageSwitch locale={locale} />
            <Link href="/signin" className={buttonClass("ghost", "!px-3")}>
              {t("home.signIn")}
            </Link>
          </div>
        </nav>
      </header>

      <main>
        <section className="bg-white">
          <div className="mx-auto max-w-5xl px-4 pb-12 pt-10 sm:px-6 sm:pb-16 sm:pt-16">
            <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">{t("home.eyebrow")}</p>
            <h1 className="mt-2 max-w-3xl text-3xl font-bold tracking-tight text-slate-900 sm:text-5xl">
              {t("home.tagline")}
            </h1>
            <p className="mt-4 max-w-2xl text-lg text-slate-600">{t("home.intro")}</p>
            <div className="mt-8 flex flex-col gap-3 sm:flex-row">
              <Link href="/signup" className={buttonClass("primary", "!min-h-12 !px-6 text-base")}>
                {t("home.signUp")}
              </Link>
              <a href="#como-comecar" className={buttonClass("secondary", "!min-h-12 !px-6 text-base")}>
                {t("home.howToStart")}
              </a>
            </div>
            <p className="mt-4 text-sm text-slate-600">{t("home.noCard")}</p>
          </div>
        </section>

        <section aria-labelledby="o-que-faz" className="mx-auto max-w-5xl px-4 py-12 sm:px-6">
          <h2 id="o-que-faz" className="text-2xl font-bold text-slate-900">
            {t("home.whatTitle")}
          </h2>
          <ul className="mt-6 grid gap-4 sm:grid-cols-2">
            {WHAT.map((w) => (
              <li key={w.title} className="flex gap-4 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
                <span
                  aria-hidden="true"
                  className="grid size-12 shrink-0 place-items-center rounded-lg bg-brand-50 text-xs font-bold text-brand-800"
                >
                  {w.icon}
                </span>
                <div>
                  <h3 className="font-semibold text-slate-900">{t(w.title)}</h3>
                  <p className="mt-1 text-sm text-slate-600">{t(w.body)}</p>
                </div>
              </li>
            ))}
          </ul>
        </section>

        <section aria-labelledby="quanto-custa" className="bg-white">
          <div className="mx-auto max-w-5xl px-4 py-12 sm:px-6">
            <h2 id="quanto-custa" className="text-2xl font-bold text-slate-900">
              {t("home.priceTitle")}
            </h2>
            <p className="mt-2 max-w-2xl text-slate-600">{t("home.priceIntro")}</p>
            <dl className="mt-6 grid gap-4 sm:grid-cols-3" data-testid="home-prices">
              {prices.map((p) => (
                <div key={p.what} className="rounded-xl border border-slate-200 p-5">
                  <dt className="text-sm font-medium text-slate-600">{t(p.what)}</dt>
                  <dd className="mt-1 text-2xl font-bold text-slate-900">{p.price}</dd>
                  <dd className="mt-2 text-sm text-slate-600">{p.note}</dd>
                </div>
              ))}
            </dl>
            <h3 className="mt-8 font-semibold text-slate-900">{t("home.limitsTitle")}</h3>
            <p className="mt-1 text-sm text-slate-600">{t("home.limitsIntro")}</p>
            <div className="mt-3 max-w-xl overflow-x-auto">
              <table className="w-full min-w-[18rem] text-left text-sm">
                <thead className="text-slate-600">
                  <tr>
                    <th scope="col" className="py-2 pr-4 font-medium">
                      {t("settings.accountType")}
                    </th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">
                      {t("home.limitPerWithdrawal")}
                    </th>
                    <th scope="col" className="py-2 text-right font-medium">
                      {t("home.limitPerDay")}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {ACCOUNT_TYPES.map((type) => (
                    <tr key={type} className="border-t border-slate-100">
                      <th scope="row" className="py-2 pr-4 font-medium text-slate-900">
                        {t(`settings.accountType.${type}`)}
                      </th>
                      <td className="py-2 pr-4 text-right tabular-nums">
                        {money(WITHDRAWAL_LIMITS[type].perTransaction)}
                      </td>
                      <td className="py-2 text-right tabular-nums">{money(WITHDRAWAL_LIMITS[type].daily)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        </section>

        <section aria-labelledby="como-comecar" className="mx-auto max-w-5xl scroll-mt-4 px-4 py-12 sm:px-6">
          <h2 id="como-comecar" className="text-2xl font-bold text-slate-900">
            {t("home.startTitle")}
          </h2>
          <ol className="mt-6 grid gap-4 sm:grid-cols-3">
            {START.map((s, i) => (
              <li key={s.title} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
                <span
                  aria-hidden="true"
                  className="grid size-8 place-items-center rounded-full bg-brand-700 text-sm font-bold text-white"
                >
                  {i + 1}
                </span>
                <h3 className="mt-3 font-semibold text-slate-900">{t(s.title)}</h3>
                <p className="mt-1 text-sm text-slate-600">{t(s.body)}</p>
              </li>
            ))}
          </ol>
          <Link href="/signup" className={buttonClass("primary", "mt-6 !min-h-12 w-full !px-6 text-base sm:w-auto")}>
            {t("home.signUp")}
          </Link>
        </section>

        <section aria-labelledby="desenvolvedores" className="bg-slate-900 text-slate-100">
          <div className="mx-auto max-w-5xl px-4 py-12 sm:px-6">
            <h2 id="desenvolvedores" className="text-2xl font-bold text-white">
              {t("home.devTitle")}
            </h2>
            <p className="mt-2 max-w-2xl text-slate-300">{t("home.devIntro")}</p>
            <pre
              translate="no"
              className="mt-4 whitespace-pre-wrap break-all rounded-lg bg-slate-950 p-4 text-xs leading-relaxed text-slate-100"
            >
              {`curl -X POST \\\n  ${apiUrl} \\\n  -H "Authorization: Bearer sk_test_…" \\\n  -H "Content-Type: application/json" \\\n  -d '{"value": 150}'`}
            </pre>
            <p className="mt-4 text-sm text-slate-300">
              {rich(t("home.footer"), { test: code("sk_test_…"), live: code("sk_live_…") })}
            </p>
            <Link href="/docs" className={buttonClass("secondary", "mt-6")}>
              {t("home.devLink")}
            </Link>
          </div>
        </section>
      </main>
    </div>
  );
}
