import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";

// Mail that must not hold up the request that caused it: a withdrawal or refund over the API answers
// without waiting for an SMTP server (each sendMail is a connection and a few round trips, up to its
// timeouts when the server is slow). The work runs after the caller returns, a few at a time; a
// burst waits its turn in memory, within a bound, rather than opening a connection per request.
// What a mail reports has already committed (and is in the audit trail), so a mail lost to a crash
// or an overflow is logged, never retried. sendMail itself never throws (lib/mail/mailer.ts).

/** Mail tasks running at once: enough for a burst of withdrawals, few enough for one SMTP server. */
const CONCURRENCY = 4;
/** Tasks waiting beyond the running ones; past this a task is dropped and logged (SMTP down under load). */
const MAX_WAITING = 1000;

type State = { running: number; waiting: (() => void)[]; inFlight: Set<Promise<void>> };
// One per process: Next's bundle (dashboard) and the server's own (API fast path) share it.
const slot = processSlot<State>("mail-background");
const state = () => (slot.value ??= { running: 0, waiting: [], inFlight: new Set() });

async function turn(s: State): Promise<void> {
  if (s.running < CONCURRENCY) {
    s.running++;
    return;
  }
  // The finishing task hands its slot over (running stays the same).
  await new Promise<void>((resolve) => s.waiting.push(resolve));
}

function release(s: State) {
  const next = s.waiting.shift();
  if (next) next();
  else s.running--;
}

/** Runs `task` after the caller returns, without its caller waiting; `what` names it in the log. */
export function mailInBackground(what: string, task: () => Promise<unknown>): void {
  const s = state();
  if (s.waiting.length >= MAX_WAITING) {
    log.error("mail backlog full: mail dropped", { what });
    return;
  }
  const run = (async () => {
    await turn(s);
    try {
      await task();
    } catch (err) {
      log.warn("background mail failed", { what, err });
    } finally {
      release(s);
    }
  })();
  s.inFlight.add(run);
  void run.finally(() => s.inFlight.delete(run));
}

/** Resolves once every mail handed over so far has been sent or given up (tests; a graceful shutdown). */
export async function backgroundMailSettled(): Promise<void> {
  const s = state();
  while (s.inFlight.size > 0) await Promise.allSettled([...s.inFlight]);
}
