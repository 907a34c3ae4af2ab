import Link from "next/link";
import type { FirstStepsState } from "@/lib/dashboard/server/first-steps";
import type { MessageKey } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";

// The overview's first-steps checklist. Each step is ticked from the merchant's real state
// (lib/dashboard/server/first-steps.ts) and links to the page where it is done; steps the member's
// role cannot do are left out. Open while the essentials (payout key, a first order, a first payment)
// are missing, folded once they are done, gone once every step is.

export type FirstStep = { id: string; done: boolean; href: string; title: MessageKey; body: MessageKey };

export function firstSteps(
  state: FirstStepsState & { twoFactor: boolean },
  opts: { sandbox: boolean; may: (what: "orders" | "settings" | "developers") => boolean },
): FirstStep[] {
  const steps: (FirstStep & { shown: boolean })[] = [
    {
      id: "payoutKey",
      done: state.payoutKey,
      href: "/dashboard/settings",
      title: "firstSteps.payoutKey",
      body: "firstSteps.payoutKeyBody",
      shown: opts.may("settings"),
    },
    {
      id: "twoFactor",
      done: state.twoFactor,
      href: "/dashboard/security",
      title: "firstSteps.twoFactor",
      body: "firstSteps.twoFactorBody",
      shown: true,
    },
    {
      id: "firstOrder",
      done: state.firstOrder,
      href: "/dashboard/orders/new",
      title: "firstSteps.firstOrder",
      body: "firstSteps.firstOrderBody",
      shown: opts.may("orders"),
    },
    opts.sandbox
      ? {
          id: "firstPayment",
          done: state.firstPayment,
          href: "/dashboard/developers#sandbox-title",
          title: "firstSteps.simulatePayment",
          body: "firstSteps.simulatePaymentBody",
          shown: opts.may("orders"),
        }
      : {
          id: "firstPayment",
          done: state.firstPayment,
          href: "/dashboard/orders",
          title: "firstSteps.firstPayment",
          body: "firstSteps.firstPaymentBody",
          shown: true,
        },
    {
      id: "apiKey",
      done: state.apiKey,
      href: "/dashboard/developers",
      title: "firstSteps.apiKey",
      body: "firstSteps.apiKeyBody",
      shown: opts.may("developers"),
    },
    {
      id: "webhook",
      done: state.webhook,
      href: "/dashboard/developers",
      title: "firstSteps.webhook",
      body: "firstSteps.webhookBody",
      shown: opts.may("developers"),
    },
  ];
  return steps.filter((s) => s.shown).map(({ shown: _shown, ...s }) => s);
}

const ESSENTIAL = new Set(["payoutKey", "firstOrder", "firstPayment"]);

export async function FirstSteps({ steps }: { steps: FirstStep[] }) {
  const { t } = await getI18n();
  const done = steps.filter((s) => s.done).length;
  if (done === steps.length) return null;
  const essentialsDone = steps.every((s) => s.done || !ESSENTIAL.has(s.id));
  return (
    <section
      aria-labelledby="first-steps-title"
      className="mb-6 rounded-xl border border-brand-100 bg-white shadow-sm"
      data-testid="first-steps"
    >
      <details open={!essentialsDone} className="group">
        <summary className="flex cursor-pointer list-none flex-wrap items-center justify-between gap-2 rounded-xl p-4 focus-visible:outline-2 focus-visible:outline-brand-700 sm:p-5">
          <span>
            <span id="first-steps-title" className="block text-lg font-semibold text-slate-900">
              {t("firstSteps.title")}
            </span>
            <span className="block text-sm text-slate-600">{t("firstSteps.intro")}</span>
          </span>
          <span
            className="flex items-center gap-2 text-sm font-semibold text-brand-800"
            data-testid="first-steps-progress"
          >
            {t("firstSteps.progress", { done, total: steps.length })}
            <span aria-hidden className="text-slate-500 transition-transform group-open:rotate-180">
              ▾
            </span>
          </span>
        </summary>
        <ol className="divide-y divide-slate-100 border-t border-slate-100">
          {steps.map((s) => (
            <li
              key={s.id}
              className="grid grid-cols-[auto_1fr] items-start gap-x-3 gap-y-1 px-4 py-3 sm:grid-cols-[auto_1fr_auto] sm:px-5"
              data-testid={`first-step-${s.id}`}
              data-done={s.done}
            >
              <span
                aria-hidden
                className={`mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full border text-sm font-bold ${s.done ? "border-brand-700 bg-brand-700 text-white" : "border-slate-300 bg-white text-transparent"}`}
              >
                ✓
              </span>
              <div className="min-w-0 flex-1">
                <p className={`font-medium ${s.done ? "text-slate-500 line-through" : "text-slate-900"}`}>
                  {t(s.title)}
                  <span className="sr-only"> — {s.done ? t("firstSteps.done") : t("firstSteps.todo")}</span>
                </p>
                {s.done ? null : <p className="text-sm text-slate-600">{t(s.body)}</p>}
              </div>
              {s.done ? null : (
                // Phones: under the step's text; wider screens: at the row's end.
                <Link
                  href={s.href}
                  className="col-start-2 justify-self-start rounded text-sm font-semibold text-brand-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-brand-700 sm:col-start-3 sm:row-start-1 sm:self-center"
                >
                  {t("firstSteps.go")}
                  <span className="sr-only">: {t(s.title)}</span>
                </Link>
              )}
            </li>
          ))}
        </ol>
      </details>
    </section>
  );
}
