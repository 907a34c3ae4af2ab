import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { createWalletClient, http, parseTransaction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { db } from "@/db";
import { chainTxAttempts, chainTxs, events, ledgerEntries, withdrawals } from "@/db/schema";
import { toBaseUnits } from "@/lib/money";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { startAnvil, TOKEN_ABI, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

// On-chain withdrawals against a real node: signed with the hot-wallet key, broadcast to anvil,
// confirmed by the withdrawal job reading the receipt, and credited back when the transfer reverts.

const WITHDRAW = "/api/v1/onchain/withdraw/initiate";

let anvil: Anvil;
let usdt: Hex; // 6 decimals, funded in the hot wallet
let dai: Hex; // 18 decimals, never funded: transfers of it revert
let hotWallet: Hex;
let restore: () => void;

beforeAll(async () => {
  anvil = await startAnvil();
  usdt = await anvil.deployToken(6, "USDT");
  dai = await anvil.deployToken(18, "DAI");
  const chain = await useLocalChain(anvil, ["polygon"], {
    polygon: { USDT: { address: usdt, decimals: 6 }, DAI: { address: dai, decimals: 18 } },
  });
  restore = chain.restore;
  hotWallet = chain.hotWallet.address;
  await anvil.mint(usdt, hotWallet, 10n ** 15n);
});

afterAll(async () => {
  restore?.();
  await anvil?.stop();
});

async function row(id: string) {
  return (await db().select().from(withdrawals).where(eq(withdrawals.id, id)))[0];
}

async function withdraw(apiKey: string, body: Record<string, unknown>) {
  const res = await api("POST", WITHDRAW, { apiKey, body: { network: "polygon", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    id: string;
    transactionHash: Hex;
    status: string;
    tokenAmount: number;
    fees: { network: number };
  };
}

describe("on-chain withdrawals to a local node (polygon → anvil)", () => {
  it("sends a real signed transfer of the exact amount, starting from the node's nonce, and completes after confirmations", async () => {
    // The hot wallet already sent a transaction outside our count: our first nonce must follow it.
    const wallet = createWalletClient({
      account: privateKeyToAccount(process.env.HOT_WALLET_PRIVATE_KEY as Hex),
      chain: foundry,
      transport: http(anvil.url),
    });
    const outside = await wallet.writeContract({
      address: usdt,
      abi: TOKEN_ABI,
      functionName: "transfer",
      args: [randomAddress(), 1n],
    });
    await anvil.client.waitForTransactionReceipt({ hash: outside });
    const nodeNonce = await anvil.client.getTransactionCount({ address: hotWallet, blockTag: "pending" });

    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    const w = await withdraw(apiKey, { toAddress: to, value: 54, token: "USDT" }); // 10 USDT at 5.40
    expect(w.status).toBe("PENDING");
    expect(w.tokenAmount).toBe(10);
    expect(w.fees.network).toBeGreaterThan(0);

    const receipt = await anvil.client.waitForTransactionReceipt({ hash: w.transactionHash });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(hotWallet.toLowerCase());
    expect(await anvil.balanceOf(usdt, to)).toBe(10_000_000n);

    const stored = await row(w.id);
    expect(stored.nonce).toBe(nodeNonce);
    // Recorded, signed, before it was broadcast: the transaction and its first version.
    const [chainTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, w.id));
    expect(chainTx).toMatchObject({
      purpose: "withdrawal",
      nonce: nodeNonce,
      amount: "10.000000000000000000",
      status: "pending",
    });
    const [attempt] = await db().select().from(chainTxAttempts).where(eq(chainTxAttempts.chainTxId, chainTx.id));
    expect(attempt.hash).toBe(w.transactionHash);
    expect(attempt.broadcastAt).not.toBeNull();
    expect(parseTransaction(attempt.rawTransaction as Hex)).toMatchObject({ chainId: 31337, nonce: nodeNonce });

    expect(await processWithdrawal(w.id)).toBe(false); // 1 confirmation of 3
    await anvil.mine(CONFIRMATIONS - 1);
    expect(await processWithdrawal(w.id)).toBe(true);
    expect(await row(w.id)).toMatchObject({ status: "COMPLETED" });
    const changes = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, w.id), eq(events.type, "withdrawal.onchain.status_changed")))
      .orderBy(asc(events.seq));
    expect(changes.map((e) => (e.data as { status: string }).status)).toEqual(["PENDING", "COMPLETED"]);
    const debit = 5400 + 27 + Math.round(w.fees.network * 100);
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000 - debit);
  });

  it("20 concurrent withdrawals get distinct, consecutive nonces and all mine", async () => {
    const { merchant, apiKey } = await seedMerchant({ accountType: "business", balanceCentavos: 10_000_000 });
    const targets = Array.from({ length: 20 }, () => randomAddress());
    const sent = await Promise.all(
      targets.map((to, i) => withdraw(apiKey, { toAddress: to, value: (540 * (i + 1)) / 100, token: "USDT" })),
    );
    const rows = await Promise.all(sent.map((w) => row(w.id)));
    const nonces = rows.map((r) => r.nonce!).sort((a, b) => a - b);
    expect(new Set(nonces).size).toBe(20);
    expect(nonces[19] - nonces[0]).toBe(19);

    const receipts = await Promise.all(
      sent.map((w) => anvil.client.waitForTransactionReceipt({ hash: w.transactionHash, timeout: 20_000 })),
    );
    expect(receipts.every((r) => r.status === "success")).toBe(true);
    for (const [i, to] of targets.entries()) expect(await anvil.balanceOf(usdt, to)).toBe(BigInt(i + 1) * 1_000_000n);

    await anvil.mine(CONFIRMATIONS);
    for (const w of sent) expect(await processWithdrawal(w.id)).toBe(true);
    expect((await Promise.all(sent.map((w) => row(w.id)))).every((r) => r.status === "COMPLETED")).toBe(true);
    await balanceMatchesLedger(merchant.id);
    // 20 signed transfers and their receipts: ~3 s idle, a minute on a loaded machine.
  }, 120_000);

  it("a transfer that reverts on-chain (hot wallet without the token) → FAILED, credited back its value and service fee (the gas is spent)", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    const w = await withdraw(apiKey, { toAddress: to, value: 54, token: "DAI" });
    expect(await balanceMatchesLedger(merchant.id)).toBeLessThan(100_000);

    const receipt = await anvil.client.waitForTransactionReceipt({ hash: w.transactionHash });
    expect(receipt.status).toBe("reverted");
    expect(await processWithdrawal(w.id)).toBe(false); // a revert is final only once confirmed too
    await anvil.mine(CONFIRMATIONS);
    expect(await processWithdrawal(w.id)).toBe(true);

    expect(await row(w.id)).toMatchObject({ status: "FAILED", failureReason: "transaction reverted on-chain" });
    expect(await anvil.balanceOf(dai, to)).toBe(0n);
    const reversal = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.refId, w.id), eq(ledgerEntries.kind, "withdrawal_reversal")));
    expect(reversal).toHaveLength(1);
    const networkFee = Math.round(w.fees.network * 100);
    expect(reversal[0].amountCentavos).toBe(5400 + 27);
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000 - networkFee);
    // Waits on the node's receipt: over 30 s at load 16 beside other files.
  }, 120_000);

  it("sends a transaction again when the node lost it (broadcast dropped)", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const to = randomAddress();
    await anvil.test.setAutomine(false);
    try {
      const w = await withdraw(apiKey, { toAddress: to, value: 54, token: "USDT" });
      await anvil.test.dropTransaction({ hash: w.transactionHash });
      expect(await anvil.client.getTransaction({ hash: w.transactionHash }).catch(() => null)).toBeNull();
      expect(await processWithdrawal(w.id)).toBe(false); // unknown to the node: broadcast again
      expect(await anvil.client.getTransaction({ hash: w.transactionHash })).toMatchObject({ hash: w.transactionHash });
      await anvil.mine(CONFIRMATIONS);
      expect(await processWithdrawal(w.id)).toBe(true);
      expect(await row(w.id)).toMatchObject({ status: "COMPLETED" });
      expect(await anvil.balanceOf(usdt, to)).toBe(toBaseUnits("10", 6));
    } finally {
      await anvil.test.setAutomine(true);
    }
  });
});
