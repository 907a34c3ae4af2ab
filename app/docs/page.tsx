import type { Metadata } from "next";
import Link from "next/link";
import { ApiReference } from "@/components/docs/api-reference";
import { buttonClass } from "@/components/ui/button";
import { openApiJson } from "@/lib/api/endpoints";
import type { MessageKey } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { Backticked } from "@/components/docs/backticked";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("docs.title") };
}

// Rendered per request from the same in-memory document /api/v1/openapi.json serves, so the server
// URL and limits are the running configuration's, not the build machine's.
export const dynamic = "force-dynamic";

const TOPICS: [MessageKey, MessageKey][] = [
  ["docs.intro.modesTitle", "docs.intro.modes"],
  ["docs.intro.keyTitle", "docs.intro.key"],
  ["docs.intro.webhooksTitle", "docs.intro.webhooks"],
];

/**
 * The merchant's and developer's way in, in their language (what the API is, sandbox and live, a key,
 * webhooks), then the reference generated from the OpenAPI document, which stays in English: its
 * field names, codes and error messages are the API's own.
 */
export default async function DocsPage() {
  const { t, locale } = await getI18n();
  return (
    <>
      <section
        lang={locale}
        aria-labelledby="docs-intro-title"
        className="mx-auto max-w-6xl px-4 pt-6 sm:px-6 sm:pt-10"
        data-testid="docs-intro"
      >
        <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">{t("docs.intro.eyebrow")}</p>
        <h1 id="docs-intro-title" className="mt-1 text-2xl font-bold tracking-tight sm:text-3xl">
          {t("docs.intro.title")}
        </h1>
        <p className="mt-3 max-w-3xl text-base text-slate-700">{t("docs.intro.what")}</p>
        <div className="mt-5 grid gap-4 md:grid-cols-3">
          {TOPICS.map(([title, body]) => (
            <div key={title} className="min-w-0 rounded-xl border border-slate-200 bg-white p-4">
              <h2 className="text-base font-semibold text-slate-900">{t(title)}</h2>
              <p className="mt-1 text-sm text-slate-700">
                <Backticked>{t(body)}</Backticked>
              </p>
            </div>
          ))}
        </div>
        <p className="mt-4 flex flex-wrap items-center gap-3 text-sm text-slate-700">
          <span>{t("docs.intro.reference")}</span>
          <Link href="/dashboard/developers" className={buttonClass("secondary")}>
            {t("docs.intro.openDevelopers")}
          </Link>
        </p>
      </section>
      <div lang="en">
        <ApiReference doc={JSON.parse(openApiJson())} />
      </div>
    </>
  );
}
