import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { eq } from "drizzle-orm";
import { db } from "@/db";
import { webhookDeliveries } from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { api, seedMerchant } from "./helpers";
import { sleep, startReceiver } from "./webhook-receiver";

// At least once across a crash: a dispatcher process is killed with SIGKILL while the receiver holds
// its requests open, another starts, and every event still arrives (some twice, none lost). The
// deliveries the dead worker had claimed come back when their lease (WEBHOOK_TIMEOUT_MS + 5 s) ends.

const ROOT = path.resolve(__dirname, "..");
const children: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  // node with tsx's loader, not node_modules/.bin/tsx: that CLI runs the script in a child process,
  // which a SIGKILL to the CLI would leave running (an orphan that keeps delivering).
  const child = spawn(process.execPath, ["--import", "tsx", "tests/fixtures/webhook-worker.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}) before it was ready: ${stderr}`)));
  });
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("a dispatcher killed mid-delivery", () => {
  it("SIGKILL while requests are in flight, then a new worker: every event arrives at least once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await startReceiver(async () => {
      await sleep(400);
      return { status: 200 };
    });
    const res = await api("POST", "/api/v1/webhooks", { apiKey, body: { url: rx.url } });
    expect(res.status).toBe(201);
    const eventIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      await db().transaction((tx) =>
        recordEvent(tx, {
          merchantId: merchant.id,
          type: "order.status_changed",
          subjectType: "order",
          subjectId: `crash-${i}`,
          data: { i },
        }),
      );
    }
    const deliveries = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.merchantId, merchant.id));
    eventIds.push(...deliveries.map((d) => d.eventId));
    expect(eventIds).toHaveLength(20);

    const first = await startWorker();
    await rx.waitFor("requests in flight at the first worker", (r) => r.length >= 2);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    expect(first.signalCode).toBe("SIGKILL");
    const inFlightAtKill = rx.received.length;

    await startWorker();
    await rx.waitFor("every event", () => eventIds.every((id) => rx.ids().includes(id)), 25_000);
    const final = await waitForAllSucceeded(merchant.id);
    expect(final.every((d) => d.status === "succeeded")).toBe(true);
    // Each event arrived at least once; the ones the killed worker was sending may have arrived twice.
    for (const id of eventIds) expect(rx.ids().filter((x) => x === id).length).toBeGreaterThanOrEqual(1);
    // The requests held open at the kill were never acknowledged, so they were sent again.
    expect(rx.received.length).toBeGreaterThan(20);
    expect(inFlightAtKill).toBeGreaterThanOrEqual(2);
    await rx.close();
  }, 45_000);
});

async function waitForAllSucceeded(merchantId: string) {
  const until = Date.now() + 15_000;
  for (;;) {
    const ds = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.merchantId, merchantId));
    if (ds.every((d) => d.status === "succeeded") || Date.now() > until) return ds;
    await sleep(50);
  }
}
