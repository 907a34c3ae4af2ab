import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { db } from "@/db";
import { onchainOrders } from "@/db/schema";
import { startWorker as startJobs, stopWorker as stopJobs } from "@/lib/worker";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";
import { waitFor } from "./support/wait";

// Detection latency of the real watcher job (pg-boss, ticking every CHAIN_POLL_SECONDS = 1 s):
// from the moment a transfer has its confirmations on the node to the order being COMPLETED in the
// database, over 50 transfers. A random pause before each transfer samples every phase of the tick.
// What is held is what does not depend on the machine's load: each transfer is applied by the first
// watcher pass that started after its last confirmation and finished (pg-boss's own record of its
// jobs), never by a later one. The latency in ms, which a busy machine stretches, is printed.

const SAMPLES = 50;
const POLL_SECONDS = 1;

let anvil: Anvil;
let usdt: Hex;
let restore: () => void;
const payer = account(5);

beforeAll(async () => {
  anvil = await startAnvil();
  usdt = await anvil.deployToken(6, "USDT");
  const chain = await useLocalChain(
    anvil,
    ["polygon"],
    { polygon: { USDT: { address: usdt, decimals: 6 } } },
    { CHAIN_POLL_SECONDS: String(POLL_SECONDS) },
  );
  restore = chain.restore;
  await anvil.mint(usdt, payer.address, 10n ** 15n);
  await startJobs();
});

afterAll(async () => {
  await stopJobs();
  restore?.();
  await anvil?.stop();
});

async function completedAt(id: string, deadline: number): Promise<Date> {
  for (;;) {
    const [o] = await db()
      .select({ status: onchainOrders.status, completedAt: onchainOrders.completedAt })
      .from(onchainOrders)
      .where(eq(onchainOrders.id, id));
    if (o.status === "COMPLETED" && o.completedAt) return o.completedAt;
    if (Date.now() > deadline) throw new Error(`order ${id} not COMPLETED in time (${o.status})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The first pass of the watcher that started at or after `at` and completed, if one has yet. */
async function firstPassSince(at: number): Promise<Date | undefined> {
  const rows = await db().execute<{ completed_on: string }>(sql`
    select completed_on::text from pgboss.job
    where name = 'chain-watch-polygon' and state = 'completed' and started_on >= to_timestamp(${at} / 1000.0)
    order by started_on limit 1`);
  return rows[0] ? new Date(rows[0].completed_on) : undefined;
}

describe("deposit detection latency with the watcher job polling", () => {
  it(
    `each of ${SAMPLES} transfers is applied by the first pass after its confirmations`,
    { timeout: 240_000 },
    async () => {
      const { apiKey } = await seedMerchant();
      const latencies: number[] = [];
      const applied: { id: string; confirmedAt: number; done: Date }[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const res = await api("POST", "/api/v1/onchain/deposit", {
          apiKey,
          body: { value: 54, network: "polygon", asset: "USDT" },
        });
        expect(res.status).toBe(201);
        await new Promise((r) => setTimeout(r, Math.random() * POLL_SECONDS * 1000));
        await anvil.transfer(usdt, payer, res.body.order.address, 10_000_000n);
        await anvil.mine(CONFIRMATIONS - 1);
        const confirmedAt = Date.now(); // the block that gives the transfer its last confirmation is mined
        const done = await completedAt(res.body.order.id, confirmedAt + 15_000);
        latencies.push(Math.max(0, done.getTime() - confirmedAt));
        applied.push({ id: res.body.order.id, confirmedAt, done });
      }
      // Applied by a pass already running at the confirmation, or by the first to start after it and
      // complete: one that began after it and completed without applying it missed it.
      const lastConfirmed = applied[applied.length - 1].confirmedAt;
      await waitFor(
        "a watcher pass after the last confirmation",
        () => firstPassSince(lastConfirmed),
        Boolean,
        30_000,
        {
          everyMs: 100,
        },
      );
      const late: string[] = [];
      let checked = 0;
      for (const a of applied) {
        const first = await firstPassSince(a.confirmedAt);
        if (!first) continue;
        checked++;
        if (a.done.getTime() > first.getTime())
          late.push(
            `${a.id}: applied ${a.done.toISOString()}, the first pass after its confirmation ended ${first.toISOString()}`,
          );
      }
      latencies.sort((a, b) => a - b);
      const median = (latencies[SAMPLES / 2 - 1] + latencies[SAMPLES / 2]) / 2;
      const p90 = latencies[Math.ceil(SAMPLES * 0.9) - 1];
      console.log(
        `chain watcher detection latency over ${SAMPLES} transfers (CHAIN_POLL_SECONDS=${POLL_SECONDS}, ${CONFIRMATIONS} confirmations): ` +
          `median ${median} ms, p90 ${p90} ms, min ${latencies[0]} ms, max ${latencies[SAMPLES - 1]} ms`,
      );
      expect(late).toEqual([]);
      // Every transfer had a completed pass after its confirmation to be held to.
      expect(checked).toBe(SAMPLES);
    },
  );
});
