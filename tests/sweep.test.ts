import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { HDKey } from "@scure/bip32";
import { and, eq, inArray } from "drizzle-orm";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { chainTxAttempts, chainTxs, onchainOrders, sweeps } from "@/db/schema";
import { checkDepositKey } from "@/lib/chain/deposit-keys";
import { resetEnvForTests } from "@/lib/env";
import { ledgerSum } from "@/lib/ledger/ledger";
import { toBaseUnits } from "@/lib/money";
import { sweepCosts, sweepDeposits, sweepTick, type SweepRun } from "@/lib/treasury/sweep";
import { runSweep, watchDeposits } from "@/lib/worker";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";

// Sweeping against a real node (polygon → anvil): deposits of two tokens above their threshold are
// emptied into the hot wallet, gas sent first to the addresses that have none; a sweep dropped from
// the node's mempool is sent again and completes; an address whose payment still waits for its
// confirmations is skipped; a second run sweeps nothing; the merchants' ledgers never move.

const DEPOSITS = { USDT: 30, USDC: 20 } as const;
const PREFUNDED = 3; // deposit addresses that already hold gas: no top-up

let anvil: Anvil;
let tokens: Record<"USDT" | "USDC", Hex>;
let hotWallet: Hex;
let restore: () => void;
let keyDir: string;
const payer = account(3);

function keyFile(name: string, key: HDKey): string {
  const file = path.join(keyDir, name);
  writeFileSync(file, key.privateExtendedKey + "\n", { mode: 0o600 });
  return file;
}

beforeAll(async () => {
  anvil = await startAnvil();
  tokens = { USDT: await anvil.deployToken(6, "USDT"), USDC: await anvil.deployToken(6, "USDC") };
  keyDir = mkdtempSync(path.join(tmpdir(), "sweep-keys-"));
  const deposit = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'");
  const chain = await useLocalChain(
    anvil,
    ["polygon"],
    { polygon: { USDT: { address: tokens.USDT, decimals: 6 }, USDC: { address: tokens.USDC, decimals: 6 } } },
    {
      DEPOSIT_XPUB: deposit.publicExtendedKey,
      DEPOSIT_XPRV_FILE: keyFile("deposit.xprv", deposit),
      SWEEP_THRESHOLDS_POLYGON: "USDT=50,USDC=50",
    },
  );
  restore = chain.restore;
  hotWallet = chain.hotWallet.address;
  for (const t of Object.values(tokens)) await anvil.mint(t, payer.address, 10n ** 12n);
});

afterAll(async () => {
  await anvil?.test.setAutomine(true).catch(() => {});
  restore?.();
  await anvil?.stop();
});

async function deposit(apiKey: string, asset: "USDT" | "USDC", value: number) {
  const res = await api("POST", "/api/v1/onchain/deposit", { apiKey, body: { value, network: "polygon", asset } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.order as { id: string; address: Hex; amount: number };
}

const pay = (asset: "USDT" | "USDC", o: { address: Hex; amount: number }) =>
  anvil.transfer(tokens[asset], payer, o.address, toBaseUnits(String(o.amount), 6));
const sweptItems = (run: SweepRun) => run.items.filter((i) => i.action === "sweep");

describe("sweeping deposit addresses on a local node", () => {
  it("refuses a deposit private key that is not DEPOSIT_XPUB's", () => {
    const saved = process.env.DEPOSIT_XPRV_FILE;
    process.env.DEPOSIT_XPRV_FILE = keyFile("other.xprv", HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'"));
    resetEnvForTests();
    try {
      expect(() => checkDepositKey()).toThrow(/its public key is not DEPOSIT_XPUB/);
    } finally {
      process.env.DEPOSIT_XPRV_FILE = saved;
      resetEnvForTests();
    }
    expect(() => checkDepositKey()).not.toThrow();
  });

  it("sweeps every paid deposit above its threshold into the hot wallet, gas first where needed, one dropped and sent again; a confirming one waits", async () => {
    const { merchant, apiKey } = await seedMerchant({ accountType: "business" });
    const paid: { asset: "USDT" | "USDC"; id: string; address: Hex; units: bigint }[] = [];
    for (const asset of ["USDT", "USDC"] as const) {
      for (let i = 0; i < DEPOSITS[asset]; i++) {
        const o = await deposit(apiKey, asset, 324 + 54 * i); // 60, 70, … tokens at 5.40
        await pay(asset, o);
        paid.push({ asset, id: o.id, address: o.address, units: toBaseUnits(String(o.amount), 6) });
      }
    }
    const small = await deposit(apiKey, "USDT", 108); // 20 USDT: below the threshold of 50
    await pay("USDT", small);
    for (const p of paid.slice(0, PREFUNDED)) await anvil.test.setBalance({ address: p.address, value: 10n ** 18n });
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("polygon");
    const completed = await db()
      .select()
      .from(onchainOrders)
      .where(inArray(onchainOrders.id, [...paid.map((p) => p.id), small.id]));
    expect(completed.every((o) => o.status === "COMPLETED")).toBe(true);
    const credited = await ledgerSum(db(), merchant.id);

    // Paid, mined, one confirmation of three: its order still waits.
    const confirming = await deposit(apiKey, "USDT", 540);
    await pay("USDT", confirming);
    await watchDeposits("polygon");
    expect((await db().select().from(onchainOrders).where(eq(onchainOrders.id, confirming.id)))[0].status).toBe(
      "PENDING",
    );

    const confirmingSkip = {
      address: confirming.address,
      action: "skip",
      reason:
        "confirming: 100 USDT arrived that the deposit watcher has not applied yet (waiting for its confirmations)",
    };
    const dry = await sweepDeposits({ network: "polygon", dryRun: true });
    expect(sweptItems(dry)).toHaveLength(paid.length);
    expect(dry.items).toContainEqual(expect.objectContaining(confirmingSkip));
    expect(dry.belowThreshold).toBe(1);
    // This test's rows only: the worker's database holds other files' too.
    const addresses = paid.map((p) => p.address);
    const ownSweeps = () => db().select().from(sweeps).where(inArray(sweeps.address, addresses));
    expect(await ownSweeps()).toHaveLength(0); // a dry run records and sends nothing

    await anvil.test.setAutomine(false);
    const hotGasBefore = await anvil.client.getBalance({ address: hotWallet });
    const first = await sweepDeposits({ network: "polygon" });
    expect(first.to).toEqual({ polygon: hotWallet });
    const items = sweptItems(first);
    expect(items.map((i) => i.address).sort()).toEqual(paid.map((p) => p.address).sort());
    expect(first.items).toContainEqual(expect.objectContaining(confirmingSkip));
    const prefunded = new Set(paid.slice(0, PREFUNDED).map((p) => p.address));
    for (const i of items) {
      if (prefunded.has(i.address as Hex)) expect(i).toMatchObject({ gasTopUp: "0", gasChainTxId: null });
      else expect(i.gasChainTxId).toEqual(expect.any(String));
    }

    // Recorded before it left: every sweep with its transactions, the token transfer signed by the deposit address.
    const rows = await ownSweeps();
    expect(rows).toHaveLength(paid.length);
    const sweepTxs = await db()
      .select()
      .from(chainTxs)
      .where(and(eq(chainTxs.purpose, "sweep"), inArray(chainTxs.fromAddress, addresses)));
    const gasTxs = await db()
      .select()
      .from(chainTxs)
      .where(and(eq(chainTxs.purpose, "sweep_gas"), inArray(chainTxs.toAddress, addresses)));
    expect(sweepTxs).toHaveLength(paid.length);
    expect(gasTxs).toHaveLength(paid.length - PREFUNDED);
    for (const t of sweepTxs)
      expect(t).toMatchObject({
        nonce: 0,
        toAddress: hotWallet,
        ownerId: null,
        nonceScope: `chain:31337:${t.fromAddress.toLowerCase()}`,
      });
    // Those without gas wait for it, held; a prefunded one is in the mempool: the node drops it.
    const held = sweepTxs.filter((t) => t.heldReason !== null);
    expect(held).toHaveLength(paid.length - PREFUNDED);
    expect(held[0].heldReason).toMatch(/waiting for its gas top-up/);
    const droppedTx = sweepTxs.find((t) => t.fromAddress === paid[0].address)!;
    const [dropped] = await db().select().from(chainTxAttempts).where(eq(chainTxAttempts.chainTxId, droppedTx.id));
    expect(await anvil.client.getTransaction({ hash: dropped.hash as Hex }).catch(() => null)).not.toBeNull();
    await anvil.test.dropTransaction({ hash: dropped.hash as Hex });
    expect(await anvil.client.getTransaction({ hash: dropped.hash as Hex }).catch(() => null)).toBeNull();
    await anvil.mine(1);

    const ownIds = [...sweepTxs, ...gasTxs].map((t) => t.id);
    const ownTxs = () => db().select().from(chainTxs).where(inArray(chainTxs.id, ownIds));
    // The chain-tx work (the worker's sweep) sends the held ones once their gas is there, and the dropped one again.
    for (let round = 0; round < 8; round++) {
      await runSweep();
      await anvil.mine(CONFIRMATIONS);
      const open = await ownTxs();
      if (open.every((t) => t.status !== "pending")) break;
    }
    const decided = await ownTxs();
    expect(decided.every((t) => t.status === "confirmed")).toBe(true);
    const droppedReceipt = await anvil.client.getTransactionReceipt({ hash: dropped.hash as Hex });
    expect(droppedReceipt.status).toBe("success"); // the same signed version, sent again
    expect(await db().select().from(chainTxAttempts).where(eq(chainTxAttempts.chainTxId, droppedTx.id))).toHaveLength(
      1,
    );

    // Deposit addresses hold none of the token; the hot wallet holds the sum.
    for (const p of paid) expect(await anvil.balanceOf(tokens[p.asset], p.address)).toBe(0n);
    for (const asset of ["USDT", "USDC"] as const) {
      const sum = paid.filter((p) => p.asset === asset).reduce((a, p) => a + p.units, 0n);
      expect(await anvil.balanceOf(tokens[asset], hotWallet)).toBe(sum);
    }
    expect(await anvil.balanceOf(tokens.USDT, small.address)).toBe(20_000_000n);

    // The second run finishes the sweeps (their cost is the service's) and sweeps nothing more.
    const second = await sweepDeposits({ network: "polygon" });
    expect(second.finished).toHaveLength(paid.length);
    expect(second.finished.every((f) => f.status === "swept" && BigInt(f.feeWei) > 0n)).toBe(true);
    expect(sweptItems(second)).toHaveLength(0);
    expect(second.items).toEqual([expect.objectContaining(confirmingSkip)]);
    const [costs] = await sweepCosts();
    const hotGasAfter = await anvil.client.getBalance({ address: hotWallet });
    const topUps = gasTxs.reduce((a, t) => a + BigInt(t.amountBaseUnits!), 0n);
    expect(BigInt(costs.gasSentWei)).toBe(topUps);
    expect(hotGasBefore - hotGasAfter).toBeGreaterThan(topUps); // the top-ups and their own fees
    expect(costs).toMatchObject({ network: "polygon", sweeps: paid.length });
    console.log(
      `sweep figures: ${paid.length} deposits (${DEPOSITS.USDT} USDT, ${DEPOSITS.USDC} USDC), ${gasTxs.length} gas top-ups of ${topUps} wei in all, ` +
        `fees ${costs.feeWei} wei, gas left at deposit addresses ${costs.gasLeftWei} wei, hot wallet gas spent ${hotGasBefore - hotGasAfter} wei, swept ${JSON.stringify(costs.swept)}`,
    );
    // Sweeping is the service's business: no merchant's ledger moved.
    expect(await ledgerSum(db(), merchant.id)).toBe(credited);

    // Once the watcher has applied it, the confirming one is swept like the others.
    await anvil.test.setAutomine(true);
    await watchDeposits("polygon");
    const third = await sweepDeposits({ network: "polygon" });
    expect(sweptItems(third).map((i) => i.address)).toEqual([confirming.address]);

    // The recurring job's tick (fired every minute by the schedule) sweeps once per SWEEP_INTERVAL_SECONDS.
    expect(await sweepTick()).toMatchObject({ dryRun: false });
    expect(await sweepTick()).toBeNull();
    // ~100 node calls and 8 rounds of the worker: 7 s idle, 57 s at load 17 beside other files.
  }, 180_000);
});
