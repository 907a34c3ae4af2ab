import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { events, ledgerEntries, orders, pixReceipts, subscriptionCycles } from "@/db/schema";
import { setClockForTests } from "@/lib/clock";
import { saoPauloDay, saoPauloDayStart } from "@/lib/day-range";
import { resetEnvForTests } from "@/lib/env";
import { startJobs, stopJobs } from "@/lib/jobs/queue";
import { addDays } from "@/lib/pix/business-days";
import { providers } from "@/lib/providers";
import { acceptRecurringNotification } from "@/lib/subscriptions/receiver";
import { dueDateOf } from "@/lib/subscriptions/schedule";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api } from "./helpers";
import { saveEnv } from "./support/env";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { waitFor } from "./support/wait";

// Every cycle of a subscription credited exactly once across two instances of the cycle engine
// (docs/architecture.md#work-held-by-an-instance-that-dies): two worker processes (the sweep with the
// engine, the subscription-notice queue) on one database, against the test PSP, which checks every
// request against the Central Bank's document, all on a clock the test moves. One instance is SIGKILLed
// after its PUT /cobr reached the PSP and before it recorded the answer, and one while its credit's
// transaction is open (blocked on the cycle's Pix by this test); each is restarted. The PSP's notices
// reach this process, which queues them for the instances (it works no queue itself).

const ROOT = path.resolve(__dirname, "..");
const RECEIVER_KEY = "d6f1a8c2-5b7e-4c3a-9e1f-2a4b6c8d0e12";
const WEBHOOK_TOKEN = "subscriptions-instances-webhook-token-01";
const ACCOUNT = { PIX_RECEIVER_BRANCH: "0001", PIX_RECEIVER_ACCOUNT: "1234567", PIX_RECEIVER_ACCOUNT_TYPE: "CORRENTE" };

let psp: PixPsp;
let receiver: https.Server;
let clock = new Date();
const savedEnv = saveEnv();
const children = new Set<ChildProcess>();

type Instance = {
  name: string;
  child: ChildProcess;
  say(line: string): void;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
};

function startInstance(name: string): Promise<Instance> {
  // node with tsx's loader, not tsx's CLI: a SIGKILL to the CLI would leave its child running.
  const child = spawn(
    process.execPath,
    [
      ...(process.env.INSTANCE_REPORTS
        ? ["--report-on-signal", `--report-directory=${process.env.INSTANCE_REPORTS}`]
        : []),
      "--import",
      "tsx",
      "tests/fixtures/subscription-instance.ts",
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        HEARTBEAT: "1",
        EXPIRY_SWEEP_SECONDS: "1",
        START_CLOCK: clock.toISOString(),
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  children.add(child);
  const lines: string[] = [];
  let stderr = "";
  child.once("exit", (code, signal) => {
    children.delete(child);
    console.log(`${name} (${child.pid}) exited: ${code ?? signal} ${stderr.slice(-500)}`);
  });
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (d: Buffer) => {
    lines.push(...d.toString().split("\n").filter(Boolean));
    for (const w of waiters) w();
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const instance: Instance = {
    name,
    child,
    say: (line) => child.stdin!.write(`${line}\n`),
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const i = lines.findIndex((l) => pattern.test(l));
          if (i < 0) return;
          const [line] = lines.splice(i, 1);
          waiters.delete(check);
          clearTimeout(timer);
          resolve(pattern.exec(line)!);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          let stat = "";
          try {
            stat = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8");
          } catch (err) {
            stat = String(err);
          }
          if (process.env.INSTANCE_REPORTS) child.kill("SIGUSR2");
          reject(
            new Error(
              `${name} said no ${pattern} within ${timeoutMs} ms: ${lines.join(" | ")} ${stderr.slice(-3000)} ${stat}`,
            ),
          );
        }, timeoutMs);
        child.once("exit", (code, signal) =>
          reject(new Error(`${name} exited (${code ?? signal}) before ${pattern}: ${stderr}`)),
        );
        waiters.add(check);
        check();
      });
    },
  };
  return instance.waitFor(/^ready$/).then(() => instance);
}

async function stop(i: Instance, signal: NodeJS.Signals): Promise<void> {
  const { child } = i;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}

/** Noon in São Paulo on `day`, for the PSP, this process and every instance. */
async function at(day: string, instances: Instance[]): Promise<void> {
  clock = new Date(saoPauloDayStart(day).getTime() + 12 * 3600_000);
  setClockForTests(clock);
  const iso = clock.toISOString();
  await Promise.all(
    instances.map((i) => {
      const told = i.waitFor(new RegExp(`^clock ${iso.replace(/[.]/g, "\\.")}$`), 10_000);
      i.say(`clock ${iso}`);
      return told;
    }),
  );
}

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, quiet: true, now: () => clock, webhookHandshake: "none" });
  // Where the PSP notifies: answered at once, each id queued for the instances to read back.
  receiver = https.createServer(
    { key: fs.readFileSync(psp.files.serverKey), cert: fs.readFileSync(psp.files.serverCert), minVersion: "TLSv1.2" },
    (req, res) => {
      let raw = "";
      req.on("data", (c) => (raw += c));
      req.on("end", () => {
        acceptRecurringNotification(JSON.parse(raw)).then(
          () => res.writeHead(200).end(),
          (err: unknown) => {
            console.error("[notice receiver]", err);
            res.writeHead(500).end();
          },
        );
      });
    },
  );
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const base = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/providers/pix/${WEBHOOK_TOKEN}`;
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: RECEIVER_KEY, webhookToken: WEBHOOK_TOKEN }),
    ACCOUNT,
  );
  resetEnvForTests();
  await providers().recurring.configureWebhooks!({ rec: base, cobr: base });
  // Sweeps other files left queued in this database would run beside the instances' own.
  await db().execute(
    sql`do $$ begin if to_regclass('pgboss.job') is not null then delete from pgboss.job where name = 'sweep'; end if; end $$`,
  );
});

afterAll(async () => {
  for (const c of [...children]) {
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGKILL");
    await exited;
  }
  await stopJobs();
  setClockForTests(undefined);
  await new Promise<void>((r) => {
    receiver.close(() => r());
    receiver.closeAllConnections();
  });
  await psp.close();
  savedEnv.restore();
});

const cyclesOf = (subscriptionId: string) =>
  db()
    .select()
    .from(subscriptionCycles)
    .where(eq(subscriptionCycles.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionCycles.cycle));

/** The cycle `n` once it is in `status`. */
async function cycleIn(subscriptionId: string, n: number, status: string, timeoutMs = 60_000) {
  const { value } = await waitFor(
    `cycle ${n} ${status}`,
    async () => (await cyclesOf(subscriptionId)).find((c) => c.cycle === n),
    (c) => c?.status === status,
    timeoutMs,
    { everyMs: 100 },
  );
  return value!;
}

/** The process id of the instance whose connection waits, in its credit's transaction, on the Pix `e2e`. */
async function blockedOn(instances: Instance[]): Promise<Instance> {
  const { value } = await waitFor(
    "an instance's credit blocked on the held Pix",
    async () =>
      [
        ...(await db().execute<{ app: string }>(
          sql`select application_name as app from pg_stat_activity
              where wait_event_type = 'Lock' and query ilike 'insert into "pix_receipts"%'`,
        )),
      ].map((r) => Number(r.app.split(":")[1])),
    (pids) => pids.some((pid) => instances.some((i) => i.child.pid === pid)),
    60_000,
    { everyMs: 100 },
  );
  return instances.find((i) => value.includes(i.child.pid!))!;
}

describe("two instances of the cycle engine, one killed mid-cycle and restarted", () => {
  it("every cycle is sent once, credited once, with one order and one event per state change; 0 violations", async () => {
    await startJobs({ workers: [], recurring: [] });
    const { merchant, apiKey } = await liveMerchant();
    const today = saoPauloDay();
    const firstDate = addDays(today, 20);
    await at(today, []);
    let a = await startInstance("A");
    let b = await startInstance("B");

    const created = await api("POST", "/api/v1/subscriptions", {
      apiKey,
      body: {
        payer: { name: "Maria Souza", cpf: "529.982.247-25" },
        description: "Plano mensal",
        reference: "assinatura-7042",
        amount: { type: "FIXED", value: 49.9 },
        periodicity: "MENSAL",
        firstDate,
        retryPolicy: "PERMITE_3R_7D",
        journey: "JORNADA_3",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sub = created.body.subscription;

    // Journey 3: the payer pays the first cycle and authorises the rest; an instance reads it back.
    await psp.recurring.authorize(sub.recurrenceId);
    await cycleIn(sub.id, 0, "PAID");

    // Cycle 1: A holds the sweep and dies after its PUT /cobr reached the PSP, before it heard the answer.
    const due1 = dueDateOf(firstDate, "MENSAL", 1);
    // Its notices held: only B's sweep can find the cycle A left, once A's hold on the sweep is over.
    psp.faults.holdRecurringNotifications = true;
    await stop(b, "SIGTERM");
    a.say("stall cobr");
    await a.waitFor(/^stall armed$/);
    await at(addDays(due1, -9), [a]);
    const [, txid1] = await a.waitFor(/^cobr-in-flight (\S+)$/);
    expect(psp.recurring.cobrs.get(txid1)).toMatchObject({ idRec: sub.recurrenceId, status: expect.any(String) });
    expect((await cyclesOf(sub.id))[1]).toMatchObject({ status: "CREATING", txid: txid1 });
    b = await startInstance("B");
    await stop(a, "SIGKILL");
    // B takes the sweep over and sends the charge again: the same txid, the charge the PSP already has.
    const killedAt = Date.now();
    const scheduled = await cycleIn(sub.id, 1, "SCHEDULED", 90_000);
    console.log(`cycle 1 sent again by B's sweep ${Date.now() - killedAt} ms after A was killed`);
    psp.faults.holdRecurringNotifications = false;
    await psp.recurring.release("in-order");
    expect(scheduled.txid).toBe(txid1);
    a = await startInstance("A");
    await at(addDays(due1, -9), [a, b]);

    // Its due date: the payer's PSP settles it. This test holds the Pix's receipt row open, so the
    // instance crediting it waits inside its transaction; that instance is killed there.
    await at(due1, [a, b]);
    const e2e = psp.recurring.cobrs.get(txid1)!.tentativas[0]?.endToEndId;
    expect(e2e).toMatch(/^E/);
    const [cycle0] = await cyclesOf(sub.id);
    const hold = db().transaction(async (tx) => {
      await tx.insert(pixReceipts).values({
        endToEndId: e2e!,
        orderId: cycle0.orderId,
        merchantId: merchant.id,
        valueCentavos: 1,
        paidAt: new Date(),
        applied: false,
        unappliedReason: "unknown_txid",
        source: "poll",
      });
      await psp.recurring.settle(txid1, "PAGA");
      const crediting = await blockedOn([a, b]);
      console.log(`instance ${crediting.name} killed inside its credit's transaction`);
      await stop(crediting, "SIGKILL");
      if (crediting === a) a = await startInstance("A");
      else b = await startInstance("B");
      await at(due1, [a, b]);
      tx.rollback();
    });
    await expect(hold).rejects.toThrow();
    await cycleIn(sub.id, 1, "PAID");

    // Cycle 2, both instances alive: sent in its window and paid.
    const due2 = dueDateOf(firstDate, "MENSAL", 2);
    await at(addDays(due2, -8), [a, b]);
    const sent2 = await cycleIn(sub.id, 2, "SCHEDULED");
    await at(due2, [a, b]);
    await psp.recurring.settle(sent2.txid, "PAGA");
    await cycleIn(sub.id, 2, "PAID");
    // Settle the instances' last work before counting.
    await new Promise((r) => setTimeout(r, 3_000));

    const cycles = await cyclesOf(sub.id);
    expect(cycles.slice(0, 3).map((c) => [c.cycle, c.status])).toEqual([
      [0, "PAID"],
      [1, "PAID"],
      [2, "PAID"],
    ]);
    // One charge at the PSP per recurring cycle.
    const atPsp = [...psp.recurring.cobrs.values()].filter((c) => c.idRec === sub.recurrenceId);
    expect(atPsp.map((c) => c.txid).sort()).toEqual(
      cycles
        .filter((c) => c.cycle > 0)
        .map((c) => c.txid)
        .sort(),
    );
    // One order per cycle, each credited once.
    const subOrders = await db()
      .select()
      .from(orders)
      .where(sql`${orders.reference}->>'subscriptionId' = ${sub.id}`);
    expect(subOrders.map((o) => o.id).sort()).toEqual(cycles.map((c) => c.orderId).sort());
    const credits = await db()
      .select({ refId: ledgerEntries.refId, amount: ledgerEntries.amountCentavos })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchant.id), eq(ledgerEntries.kind, "order_credit")));
    expect(credits.map((c) => c.refId).sort()).toEqual(
      cycles
        .slice(0, 3)
        .map((c) => c.orderId)
        .sort(),
    );
    expect(credits.reduce((n, c) => n + c.amount, 0)).toBe(3 * 4990);
    await balanceMatchesLedger(merchant.id);
    const receipts = await db()
      .select()
      .from(pixReceipts)
      .where(
        inArray(
          pixReceipts.orderId,
          cycles.map((c) => c.orderId),
        ),
      );
    expect(receipts.filter((r) => r.applied)).toHaveLength(3);

    // One event per state change: the subscription's once, each cycle's statuses each once.
    const evs = await db()
      .select()
      .from(events)
      .where(inArray(events.subjectId, [sub.id, ...cycles.map((c) => c.id)]))
      .orderBy(asc(events.seq));
    const statusOf = (e: (typeof evs)[number]) => (e.data as { status: string }).status;
    expect(evs.filter((e) => e.subjectId === sub.id).map(statusOf)).toEqual(["ACTIVE"]);
    const seen = cycles.slice(0, 3).map((c) => evs.filter((e) => e.subjectId === c.id).map(statusOf));
    // Cycle 0 is recorded with the subscription itself (no event); the PSP's payment makes it PAID.
    expect(seen).toEqual([["PAID"], ["CREATING", "SCHEDULED", "PAID"], ["CREATING", "SCHEDULED", "PAID"]]);

    // Every request sent to the PSP and every answer and notice it gave followed the document.
    expect(psp.violations).toEqual([]);
  }, 300_000);
});
