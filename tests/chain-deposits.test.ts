import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import type { Hex } from "viem";
import { db } from "@/db";
import {
  chainCursors,
  chainTransfers,
  chainTxs,
  cryptoPixPayments,
  events,
  onchainOrders,
  withdrawals,
} from "@/db/schema";
import { runSweep, watchDeposits as watchNetwork } from "@/lib/worker";
import { getOrderDetail } from "@/lib/dashboard/server/order-detail";
import { toBaseUnits } from "@/lib/money";
import { expireDeposits } from "@/lib/onchain/service";
import { metricsRegistry } from "@/lib/metrics/registry";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { SANDBOX_FAILING_PIX_KEY } from "@/lib/providers/payout/sandbox";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { waitFor } from "./support/wait";
import { advanceChainTx } from "@/lib/hot-wallet/tracker";
import { pendingChainTxIds } from "@/lib/hot-wallet/queries";
import { CHAIN_TX_OWNERS } from "@/lib/worker/owners";

// The deposit watcher against a real node: transfers are real ERC-20 transactions on anvil, read
// back through eth_getLogs, confirmed by mining blocks, and applied through the same services the
// sandbox helpers use.

let anvil: Anvil;
let usdt: Hex; // 6 decimals, polygon USDT
let dai: Hex; // 18 decimals, polygon DAI and bsc USDT
let restore: () => void;
let hotWallet: Hex;
const payer = account(3);
const payer2 = account(4);

beforeAll(async () => {
  anvil = await startAnvil();
  usdt = await anvil.deployToken(6, "USDT");
  dai = await anvil.deployToken(18, "DAI");
  const chain = await useLocalChain(anvil, ["polygon", "bsc"], {
    polygon: { USDT: { address: usdt, decimals: 6 }, DAI: { address: dai, decimals: 18 } },
    bsc: { USDT: { address: dai, decimals: 18 } },
  });
  restore = chain.restore;
  hotWallet = chain.hotWallet.address;
  for (const p of [payer, payer2]) {
    await anvil.mint(usdt, p.address, 10n ** 15n);
    await anvil.mint(dai, p.address, 10n ** 30n);
  }
});

afterAll(async () => {
  restore?.();
  await anvil?.stop();
});

async function newDeposit(apiKey: string, value: number, asset = "USDT") {
  const res = await api("POST", "/api/v1/onchain/deposit", { apiKey, body: { value, network: "polygon", asset } });
  expect(res.status).toBe(201);
  expect(res.body.order.tokenAddress).toBe(asset === "USDT" ? usdt : dai);
  return res.body.order as { id: string; address: Hex; paymentLinkId: string; amount: number };
}

async function order(id: string) {
  const [row] = await db().select().from(onchainOrders).where(eq(onchainOrders.id, id));
  return row;
}

async function transfersTo(ownerId: string) {
  return db()
    .select()
    .from(chainTransfers)
    .where(eq(chainTransfers.ownerId, ownerId))
    .orderBy(asc(chainTransfers.blockNumber), asc(chainTransfers.logIndex));
}

const watch = () => watchNetwork("polygon");
const confirm = () => anvil.mine(CONFIRMATIONS - 1);

describe("deposit watcher on a local node (polygon → anvil)", () => {
  it("credits the full amount only once it has the configured confirmations", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const o = await newDeposit(apiKey, 54); // 10 USDT at 5.40
    expect(o.amount).toBe(10);
    const sent = await anvil.transfer(usdt, payer, o.address, 10_000_000n);

    await watch();
    expect((await order(o.id)).status).toBe("PENDING"); // 1 confirmation
    await anvil.mine(CONFIRMATIONS - 2);
    await watch();
    expect((await order(o.id)).status).toBe("PENDING"); // 2 confirmations
    await anvil.mine(1);
    await watch();

    const after = await order(o.id);
    expect(after).toMatchObject({
      status: "COMPLETED",
      receivedAmount: "10.000000000000000000",
      creditedCentavos: 5400,
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400);
    const [t] = await transfersTo(o.id);
    expect(t).toMatchObject({
      network: "polygon",
      txHash: sent.hash,
      fromAddress: payer.address,
      tokenAddress: usdt,
      amount: "10.000000000000000000",
      appliedAmount: "10.000000000000000000",
      blockNumber: Number(sent.blockNumber),
    });
    expect(t.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    const [cursor] = await db().select().from(chainCursors).where(eq(chainCursors.network, "polygon"));
    expect(cursor.blockNumber).toBeGreaterThanOrEqual(Number(sent.blockNumber));
  });

  it("partial then rest: PARTIAL_ORDER, then COMPLETED (18-decimal token)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const o = await newDeposit(apiKey, 100, "DAI"); // 18.518519 DAI
    await anvil.transfer(dai, payer, o.address, toBaseUnits("8.5", 18));
    await confirm();
    await watch();
    expect(await order(o.id)).toMatchObject({ status: "PARTIAL_ORDER", receivedAmount: "8.500000000000000000" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);

    await anvil.transfer(dai, payer2, o.address, toBaseUnits("10.018519", 18));
    await confirm();
    await watch();
    expect(await order(o.id)).toMatchObject({
      status: "COMPLETED",
      receivedAmount: "18.518519000000000000",
      unappliedAmount: "0.000000000000000000",
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);
    expect((await transfersTo(o.id)).map((t) => t.fromAddress)).toEqual([payer.address, payer2.address]);
  });

  it("records an overpayment as unapplied funds with an event, crediting the order's value once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const o = await newDeposit(apiKey, 54);
    await anvil.transfer(usdt, payer, o.address, 12_500_000n);
    await confirm();
    await watch();
    expect(await order(o.id)).toMatchObject({
      status: "COMPLETED",
      receivedAmount: "10.000000000000000000",
      unappliedAmount: "2.500000000000000000",
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400);
    const [t] = await transfersTo(o.id);
    expect(t).toMatchObject({
      appliedAmount: "10.000000000000000000",
      unappliedAmount: "2.500000000000000000",
      note: "overpayment",
    });
    const unapplied = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, o.id), eq(events.type, "onchain.deposit.funds_unapplied")));
    expect(unapplied).toHaveLength(1);
  });

  it("ignores transfers to unrelated addresses; records (never applies) another token, or the right token on another network, sent to the order's address", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const o = await newDeposit(apiKey, 54); // expects USDT on polygon
    await anvil.transfer(usdt, payer, randomAddress(), 10_000_000n);
    const wrongToken = await anvil.transfer(dai, payer, o.address, toBaseUnits("10", 18)); // DAI, not the USDT this order asked for
    await confirm();
    await watch();
    await watchNetwork("bsc"); // bsc's USDT (the DAI contract on this node) to the same address: the right asset, the wrong network
    expect((await order(o.id)).status).toBe("PENDING");
    // Polygon's first: the two networks' records may be written in either order.
    const recorded = (await transfersTo(o.id)).sort(
      (a, b) => (a.network === "polygon" ? -1 : 0) - (b.network === "polygon" ? -1 : 0),
    );
    expect(recorded).toHaveLength(2);
    expect(recorded.map((t) => [t.network, t.appliedAmount, t.unappliedAmount])).toEqual([
      ["polygon", "0.000000000000000000", "10.000000000000000000"],
      ["bsc", "0.000000000000000000", "10.000000000000000000"],
    ]);
    expect(recorded[0].txHash).toBe(wrongToken.hash);
    expect(recorded[0].note).toContain("10 DAI received on polygon: this address waits for USDT");
    expect(recorded[1].note).toContain("received on bsc: this address waits for USDT on polygon");
    const flagged = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, o.id), eq(events.type, "onchain.deposit.funds_unapplied")));
    expect(flagged.map((e) => (e.data as { reason: string }).reason).sort()).toEqual(["wrong_network", "wrong_token"]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // The merchant's order page lists both, each saying why it did not count.
    const detail = await getOrderDetail(merchant.id, o.id);
    expect(detail?.transfers.map((t) => [t.network, t.amount, t.unit, t.use, t.counted])).toEqual(
      expect.arrayContaining([
        ["Polygon", "10", "DAI", "wrong_token", "0"],
        ["BNB Smart Chain", "10", "USDT", "wrong_network", "0"],
      ]),
    );
    expect(detail?.transfers).toHaveLength(2);
    // Read again, nothing is recorded twice.
    await anvil.mine(1);
    await watch();
    expect(await transfersTo(o.id)).toHaveLength(2);
  });

  it("counts two transfers of one transaction separately (same hash, two log indexes)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const a = await newDeposit(apiKey, 54);
    const b = await newDeposit(apiKey, 27); // 5 USDT
    const sent = await anvil.transferMany(usdt, payer, [a.address, b.address], [10_000_000n, 5_000_000n]);
    await confirm();
    await watch();
    expect((await order(a.id)).status).toBe("COMPLETED");
    expect((await order(b.id)).status).toBe("COMPLETED");
    const [ta] = await transfersTo(a.id);
    const [tb] = await transfersTo(b.id);
    expect(ta.txHash).toBe(sent.hash);
    expect(tb.txHash).toBe(sent.hash);
    expect(ta.logIndex).not.toBe(tb.logIndex);
    expect(await balanceMatchesLedger(merchant.id)).toBe(8100);
  });

  it("a watcher restarted mid-range loses nothing and counts nothing twice", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await watch(); // catch up, so the cursor sits just before the blocks below
    const [before] = await db().select().from(chainCursors).where(eq(chainCursors.network, "polygon"));
    const orders = [await newDeposit(apiKey, 54), await newDeposit(apiKey, 54), await newDeposit(apiKey, 54)];
    const sent = [];
    for (const o of orders) sent.push(await anvil.transfer(usdt, payer, o.address, 10_000_000n)); // one block each
    await confirm();

    // Passes of one block each, stopped (as if the process died) right after the first transfer's
    // block; the next pass resumes from the stored cursor.
    process.env.CHAIN_LOG_BLOCK_RANGE = "1";
    const { resetEnvForTests } = await import("@/lib/env");
    resetEnvForTests();
    try {
      let pass;
      do pass = await watchNetwork("polygon", { maxRanges: 1 });
      while (pass && pass.toBlock < Number(sent[0].blockNumber));
      expect(pass?.toBlock).toBe(Number(sent[0].blockNumber));
      expect((await Promise.all(orders.map((o) => order(o.id)))).map((o) => o.status)).toEqual([
        "COMPLETED",
        "PENDING",
        "PENDING",
      ]);
      await watch();
    } finally {
      delete process.env.CHAIN_LOG_BLOCK_RANGE;
      resetEnvForTests();
    }
    expect((await Promise.all(orders.map((o) => order(o.id)))).map((o) => o.status)).toEqual([
      "COMPLETED",
      "COMPLETED",
      "COMPLETED",
    ]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(3 * 5400);

    // A crash after applying but before the cursor was saved: the same blocks are read again.
    await db().update(chainCursors).set({ blockNumber: before.blockNumber }).where(eq(chainCursors.network, "polygon"));
    const replay = await watch();
    expect(replay?.applied).toBe(0);
    expect(await balanceMatchesLedger(merchant.id)).toBe(3 * 5400);
    for (const o of orders) expect(await transfersTo(o.id)).toHaveLength(1);
  });

  it("reports after each pass how many blocks it is behind the node's head, and when it passed (GET /metrics)", async () => {
    const read = async (name: string) =>
      (await metricsRegistry.getSingleMetric(name)!.get()).values.find((v) => v.labels.network === "polygon")?.value;
    await watch();
    // Caught up: the cursor is at the safe head, the confirmations' blocks behind the head.
    expect(await read("payments_chain_watcher_blocks_behind_head")).toBe(CONFIRMATIONS - 1);
    expect(
      Math.abs((await read("payments_chain_watcher_last_pass_timestamp_seconds"))! - Date.now() / 1000),
    ).toBeLessThan(5);

    await anvil.mine(10);
    process.env.CHAIN_LOG_BLOCK_RANGE = "1";
    const { resetEnvForTests } = await import("@/lib/env");
    resetEnvForTests();
    try {
      await watchNetwork("polygon", { maxRanges: 1 }); // one block of the ten
    } finally {
      delete process.env.CHAIN_LOG_BLOCK_RANGE;
      resetEnvForTests();
    }
    expect(await read("payments_chain_watcher_blocks_behind_head")).toBe(CONFIRMATIONS - 1 + 9);
    await watch();
    expect(await read("payments_chain_watcher_blocks_behind_head")).toBe(CONFIRMATIONS - 1);
  });

  it("never credits a transfer whose block is reorganised away before its confirmations", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const o = await newDeposit(apiKey, 54);
    const snapshot = await anvil.test.snapshot();
    const sent = await anvil.transfer(usdt, payer, o.address, 10_000_000n);
    await anvil.mine(CONFIRMATIONS - 2); // one short of counting
    await watch();
    expect((await order(o.id)).status).toBe("PENDING");

    await anvil.test.revert({ id: snapshot }); // the transfer's block is gone
    await anvil.mine(CONFIRMATIONS + 2); // a longer chain without it
    await watch();
    expect((await order(o.id)).status).toBe("PENDING");
    expect(await transfersTo(o.id)).toHaveLength(0);
    expect(await anvil.client.getTransactionReceipt({ hash: sent.hash }).catch(() => null)).toBeNull();
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("records a transfer arriving after expiry as unapplied and flags it, crediting nothing", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const o = await newDeposit(apiKey, 54);
    // Its expiry is before the last block the watcher read: the sweep may close it (FAILED).
    await db()
      .update(onchainOrders)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(onchainOrders.id, o.id));
    await expireDeposits([o.id]);
    expect((await order(o.id)).status).toBe("FAILED");
    await anvil.transfer(usdt, payer, o.address, 10_000_000n);
    await confirm();
    await watch();
    expect(await order(o.id)).toMatchObject({
      status: "FAILED",
      receivedAmount: "0.000000000000000000",
      unappliedAmount: "10.000000000000000000",
    });
    const [t] = await transfersTo(o.id);
    expect(t).toMatchObject({ unappliedAmount: "10.000000000000000000", note: "arrived after the order was final" });
    const flagged = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, o.id), eq(events.type, "onchain.deposit.funds_unapplied")));
    expect(flagged).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });
});

describe("Crypto-PIX on a local node (bsc → anvil)", () => {
  const code = (amountCentavos: number, pixKey: string) =>
    encodeStaticBrCode({
      pixKey,
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos,
      txid: "PEDIDO123",
    });

  async function pay(pixKey: string) {
    const { apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: { qrcode: code(5400, pixKey), network: "bsc" },
    });
    expect(res.status).toBe(201);
    const [p] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.address, res.body.data.address));
    return p;
  }

  const payment = async (id: string) =>
    (await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, id)))[0];

  it("pays the PIX once the crypto is confirmed → COMPLETED", async () => {
    const p = await pay("padaria@example.com");
    expect(p.tokenAddress).toBe(dai);
    await anvil.transfer(dai, payer, p.address as Hex, toBaseUnits("10", 18));
    await watchNetwork("bsc");
    expect((await payment(p.id)).status).toBe("PENDING");
    await confirm();
    await watchNetwork("bsc");
    const after = await payment(p.id);
    expect(after.status).toBe("COMPLETED");
    expect(after.pixPayoutId).toMatch(/^E/);
  });

  it("refunds the crypto to the sender with a real signed transfer when the PIX payout fails → REFUNDED", async () => {
    await anvil.mint(dai, hotWallet, toBaseUnits("1000", 18));
    const p = await pay(SANDBOX_FAILING_PIX_KEY);
    const payerBefore = await anvil.balanceOf(dai, payer2.address);
    await anvil.transfer(dai, payer2, p.address as Hex, toBaseUnits("10", 18));
    await confirm();
    await watchNetwork("bsc");
    // The payout was not made: the refund is decided and sent at once, and counts once mined and confirmed.
    const sending = await payment(p.id);
    expect(sending).toMatchObject({ status: "PENDING", refundStatus: "PENDING", refundTxHash: null });
    const [refundTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, p.id));
    expect(refundTx).toMatchObject({ purpose: "refund", toAddress: payer2.address, amount: "10.000000000000000000" });
    await confirm();
    await runSweep();
    const after = await payment(p.id);
    expect(after).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
    expect(after.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await anvil.client.waitForTransactionReceipt({ hash: after.refundTxHash as Hex });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(hotWallet.toLowerCase());
    expect(await anvil.balanceOf(dai, payer2.address)).toBe(payerBefore);
  });
});

describe("two networks pointed at one node", () => {
  const withdrawalRow = async (id: string) => (await db().select().from(withdrawals).where(eq(withdrawals.id, id)))[0];

  it("share the hot wallet's nonce sequence: bsc and polygon sends after one another all mine", async () => {
    await anvil.mint(usdt, hotWallet, 10n ** 12n);
    await anvil.mint(dai, hotWallet, toBaseUnits("1000", 18));
    const before = await anvil.client.getTransactionCount({ address: hotWallet, blockTag: "pending" });
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const sends = [
      { network: "bsc", token: dai, decimals: 18 },
      { network: "polygon", token: usdt, decimals: 6 },
      { network: "bsc", token: dai, decimals: 18 },
    ];
    for (const [i, s] of sends.entries()) {
      const to = randomAddress();
      const res = await api("POST", "/api/v1/onchain/withdraw/initiate", {
        apiKey,
        body: { toAddress: to, value: 54, network: s.network, token: "USDT" },
      });
      expect(res.status).toBe(200);
      // What arrives, not the first hash: on a loaded machine the tracker may have replaced the transaction
      // (same nonce, higher fees) before it was mined. The withdrawal's row says which version that was.
      // No worker runs here: a first broadcast that failed under load is sent again as the worker's
      // chain-tx pass would (the tracker, each wait), not never.
      await waitFor(
        `the ${s.network} withdrawal's tokens at ${to}`,
        async () => {
          for (const txId of await pendingChainTxIds(db(), 200)) await advanceChainTx(txId, CHAIN_TX_OWNERS);
          return { balance: String(await anvil.balanceOf(s.token, to)), row: await withdrawalRow(res.body.id) };
        },
        (v) => v.balance === String(toBaseUnits("10", s.decimals)),
        25_000,
        { everyMs: 500 },
      );
      const w = await withdrawalRow(res.body.id);
      expect(w.nonce).toBe(before + i);
    }
  }, 90_000);
});
