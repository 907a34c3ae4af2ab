import { InvalidInput } from "@/lib/errors";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { saoPauloDay } from "@/lib/money";
import { DayNotFinal, reconcileDay, type ReconSourceName, type RunSummary } from "./run";
import { reconSources } from "./sources";

// The daily reconciliation: every hour the queue's tick reconciles yesterday (São Paulo) for every
// provider this server has, unless that day is done already; a run that died resumes at its cursor.
// So each day is reconciled soon after it ends, and again within the hour after a failure.

export const reconcileQueue = jobQueue<object>("reconcile-daily", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 3600,
});
export const RECONCILE_TICK_SECONDS = 3600;

/** The São Paulo day before `now`. */
export function yesterday(now = new Date()): string {
  return saoPauloDay(new Date(now.getTime() - 24 * 60 * 60 * 1000));
}

/** Reconciles `day` (default yesterday) for `only` or every enabled source; `again` re-reads a done day. */
export async function reconcile(
  opts: { day?: string; only?: ReconSourceName; again?: boolean } = {},
): Promise<RunSummary[]> {
  const day = opts.day ?? yesterday();
  const out: RunSummary[] = [];
  const sources = reconSources();
  const asked = opts.only ? sources[opts.only] : null;
  // An operator asking for one source this server cannot read is told so, rather than shown nothing.
  if (opts.only && !asked?.enabled())
    throw new InvalidInput(
      `${opts.only} is not reconciled on this server: it runs in live mode with its provider configured (docs/operations.md)`,
    );
  for (const source of Object.values(sources)) {
    if (!source || (opts.only && source.name !== opts.only) || !source.enabled()) continue;
    try {
      out.push(await reconcileDay(source, day, { again: opts.again }));
    } catch (err) {
      // One provider down does not hold back the others; its run resumes at the next tick.
      if (err instanceof DayNotFinal)
        log.info("reconciliation waits: the day is not final at the provider yet", {
          source: source.name,
          day,
          reason: err.message,
        });
      else log.error("reconciliation failed; resumed at the next tick", { source: source.name, day, err });
      if (opts.only) throw err;
    }
  }
  return out;
}
