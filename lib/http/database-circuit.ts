import postgres from "postgres";
import { databaseUrl } from "@/db";
import { targetSessionAttrs } from "@/lib/database-url";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";

// While the database cannot be reached, an API request is told so at once (503, Retry-After) instead
// of each one waiting out the connect timeout or a connection hung in a partition, and piling up
// meanwhile. A request that fails with a connection error starts a probe on a connection of its own
// (the pool's may all be hung); only the probe failing opens the circuit, so one killed backend never
// does. The probe keeps trying every PROBE_EVERY_MS and closes the circuit the moment the database
// answers, so requests go through again within a fraction of a second of its return.

const PROBE_EVERY_MS = 200;
const PROBE_TIMEOUT_SECONDS = 1;

type Circuit = { open: boolean; probing: boolean; openedAt: number };
const circuit = processSlot<Circuit>("database-circuit");

function state(): Circuit {
  return (circuit.value ??= { open: false, probing: false, openedAt: 0 });
}

/** True while the database is known to be unreachable: answer 503 without trying it. */
export function databaseKnownDown(): boolean {
  return state().open;
}

/** A request failed because the database could not be reached: find out whether it still cannot. */
export function noteDatabaseUnreachable(): void {
  const s = state();
  if (s.probing) return;
  s.probing = true;
  void probeUntilAnswered(s);
}

async function probeUntilAnswered(s: Circuit): Promise<void> {
  try {
    while (!(await answers())) {
      if (!s.open) {
        s.open = true;
        s.openedAt = Date.now();
        log.warn("database unreachable: API requests are answered 503 at once until it answers again");
      }
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS).unref());
    }
    if (s.open) log.info("database answers again: API requests go through", { downMs: Date.now() - s.openedAt });
    s.open = false;
  } finally {
    s.probing = false;
  }
}

/** A new connection each time: one made before a partition can stay silent for minutes. */
async function answers(): Promise<boolean> {
  const url = databaseUrl();
  const sql = postgres(url, {
    max: 1,
    // Answered only by a server the pool could write to: a standby alone (mid-failover) is still down.
    target_session_attrs: targetSessionAttrs(url) ?? "read-write",
    connect_timeout: PROBE_TIMEOUT_SECONDS,
    onnotice: () => {},
    // Nothing named: a pooler in transaction mode may hand each statement to another session.
    prepare: false,
    connection: { application_name: "payments:probe" },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    // The connect timeout does not cover a server that took the connection and then went silent.
    const silent = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error("no answer")), PROBE_TIMEOUT_SECONDS * 1000 + 200)),
    );
    await Promise.race([sql`select 1`, silent]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    await sql.end({ timeout: 0 }).catch(() => {});
  }
}
