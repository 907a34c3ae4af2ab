import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { orders, pixPayouts, sandboxPixPayouts, withdrawals } from "@/db/schema";
import { isRunning } from "@/lib/jobs/queue";
import { ledgerSum } from "@/lib/ledger/ledger";
import { providerPayoutId } from "@/lib/pix-payouts/machine";
import { api, seedMerchant } from "./helpers";

// Work survives a dead instance (docs/architecture.md#work-held-by-an-instance-that-dies): two worker processes on one database; the first is
// SIGKILLed while it holds the sweep and while a PIX payout it sent has had no answer. Within 30 s the
// other runs the sweep again (an order that fell due meanwhile is expired) and resolves the payout by
// reading the provider by our id: made → COMPLETED without sending it again; never received → sent
// again under the same id. The money moves once either way.

const ROOT = path.resolve(__dirname, "..");
const TAKEOVER_MS = 30_000;
const children: ChildProcess[] = [];

type Instance = {
  child: ChildProcess;
  lines: string[];
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
};

function startInstance(env: Record<string, string>): Promise<Instance> {
  // node with tsx's loader, not tsx's CLI: the CLI runs the script in a child process that a SIGKILL
  // to the CLI would leave running.
  const child = spawn(process.execPath, ["--import", "tsx", "tests/fixtures/worker-instance.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "silent", EXPIRY_SWEEP_SECONDS: "2", SANDBOX_SETTLE_SECONDS: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (d: Buffer) => {
    lines.push(...d.toString().split("\n").filter(Boolean));
    for (const w of waiters) w();
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const instance: Instance = {
    child,
    lines,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const line of lines) {
            const m = pattern.exec(line);
            if (m) {
              waiters.delete(check);
              clearTimeout(timer);
              return resolve(m);
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`instance said no ${pattern} within ${timeoutMs} ms: ${lines.join(" | ")} ${stderr}`));
        }, timeoutMs);
        child.once("exit", (code, signal) =>
          reject(new Error(`instance exited (${code ?? signal}) before ${pattern}: ${stderr}`)),
        );
        waiters.add(check);
        check();
      });
    },
  };
  return instance.waitFor(/^ready$/).then(() => instance);
}

async function stopInstance(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}

// Each test leaves no instance behind, whatever failed: a stray one would take the next test's work.
afterEach(async () => {
  for (const c of children.splice(0)) {
    const stopped = stopInstance(c, "SIGTERM");
    const late = setTimeout(() => c.kill("SIGKILL"), 15_000);
    await stopped;
    clearTimeout(late);
  }
});

async function waitUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Sweeps pg-boss has on record, by state, with when they started and ended. */
async function sweeps() {
  const rows = await db().execute<{ state: string; started: number | null; completed: number | null }>(
    sql`select state, (extract(epoch from started_on) * 1000)::float8 as started, (extract(epoch from completed_on) * 1000)::float8 as completed
        from pgboss.job where name = 'sweep' order by created_on`,
  );
  return [...rows];
}

describe("two instances, one SIGKILLed mid-sweep and mid-payout", () => {
  it.each([
    { stall: "after", meaning: "the PSP made the PIX and the answer died with the process", sends: 1 },
    { stall: "before", meaning: "the request died before it reached the PSP", sends: 2 },
  ])(
    "$meaning: the other instance takes the sweep over and resolves the payout by reading the provider, within 30 s",
    async ({ stall, sends }) => {
      expect(isRunning()).toBe(false); // this process enqueues nothing: only a sweep finds the payout
      // Sweeps other test files queued in this shared database (another singletonKey, so not held back
      // by this queue's "stately" policy) would run beside A's: only this test's instances sweep here.
      await db().execute(
        sql`do $$ begin if to_regclass('pgboss.job') is not null then delete from pgboss.job where name = 'sweep'; end if; end $$`,
      );
      const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
      const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 12_345 } });
      expect(out.status, JSON.stringify(out.body)).toBe(201);
      const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, out.body.id));
      const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10, expiresIn: 60 } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const orderId = created.body.pixOrder._id as string;
      // Due a few seconds from now: after the first instance took the sweep, before it is killed.
      await db()
        .update(orders)
        .set({ expiresAt: sql`now() + interval '4 seconds'` })
        .where(eq(orders.id, orderId));

      const a = await startInstance({ PAYOUT_STALL: stall, PAYOUT_STALL_ID: providerPayoutId(payout) });
      await a.waitFor(new RegExp(`^payout-in-flight ${providerPayoutId(payout)}$`));
      const held = (await sweeps()).filter((s) => s.state === "active");
      expect(held).toHaveLength(1);
      await startInstance({});
      // Both alive, past the order's expiry: the sweep A holds is the only one.
      const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
      await new Promise((r) => setTimeout(r, Math.max(0, order.expiresAt!.getTime() - Date.now()) + 2_500));
      expect((await sweeps()).filter((s) => s.started !== null && s.started > held[0].started!)).toEqual([]);

      await stopInstance(a.child, "SIGKILL");
      const killedAt = Date.now();

      await waitUntil(
        "a sweep completed by the surviving instance",
        sweeps,
        (all) => all.some((s) => s.state === "completed" && s.completed! > killedAt),
        TAKEOVER_MS,
      );
      const sweptAfter = Date.now() - killedAt;
      await waitUntil(
        "the order that fell due expired",
        async () => (await db().select().from(orders).where(eq(orders.id, orderId)))[0].status,
        (s) => s === "CANCELLED",
        TAKEOVER_MS - (Date.now() - killedAt),
      );
      const w = await waitUntil(
        "the withdrawal resolved",
        async () => (await db().select().from(withdrawals).where(eq(withdrawals.id, out.body.id)))[0],
        (row) => row.status !== "PENDING",
        TAKEOVER_MS - (Date.now() - killedAt),
      );
      const resolvedAfter = Date.now() - killedAt;
      console.log(
        `PAYOUT_STALL=${stall}: sweep taken over ${sweptAfter} ms after SIGKILL, withdrawal ${w.status} after ${resolvedAfter} ms`,
      );

      expect(w).toMatchObject({ status: "COMPLETED", providerRef: expect.stringMatching(/^E/) });
      // One payment at the PSP, asked for once (made) or twice under the same id (never received).
      expect(
        await db()
          .select()
          .from(sandboxPixPayouts)
          .where(eq(sandboxPixPayouts.id, providerPayoutId(payout))),
      ).toHaveLength(1);
      const [after] = await db().select().from(pixPayouts).where(eq(pixPayouts.id, payout.id));
      expect(after).toMatchObject({ status: "completed", attempts: sends });
      // Debited once, never credited back.
      expect(await ledgerSum(db(), merchant.id)).toBe(50_000 - 12_345);
    },
    150_000,
  );
});
