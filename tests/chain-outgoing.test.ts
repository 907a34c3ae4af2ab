import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { createWalletClient, encodeAbiParameters, http, keccak256, pad, parseGwei, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { db } from "@/db";
import {
  chainTxAttempts,
  chainTxs,
  cryptoPixPayments,
  events,
  ledgerEntries,
  onchainOrders,
  withdrawals,
} from "@/db/schema";
import { onRefundChainTx, retryRefund } from "@/lib/crypto-pix/refunds";
import { resetEnvForTests } from "@/lib/env";
import { fillNonceGaps, nonceReport } from "@/lib/hot-wallet/gaps";
import { advanceChainTx, cancelChainTx } from "@/lib/hot-wallet/tracker";
import { toBaseUnits } from "@/lib/money";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { SANDBOX_FAILING_PIX_KEY } from "@/lib/providers/payout/sandbox";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { runSweep, watchDeposits } from "@/lib/worker";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { startRpcProxy, type RpcProxy } from "./fixtures/rpc-proxy";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

// Every hot-wallet transaction is recorded before it is broadcast and followed until a receipt
// decides it (docs/providers.md#chain-evm): against a real node (anvil) behind a proxy that fails like nodes do.

let anvil: Anvil;
let proxy: RpcProxy;
let usdt: Hex; // polygon USDT: 6 decimals, funded in the hot wallet
let bscUsdt: Hex; // bsc USDT: 18 decimals, funded in the hot wallet
let unfunded: Hex; // polygon DAI: 18 decimals, never in the hot wallet, so sending it reverts
let hotWallet: Hex;
let hotKey: Hex;
let restore: () => void;
const payer = account(5);

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startRpcProxy(anvil.url);
  usdt = await anvil.deployToken(6, "USDT");
  bscUsdt = await anvil.deployToken(18, "BUSDT");
  unfunded = await anvil.deployToken(18, "DAI");
  const chain = await useLocalChain(
    anvil,
    ["polygon", "bsc"],
    {
      polygon: { USDT: { address: usdt, decimals: 6 }, DAI: { address: unfunded, decimals: 18 } },
      bsc: { USDT: { address: bscUsdt, decimals: 18 } },
    },
    {
      EVM_RPC_URL_POLYGON: proxy.url,
      EVM_RPC_URL_BSC: proxy.url,
      CHAIN_REPLACE_AFTER_BLOCKS: "3",
      CHAIN_RPC_TIMEOUT_MS: "2000",
    },
  );
  restore = chain.restore;
  hotWallet = chain.hotWallet.address;
  hotKey = process.env.HOT_WALLET_PRIVATE_KEY as Hex;
  await anvil.mint(usdt, hotWallet, 10n ** 15n);
  await anvil.mint(bscUsdt, hotWallet, 10n ** 24n);
  await anvil.mint(bscUsdt, payer.address, 10n ** 24n);
});

afterEach(async () => {
  proxy.heal();
  await anvil.test.setAutomine(true);
});

afterAll(async () => {
  restore?.();
  await proxy?.stop();
  await anvil?.stop();
});

const withdrawalRow = async (id: string) => (await db().select().from(withdrawals).where(eq(withdrawals.id, id)))[0];
const chainTxOf = async (ownerId: string) =>
  (await db().select().from(chainTxs).where(eq(chainTxs.ownerId, ownerId)).orderBy(asc(chainTxs.createdAt)))[0];
const attemptsOf = async (chainTxId: string) =>
  db().select().from(chainTxAttempts).where(eq(chainTxAttempts.chainTxId, chainTxId)).orderBy(asc(chainTxAttempts.id));
const receipt = (hash: string) => anvil.client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
const inMempool = (hash: string) => anvil.client.getTransaction({ hash: hash as Hex }).catch(() => null);

async function withdraw(apiKey: string, body: Record<string, unknown>) {
  const res = await api("POST", "/api/v1/onchain/withdraw/initiate", {
    apiKey,
    body: { network: "polygon", token: "USDT", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; transactionHash: Hex; fees: { network: number } };
}

/** A withdrawal sent with automining off, then the base fee raised past what it offers: it cannot be mined. */
async function unmineableWithdrawal(apiKey: string, toAddress: Hex) {
  await anvil.test.setAutomine(false);
  const w = await withdraw(apiKey, { toAddress, value: 54 });
  const chainTx = await chainTxOf(w.id);
  const [original] = await attemptsOf(chainTx.id);
  await anvil.test.setNextBlockBaseFeePerGas({ baseFeePerGas: BigInt(original.maxFeePerGas) * 10n });
  return { w, chainTx, original };
}

/** Mines the confirmations, then moves the withdrawal forward until it is final. */
async function settle(id: string) {
  await anvil.mine(CONFIRMATIONS);
  for (let i = 0; i < 3 && !(await processWithdrawal(id)); i++) await anvil.mine(1);
  return withdrawalRow(id);
}

describe("outgoing chain transactions (polygon and bsc → anvil, through a failing proxy)", () => {
  it("a withdrawal dropped from the node's mempool is sent again, and the five sent after it all mine", async () => {
    const { merchant, apiKey } = await seedMerchant({ accountType: "business", balanceCentavos: 1_000_000 });
    await anvil.test.setAutomine(false);
    const first = await withdraw(apiKey, { toAddress: randomAddress(), value: 54 });
    await anvil.test.dropTransaction({ hash: first.transactionHash });
    expect(await inMempool(first.transactionHash)).toBeNull();
    const later = [];
    for (let i = 0; i < 5; i++) later.push(await withdraw(apiKey, { toAddress: randomAddress(), value: 54 }));
    await anvil.mine(1);
    // The gap at the first nonce holds every later one back.
    for (const w of [first, ...later]) expect(await receipt(w.transactionHash)).toBeNull();

    expect(await processWithdrawal(first.id)).toBe(false); // no node holds it: sent again
    expect(await inMempool(first.transactionHash)).not.toBeNull();
    await anvil.mine(1);
    for (const w of [first, ...later]) expect((await receipt(w.transactionHash))?.status).toBe("success");
    for (const w of [first, ...later]) expect((await settle(w.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(
      1_000_000 - 6 * (5400 + 27 + Math.round(first.fees.network * 100)),
    );
  });

  it("the process dies between commit and broadcast: the transaction lands after the restart, exactly once", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    const nonceBefore = await anvil.client.getTransactionCount({ address: hotWallet });
    proxy.fail("eth_sendRawTransaction", "down");
    const w = await withdraw(apiKey, { toAddress: to, value: 54 });
    // Committed and debited, never broadcast.
    expect(await inMempool(w.transactionHash)).toBeNull();
    expect(await balanceMatchesLedger(merchant.id)).toBeLessThan(100_000);
    proxy.heal();

    // "After the restart": the chain-tx job finds it unsent and sends it.
    expect(await processWithdrawal(w.id)).toBe(false);
    expect((await settle(w.id)).status).toBe("COMPLETED");
    expect(await anvil.balanceOf(usdt, to)).toBe(10_000_000n);
    expect(await anvil.client.getTransactionCount({ address: hotWallet })).toBe(nonceBefore + 1);
    expect(await attemptsOf((await chainTxOf(w.id)).id)).toHaveLength(1);
  });

  it("a broadcast whose answer is lost after the node took it is not sent twice", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    const nonceBefore = await anvil.client.getTransactionCount({ address: hotWallet });
    proxy.fail("eth_sendRawTransaction", "lost");
    const w = await withdraw(apiKey, { toAddress: to, value: 54 });
    proxy.heal();
    expect((await receipt(w.transactionHash))?.status).toBe("success");
    for (let i = 0; i < 2; i++) await processWithdrawal(w.id);
    expect((await settle(w.id)).status).toBe("COMPLETED");
    expect(await anvil.balanceOf(usdt, to)).toBe(10_000_000n);
    expect(await anvil.client.getTransactionCount({ address: hotWallet })).toBe(nonceBefore + 1);
  });

  it("a fee too low is replaced at the same nonce, at least 12.5% higher, and the replacement completes the withdrawal", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    const { w, chainTx, original } = await unmineableWithdrawal(apiKey, to);
    await anvil.mine(1);
    expect(await receipt(w.transactionHash)).toBeNull();
    expect(await processWithdrawal(w.id)).toBe(false); // not yet CHAIN_REPLACE_AFTER_BLOCKS (3) blocks
    expect(await attemptsOf(chainTx.id)).toHaveLength(1);
    await anvil.mine(3);
    expect(await processWithdrawal(w.id)).toBe(false); // replaced
    const [, replacement] = await attemptsOf(chainTx.id);
    expect(replacement).toBeDefined();
    expect(BigInt(replacement.maxFeePerGas) * 1000n).toBeGreaterThanOrEqual(BigInt(original.maxFeePerGas) * 1125n);
    expect(BigInt(replacement.maxPriorityFeePerGas) * 1000n).toBeGreaterThanOrEqual(
      BigInt(original.maxPriorityFeePerGas) * 1125n,
    );
    await anvil.mine(1);
    expect((await receipt(replacement.hash))?.status).toBe("success");
    expect(await receipt(original.hash)).toBeNull();

    const done = await settle(w.id);
    expect(done).toMatchObject({ status: "COMPLETED", txHash: replacement.hash });
    expect(await anvil.balanceOf(usdt, to)).toBe(10_000_000n);
    const changes = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, w.id), eq(events.type, "withdrawal.onchain.status_changed")))
      .orderBy(asc(events.seq));
    expect(
      changes.map((e) => [
        (e.data as { status: string }).status,
        (e.data as { transactionHash: string }).transactionHash,
      ]),
    ).toEqual([
      ["PENDING", original.hash],
      ["COMPLETED", replacement.hash],
    ]);
    await balanceMatchesLedger(merchant.id);
  });

  it("above the fee cap it waits and says why; an operator's cancellation, once mined, fails it and credits it all back", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    await anvil.test.setAutomine(false);
    const w = await withdraw(apiKey, { toAddress: to, value: 54 });
    const chainTx = await chainTxOf(w.id);
    const [original] = await attemptsOf(chainTx.id);
    await anvil.test.setNextBlockBaseFeePerGas({ baseFeePerGas: BigInt(original.maxFeePerGas) * 10n });
    await anvil.mine(4);
    // The cap allows no more than the transaction already offers.
    process.env.CHAIN_MAX_FEE_GWEI_POLYGON = String(Number(BigInt(original.maxFeePerGas) / 10n ** 9n) + 1);
    resetEnvForTests();
    try {
      expect(await processWithdrawal(w.id)).toBe(false);
      const stuck = await chainTxOf(w.id);
      expect(stuck.status).toBe("pending");
      expect(stuck.attention).toContain("CHAIN_MAX_FEE_GWEI_POLYGON");
      expect(await attemptsOf(chainTx.id)).toHaveLength(1);
      expect((await nonceReport("polygon")).needsAttention.map((a) => a.id)).toContain(chainTx.id);
      expect(await cancelChainTx(chainTx.id)).toMatchObject({
        refused: expect.stringContaining("CHAIN_MAX_FEE_GWEI_POLYGON"),
      });
    } finally {
      delete process.env.CHAIN_MAX_FEE_GWEI_POLYGON;
      resetEnvForTests();
    }
    const cancelled = await cancelChainTx(chainTx.id);
    expect(cancelled).toMatchObject({ hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    await anvil.mine(1);
    expect((await receipt((cancelled as { hash: string }).hash))?.status).toBe("success");

    const failed = await settle(w.id);
    expect(failed).toMatchObject({ status: "FAILED", failureReason: expect.stringContaining("cancelled") });
    expect(await anvil.balanceOf(usdt, to)).toBe(0n);
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000); // nothing was sent: the whole debit comes back
  });

  it("its nonce used by a transaction sent outside this service: the withdrawal fails and is credited back", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    await anvil.test.setAutomine(false);
    const w = await withdraw(apiKey, { toAddress: randomAddress(), value: 54 });
    const chainTx = await chainTxOf(w.id);
    await anvil.test.dropTransaction({ hash: w.transactionHash });
    const outside = createWalletClient({
      account: privateKeyToAccount(hotKey),
      chain: foundry,
      transport: http(anvil.url),
    });
    await outside.sendTransaction({
      to: hotWallet,
      value: 0n,
      nonce: chainTx.nonce,
      maxFeePerGas: parseGwei("100"),
      maxPriorityFeePerGas: parseGwei("2"),
    });
    await anvil.mine(1);
    const failed = await settle(w.id);
    expect(failed).toMatchObject({
      status: "FAILED",
      failureReason: expect.stringContaining("another transaction used its nonce"),
    });
    expect((await chainTxOf(w.id)).status).toBe("superseded");
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000);
  });

  it("a reverted transfer (the hot wallet lacks the token) fails and credits back all but the network fee", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const w = await withdraw(apiKey, { toAddress: randomAddress(), value: 54, token: "DAI" });
    expect((await receipt(w.transactionHash))?.status).toBe("reverted");
    const failed = await settle(w.id);
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "transaction reverted on-chain" });
    const [reversal] = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.refId, w.id), eq(ledgerEntries.kind, "withdrawal_reversal")));
    expect(reversal.amountCentavos).toBe(5400 + 27);
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000 - Math.round(w.fees.network * 100));
  });

  it("a nonce gap is found and filled with a zero-value transaction, and what waited behind it mines", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const report = await nonceReport("polygon");
    expect(report.gaps).toEqual([]);
    // A nonce taken and lost outside the service (as after restoring an older database).
    await db().execute(`update hot_wallet_nonces set next_nonce = next_nonce + 1 where network = '${report.scope}'`);
    const w = await withdraw(apiKey, { toAddress: randomAddress(), value: 54 });
    await anvil.mine(1);
    expect(await receipt(w.transactionHash)).toBeNull();
    const gap = (await nonceReport("polygon")).gaps;
    expect(gap).toEqual([report.nextOurs]);

    const filled = await fillNonceGaps("polygon");
    expect(filled.map((f) => f.nonce)).toEqual(gap);
    await anvil.mine(1);
    expect((await receipt(filled[0].hash))?.status).toBe("success");
    expect((await receipt(w.transactionHash))?.status).toBe("success");
    expect((await settle(w.id)).status).toBe("COMPLETED");
    await runSweep(); // the filler is followed to its end like any other
    expect((await db().select().from(chainTxs).where(eq(chainTxs.id, filled[0].chainTxId)))[0].status).toBe(
      "confirmed",
    );
    expect((await nonceReport("polygon")).gaps).toEqual([]);
  });

  it("after the hot wallet's key changes, a transaction of the old wallet is never re-signed by the new one", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const oldTo = randomAddress();
    const newKey = generatePrivateKey();
    const newWallet = privateKeyToAccount(newKey).address;
    await anvil.test.setBalance({ address: newWallet, value: 10n ** 21n });
    await anvil.mint(usdt, newWallet, 10n ** 15n);
    const { w: stuck, chainTx, original } = await unmineableWithdrawal(apiKey, oldTo);
    // A replacement is due: the old wallet's would have been signed now.
    await anvil.mine(4);
    process.env.HOT_WALLET_PRIVATE_KEY = newKey;
    resetEnvForTests();
    try {
      expect(await processWithdrawal(stuck.id)).toBe(false);
      expect(await attemptsOf(chainTx.id)).toHaveLength(1);
      expect((await chainTxOf(stuck.id)).attention).toMatch(/not the configured hot wallet/);
      await expect(cancelChainTx(chainTx.id)).resolves.toEqual({
        refused: expect.stringMatching(/no replacement or cancellation can be signed/),
      });
      // Nothing left the new wallet, and nothing reached the old withdrawal's address.
      expect(await anvil.client.getTransactionCount({ address: newWallet, blockTag: "pending" })).toBe(0);
      expect(await anvil.balanceOf(usdt, oldTo)).toBe(0n);
      // Fees fall again: the old wallet's own signed version mines and completes its withdrawal, and the
      // new wallet's first withdrawal takes the new wallet's first nonce.
      await anvil.test.setNextBlockBaseFeePerGas({ baseFeePerGas: BigInt(original.maxFeePerGas) / 4n });
      await anvil.test.setAutomine(true);
      await anvil.mine(1);
      const done = await settle(stuck.id);
      expect(done).toMatchObject({ status: "COMPLETED", txHash: original.hash });
      expect(await anvil.balanceOf(usdt, oldTo)).toBe(10_000_000n);
      const fresh = await withdraw(apiKey, { toAddress: randomAddress(), value: 54 });
      expect((await chainTxOf(fresh.id)).nonce).toBe(0);
      expect((await settle(fresh.id)).status).toBe("COMPLETED");
    } finally {
      process.env.HOT_WALLET_PRIVATE_KEY = hotKey;
      resetEnvForTests();
    }
  });
});

describe("Crypto-PIX refunds through the hot wallet (bsc → anvil)", () => {
  const code = (amountCentavos: number, pixKey: string) =>
    encodeStaticBrCode({
      pixKey,
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos,
      txid: "PEDIDO123",
    });
  const payment = async (id: string) =>
    (await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, id)))[0];

  async function payFailingPix() {
    const { merchant, apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: { qrcode: code(5400, SANDBOX_FAILING_PIX_KEY), network: "bsc" },
    });
    expect(res.status).toBe(201);
    const [p] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.address, res.body.data.address));
    return { p, merchant, apiKey };
  }

  it("a refund dropped from the mempool is sent again, mines, and only then is the payment REFUNDED", async () => {
    const { p } = await payFailingPix();
    const before = await anvil.balanceOf(bscUsdt, payer.address);
    await anvil.transfer(bscUsdt, payer, p.address as Hex, toBaseUnits("10", 18));
    await anvil.mine(CONFIRMATIONS);
    await anvil.test.setAutomine(false);
    await watchDeposits("bsc"); // paid in full, the PIX is not made: the refund is decided and broadcast
    const refundTx = await chainTxOf(p.id);
    const [attempt] = await attemptsOf(refundTx.id);
    expect(await payment(p.id)).toMatchObject({ status: "PENDING", refundStatus: "PENDING", refundTxHash: null });
    await anvil.test.dropTransaction({ hash: attempt.hash as Hex });

    expect(await advanceChainTx(refundTx.id, { refund: onRefundChainTx })).toBe(false); // sent again
    await anvil.mine(CONFIRMATIONS);
    expect((await receipt(attempt.hash))?.status).toBe("success");
    expect(await advanceChainTx(refundTx.id, { refund: onRefundChainTx })).toBe(true);
    expect(await payment(p.id)).toMatchObject({
      status: "REFUNDED",
      refundStatus: "COMPLETED",
      refundTxHash: attempt.hash,
    });
    expect(await anvil.balanceOf(bscUsdt, payer.address)).toBe(before);
  });

  it("a refund the chain refuses is FAILED where an operator sees it, and a retry sends it anew", async () => {
    const { p } = await payFailingPix();
    // The hot wallet holds none of this token until the operator tops it up (its balance slot emptied on the node).
    const balanceSlot = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [hotWallet, 3n]));
    await anvil.test.setStorageAt({ address: bscUsdt, index: balanceSlot, value: pad("0x0") });
    expect(await anvil.balanceOf(bscUsdt, hotWallet)).toBe(0n);

    await anvil.transfer(bscUsdt, payer, p.address as Hex, toBaseUnits("10", 18));
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("bsc");
    const refundTx = await chainTxOf(p.id);
    const [attempt] = await attemptsOf(refundTx.id);
    expect((await receipt(attempt.hash))?.status).toBe("reverted");
    await anvil.mine(CONFIRMATIONS);
    await runSweep();
    const failed = await payment(p.id);
    expect(failed).toMatchObject({ status: "PENDING", refundStatus: "FAILED" });
    expect(failed.failureReason).toContain("reverted");
    expect((await db().select().from(chainTxs).where(eq(chainTxs.id, refundTx.id)))[0]).toMatchObject({
      status: "reverted",
      attention: expect.stringContaining("refund reverted"),
    });
    const refundEvents = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, p.id), eq(events.type, "crypto_pix.refund.status_changed")))
      .orderBy(asc(events.seq));
    expect(refundEvents.map((e) => (e.data as { refund: { status: string } }).refund.status)).toEqual([
      "PENDING",
      "FAILED",
    ]);

    await anvil.mint(bscUsdt, hotWallet, toBaseUnits("100", 18));
    const [retried] = await retryRefund(p.id);
    await anvil.mine(CONFIRMATIONS);
    await runSweep();
    const [, second] = await db()
      .select()
      .from(chainTxs)
      .where(eq(chainTxs.ownerId, p.id))
      .orderBy(asc(chainTxs.createdAt));
    expect(second.id).toBe(retried);
    expect(await payment(p.id)).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
  });
});

describe("expiry by payment time on a node", () => {
  it("a deposit paid before its expiry but confirmed after it completes; the sweep waits for the watcher to pass the expiry", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await watchDeposits("polygon"); // the cursor is at the head before the order exists
    const res = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 54, network: "polygon", asset: "USDT" },
    });
    const o = res.body.order as { id: string; address: Hex };
    await anvil.mint(usdt, payer.address, 10n ** 9n);
    const paid = await anvil.transfer(usdt, payer, o.address, 10_000_000n);
    const block = await anvil.client.getBlock({ blockNumber: paid.blockNumber });
    // It expires one second after the block that paid it.
    await db()
      .update(onchainOrders)
      .set({ expiresAt: new Date(Number(block.timestamp) * 1000 + 1000) })
      .where(eq(onchainOrders.id, o.id));
    await new Promise((r) => setTimeout(r, 2100));
    await runSweep();
    expect((await db().select().from(onchainOrders).where(eq(onchainOrders.id, o.id)))[0].status).toBe("PENDING");
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("polygon");
    expect((await db().select().from(onchainOrders).where(eq(onchainOrders.id, o.id)))[0]).toMatchObject({
      status: "COMPLETED",
      creditedCentavos: 5400,
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400);
  });

  it("a Crypto-PIX paid in full before its expiry but confirmed after it pays the PIX → COMPLETED", async () => {
    const { apiKey } = await seedMerchant();
    await watchDeposits("bsc");
    const qrcode = encodeStaticBrCode({
      pixKey: "padaria@example.com",
      merchantName: "Padaria",
      merchantCity: "Sao Paulo",
      amountCentavos: 5400,
      txid: "X1",
    });
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
    const [p] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.address, res.body.data.address));
    const paid = await anvil.transfer(bscUsdt, payer, p.address as Hex, toBaseUnits("10", 18));
    const block = await anvil.client.getBlock({ blockNumber: paid.blockNumber });
    await db()
      .update(cryptoPixPayments)
      .set({ expiresAt: new Date(Number(block.timestamp) * 1000 + 1000) })
      .where(eq(cryptoPixPayments.id, p.id));
    await new Promise((r) => setTimeout(r, 2100));
    await runSweep();
    expect((await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, p.id)))[0]).toMatchObject({
      status: "PENDING",
      closedAt: null,
    });
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("bsc");
    expect((await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, p.id)))[0]).toMatchObject({
      status: "COMPLETED",
    });
  });
});

describe("sandbox helpers on a network served by a node", () => {
  it("→ 409: only real transfers count there", async () => {
    const { apiKey } = await seedMerchant();
    const dep = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 54, network: "polygon", asset: "USDT" },
    });
    const res = await api("POST", `/api/v1/sandbox/onchain/${dep.body.order.paymentLinkId}/transfer`, {
      apiKey,
      body: { amount: "10" },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain("EVM_RPC_URL_POLYGON");
    const qrcode = encodeStaticBrCode({
      pixKey: "padaria@example.com",
      merchantName: "Padaria",
      merchantCity: "Sao Paulo",
      amountCentavos: 5400,
      txid: "X2",
    });
    const pay = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
    const cp = await api("POST", `/api/v1/sandbox/crypto-pix/${pay.body.data.payCryptoPixId}/transfer`, {
      apiKey,
      body: { amount: "10", failPix: true, from: randomAddress() },
    });
    expect(cp.status).toBe(409);
    const [row] = await db()
      .select()
      .from(cryptoPixPayments)
      .where(eq(cryptoPixPayments.address, pay.body.data.address));
    expect(row).toMatchObject({ status: "PENDING", receivedAmount: "0.000000000000000000", refundStatus: null });
  });
});
