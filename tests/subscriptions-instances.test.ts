import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { events, ledgerEntries, orders, pixReceipts, subscriptionCycles, subscriptions } from "@/db/schema";
import { saoPauloDay } from "@/lib/day-range";
import { addDays } from "@/lib/pix/business-days";
import { dueDateOf } from "@/lib/subscriptions/schedule";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { waitFor } from "./support/wait";

// Pix Automático's cycle engine across instances and a crash (docs/api.md#subscriptions, "Work survives
// restarts and runs once across instances"): two app instances (tests/fixtures/subscription-instance.ts,
// separate processes) on one database and the test PSP (tests/fixtures/pix-psp, checking every request
// against the Central Bank's document), the PSP's notifications reaching either through a balancer here.
// A journey-3 subscription is authorised and paid, then three monthly cycles are charged in their
// windows on a clock the test moves in the PSP and in both instances. Cycle 2's PUT /cobr reaches the
// PSP and the instance that sent it is SIGKILLed before hearing the answer; it is started again, and for
// cycle 3 it alone runs the engine. Every paid cycle is one order, one ledger credit, one receipt and
// one PAID event; one charge per cycle at the PSP; no request the document refuses.

const ROOT = path.resolve(__dirname, "..");
const RECEIVER_KEY = "7c2e9a14-3b5d-4f6e-8a1c-9d0b2e4f6a81";
const WEBHOOK_TOKEN = "subscriptions-instances-webhook-token-0123";
const ACCOUNT = { PIX_RECEIVER_BRANCH: "0001", PIX_RECEIVER_ACCOUNT: "1234567", PIX_RECEIVER_ACCOUNT_TYPE: "CORRENTE" };
// A dead instance's jobs come back within 30 s (lib/jobs/queue.ts); boots and sweeps on a loaded machine take more.
const TAKEOVER_MS = 60_000;
const STEP_MS = 45_000;

type Instance = {
  name: string;
  child: ChildProcess;
  port: number;
  lines: string[];
  stderr: () => string;
  exited: Promise<void>;
};

let psp: PixPsp;
let balancer: { origin: string; close(): Promise<void> };
let bundle: string;
let tmp: string;
const live: Instance[] = [];
const all: Instance[] = [];
const today = saoPauloDay();
/** The PSP's clock and the engines': noon in São Paulo of the day the test is on. */
let clock = new Date(`${today}T12:00:00-03:00`);

/** The PSP's notifications, to an instance that answers (as a load balancer would), over https. */
async function startBalancer() {
  const server = https.createServer(
    { key: fs.readFileSync(psp.files.serverKey), cert: fs.readFileSync(psp.files.serverCert), minVersion: "TLSv1.2" },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const tryNext = (targets: Instance[]) => {
          const target = targets[0];
          if (!target) return void res.writeHead(503).end();
          const out = http.request(
            {
              host: "127.0.0.1",
              port: target.port,
              method: req.method,
              path: req.url,
              headers: { "content-type": req.headers["content-type"] ?? "application/json" },
            },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502);
              answer.pipe(res);
            },
          );
          out.on("error", () => tryNext(targets.slice(1)));
          out.end(body);
        };
        // Round robin over the instances alive now.
        const start = Math.floor(Math.random() * Math.max(1, live.length));
        tryNext([...live.slice(start), ...live.slice(0, start)]);
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function instanceEnv(name: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: RECEIVER_KEY, webhookToken: WEBHOOK_TOKEN }),
    ...ACCOUNT,
    // A loaded machine answers the PSP's fixture slower than production's PSP answers.
    PIX_TIMEOUT_MS: "10000",
    INSTANCE_NAME: name,
    EXPIRY_SWEEP_SECONDS: "1",
    LOG_LEVEL: process.env.SUBS_INSTANCES_LOG_LEVEL ?? "silent",
    ENGINE_CLOCK: clock.toISOString(),
    STALL_CHARGE_MARKER: path.join(tmp, "stalled"),
    ...extra,
  };
}

/** Starts an instance and resolves once it says it serves and runs jobs. */
function startInstance(name: string, extra: Record<string, string> = {}): Promise<Instance> {
  const child = spawn(process.execPath, [bundle], {
    cwd: ROOT,
    env: instanceEnv(name, extra),
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const lines: string[] = [];
  let stderr = "";
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const instance: Instance = { name, child, port: 0, lines, stderr: () => stderr, exited };
  all.push(instance);
  // Both pipes are read to the end, whatever the instance writes: a full pipe would stall it.
  child.stdout!.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code, signal) =>
      reject(new Error(`instance ${name} exited (${code ?? signal}) before it was ready: ${stderr}`)),
    );
    void waitFor(
      `instance ${name} ready`,
      async () => lines.find((l) => l.startsWith("ready ")),
      Boolean,
      TAKEOVER_MS,
      { everyMs: 50 },
    ).then(
      ({ value }) => {
        instance.port = Number(value!.split(" ")[1]);
        live.push(instance);
        resolve(instance);
      },
      (err: Error) => reject(new Error(`${err.message}; stdout ${lines.join(" | ")}; stderr ${stderr}`)),
    );
  });
}

async function stop(instance: Instance, signal: NodeJS.Signals) {
  live.splice(live.indexOf(instance), 1);
  if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill(signal);
  await instance.exited;
}

/** Moves the PSP's and every live engine's clock to noon of `day`, once each instance has applied it. */
async function at(day: string) {
  clock = new Date(`${day}T12:00:00-03:00`);
  const iso = clock.toISOString();
  await Promise.all(
    live.map(
      (i) =>
        new Promise<void>((resolve) => {
          const onAck = (m: { clockAck?: string }) => {
            if (m.clockAck !== iso) return;
            i.child.off("message", onAck);
            resolve();
          };
          i.child.on("message", onAck);
          i.child.send({ clock: iso });
        }),
    ),
  );
}

async function api(instance: Instance, method: string, url: string, apiKey: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${instance.port}${url}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const cycleRows = (subscriptionId: string) =>
  db()
    .select()
    .from(subscriptionCycles)
    .where(eq(subscriptionCycles.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionCycles.cycle));

const cycleOf = async (subscriptionId: string, n: number) =>
  (await cycleRows(subscriptionId)).find((c) => c.cycle === n);

const until = <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = STEP_MS) =>
  waitFor(what, read, done, ms, { everyMs: 100 }).then((r) => r.value);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "subs-instances-"));
  bundle = path.join(ROOT, "dist/tests/subscription-instance.cjs");
  // Bundled once, as scripts/faults bundles its server: each start then costs no transpiling.
  await build({
    entryPoints: [path.join(ROOT, "tests/fixtures/subscription-instance.ts")],
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    packages: "external",
    outfile: bundle,
    logLevel: "warning",
  });
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, quiet: true, now: () => clock, webhookHandshake: "none" });
  balancer = await startBalancer();
  // Only this test's instances work this database's queues: jobs other files left (their sweeps, their
  // notices for another PSP) would run beside them.
  await db().execute(
    sql`do $$ begin if to_regclass('pgboss.job') is not null then delete from pgboss.job; end if; end $$`,
  );
}, 120_000);

afterAll(async () => {
  for (const i of all) {
    if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill("SIGKILL");
    await i.exited;
  }
  await balancer?.close();
  await psp?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("Pix Automático on two instances, one SIGKILLed while a cycle's charge is in flight", () => {
  it("every paid cycle is credited exactly once; the restarted instance runs the engine; the PSP saw only valid requests", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const firstDate = addDays(today, 20);
    const dues = [1, 2, 3].map((n) => dueDateOf(firstDate, "MENSAL", n));
    const notices = `${balancer.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`;
    const stall = { STALL_CHARGE_DUE: dues[1] };
    const [a] = await Promise.all([
      startInstance("subs-a", { ...stall, NOTICE_URL: notices }),
      startInstance("subs-b", stall),
    ]);

    const created = await api(a, "POST", "/api/v1/subscriptions", apiKey, {
      payer: { name: "Maria Souza", cpf: "529.982.247-25" },
      description: "Plano mensal Academia",
      reference: "contrato-instancias",
      amount: { type: "FIXED", value: 89.9 },
      periodicity: "MENSAL",
      firstDate,
      retryPolicy: "PERMITE_3R_7D",
      journey: "JORNADA_3",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const subId = created.body.subscription.id as string;
    const idRec = created.body.subscription.recurrenceId as string;

    // The payer reads the QR: the first payment and the authorisation, notified to either instance.
    await psp.recurring.authorize(idRec);
    await until(
      "the subscription ACTIVE with cycle 0 PAID",
      async () => [
        (await db().select().from(subscriptions).where(eq(subscriptions.id, subId)))[0].status,
        (await cycleOf(subId, 0))?.status,
      ],
      ([s, c]) => s === "ACTIVE" && c === "PAID",
    );

    let restarted: Instance | undefined;
    for (const [i, due] of dues.entries()) {
      const n = i + 1;
      if (n === 3) {
        // The instance that was never killed stops: the restarted one alone sends cycle 3 and credits it.
        const other = live.find((x) => x !== restarted)!;
        await stop(other, "SIGTERM");
        expect(live).toEqual([restarted]);
      }
      // Cycle 2's notices are lost: only the sweep, which the dead instance held, can take the charge over.
      psp.faults.dropNotifications = n === 2;
      // Seven days before: inside the document's window, the sweep records the cycle and sends it.
      await at(addDays(due, -7));
      if (n === 2) {
        // The charge reaches the PSP; the instance that sent it dies before hearing the answer.
        const victim = await until(
          "an instance with cycle 2's charge in flight",
          async () => live.find((x) => x.lines.some((l) => l.startsWith("charge-in-flight "))),
          Boolean,
        );
        const txid = victim!.lines.find((l) => l.startsWith("charge-in-flight "))!.split(" ")[1];
        // It dies inside the sweep: pg-boss still has that sweep active, with nobody left to finish it.
        const held = await db().execute<{ n: number }>(
          sql`select count(*)::int as n from pgboss.job where name = 'sweep' and state = 'active'`,
        );
        expect([...held][0].n).toBe(1);
        await stop(victim!, "SIGKILL");
        const stuck = (await cycleOf(subId, 2))!;
        expect(stuck).toMatchObject({ status: "CREATING", txid });
        expect(psp.recurring.cobrs.has(txid)).toBe(true);
        const killedAt = Date.now();
        restarted = await startInstance(victim!.name, victim!.name === "subs-a" ? { NOTICE_URL: notices } : {});
        const bootMs = Date.now() - killedAt;
        await until(
          "cycle 2 SCHEDULED after the kill",
          () => cycleOf(subId, 2),
          (c) => c?.status === "SCHEDULED",
          TAKEOVER_MS,
        );
        psp.faults.dropNotifications = false;
        console.log(
          `restarted ${victim!.name} ready ${bootMs} ms after SIGKILL; cycle 2 taken over after ${Date.now() - killedAt} ms`,
        );
      }
      const sent = await until(
        `cycle ${n} SCHEDULED`,
        () => cycleOf(subId, n),
        (c) => c?.status === "SCHEDULED",
      );
      expect(sent).toMatchObject({ dueDate: due, kind: "RECURRING", valueCentavos: 8990 });
      // Debited on its attempt's date (the due date, or the business day after it); the PSP's notice is
      // read back by whichever instance gets it.
      await at(sent!.attempts[0].settlementDate);
      await psp.recurring.settle(sent!.txid, "PAGA");
      await until(
        `cycle ${n} PAID`,
        () => cycleOf(subId, n),
        (c) => c?.status === "PAID",
      );
    }
    // The restarted instance serves the API too: the merchant sees every cycle paid.
    const view = await api(restarted!, "GET", `/api/v1/subscriptions/${subId}`, apiKey);
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.body.subscription.cycles.map((c: { cycle: number; status: string }) => [c.cycle, c.status])).toEqual([
      [0, "PAID"],
      [1, "PAID"],
      [2, "PAID"],
      [3, "PAID"],
    ]);

    // Exactly once: one cycle per due date, one charge at the PSP each, one order, receipt, credit and PAID event each.
    const rows = await cycleRows(subId);
    expect(rows.map((r) => [r.cycle, r.status])).toEqual([
      [0, "PAID"],
      [1, "PAID"],
      [2, "PAID"],
      [3, "PAID"],
    ]);
    expect(rows.slice(1).map((r) => r.dueDate)).toEqual(dues);
    const charges = [...psp.recurring.cobrs.values()].filter((c) => c.idRec === idRec);
    expect(charges.map((c) => c.txid).sort()).toEqual(
      rows
        .slice(1)
        .map((r) => r.txid)
        .sort(),
    );
    const subOrders = await db()
      .select()
      .from(orders)
      .where(sql`${orders.reference}->>'subscriptionId' = ${subId}`);
    expect(subOrders).toHaveLength(4);
    expect(new Set(subOrders.map((o) => o.id))).toEqual(new Set(rows.map((r) => r.orderId)));
    expect(subOrders.every((o) => o.status === "COMPLETED")).toBe(true);
    const receipts = await db()
      .select()
      .from(pixReceipts)
      .where(
        inArray(
          pixReceipts.orderId,
          rows.map((r) => r.orderId),
        ),
      );
    expect(receipts.map((r) => r.orderId).sort()).toEqual(rows.map((r) => r.orderId).sort());
    const credits = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchant.id), eq(ledgerEntries.kind, "order_credit")));
    expect(credits.map((c) => c.refId).sort()).toEqual(rows.map((r) => r.orderId).sort());
    expect(credits.reduce((s, c) => s + c.amountCentavos, 0)).toBe(4 * 8990);
    expect(await balanceMatchesLedger(merchant.id)).toBe(4 * 8990);
    const evs = await db()
      .select()
      .from(events)
      .where(inArray(events.subjectId, [subId, ...rows.map((r) => r.id)]))
      .orderBy(asc(events.seq));
    const statusOf = (e: (typeof evs)[number]) => (e.data as { status: string }).status;
    expect(evs.filter((e) => e.type === "subscription.status_changed").map(statusOf)).toEqual(["ACTIVE"]);
    const paid = evs.filter((e) => e.type === "subscription.charge.status_changed" && statusOf(e) === "PAID");
    expect(paid.map((e) => e.subjectId).sort()).toEqual(rows.map((r) => r.id).sort());

    // Every request the instances sent the PSP, and every answer and notice, followed the document.
    expect(psp.violations).toEqual([]);
    expect(psp.requests.some((r) => r.method === "PUT" && r.path.includes("/cobr/"))).toBe(true);
  }, 240_000);
});
