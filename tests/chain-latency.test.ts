import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Hex } from "viem";
import { db } from "@/db";
import { onchainOrders } from "@/db/schema";
import { startWorker as startJobs, stopWorker as stopJobs } from "@/lib/worker";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";

// Detection latency of the real watcher job (pg-boss, ticking every CHAIN_POLL_SECONDS = 1 s):
// from the moment a transfer has its confirmations on the node to the order being COMPLETED in the
// database, over 50 transfers. A random pause before each transfer samples every phase of the tick.

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

describe("deposit detection latency with the watcher job polling", () => {
  it(`median over ${SAMPLES} transfers stays within one poll interval`, { timeout: 240_000 }, async () => {
    const { apiKey } = await seedMerchant();
    const latencies: number[] = [];
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
    }
    latencies.sort((a, b) => a - b);
    const median = (latencies[SAMPLES / 2 - 1] + latencies[SAMPLES / 2]) / 2;
    const p90 = latencies[Math.ceil(SAMPLES * 0.9) - 1];
    console.log(
      `chain watcher detection latency over ${SAMPLES} transfers (CHAIN_POLL_SECONDS=${POLL_SECONDS}, ${CONFIRMATIONS} confirmations): ` +
        `median ${median} ms, p90 ${p90} ms, min ${latencies[0]} ms, max ${latencies[SAMPLES - 1]} ms`,
    );
    expect(median).toBeLessThan(POLL_SECONDS * 1000 + 500);
  });
});
