import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, like } from "drizzle-orm";
import type { Hex } from "viem";
import { db } from "@/db";
import { chainTxs, cryptoPixPayments, mailOutbox, withdrawals } from "@/db/schema";
import { balanceOf as shownBalanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { metricsRegistry } from "@/lib/metrics/registry";
import { registerCollectors } from "@/lib/ops/collectors";
import { getWithdrawalState } from "@/lib/dashboard/server/withdrawals";
import { moveExcess } from "@/lib/treasury/excess";
import { floatStatus } from "@/lib/treasury/float";
import { toBaseUnits } from "@/lib/money";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { SANDBOX_FAILING_PIX_KEY } from "@/lib/providers/payout/sandbox";
import { checkHotWalletFloat, runSweep, watchDeposits } from "@/lib/worker";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";

// The hot wallet's float against a real node (polygon → anvil): below its minimum the operator is
// alerted (gauges, one mail per crossing) and a withdrawal it cannot pay waits, PENDING with its
// reason and never broadcast, then leaves by itself after a top-up; the excess above the target goes
// to the cold address once.

const OPERATOR = "treasury-ops@pixcrypto.example";
const USDT_MIN = 100n;
const USDT_TARGET = 1000n;

let anvil: Anvil;
let usdt: Hex; // polygon: 6 decimals
let bscUsdt: Hex; // bsc: 18 decimals, none in the hot wallet at first
let hotWallet: Hex;
let cold: Hex;
let restore: () => void;

beforeAll(async () => {
  anvil = await startAnvil();
  usdt = await anvil.deployToken(6, "USDT");
  bscUsdt = await anvil.deployToken(18, "BUSDT");
  cold = randomAddress();
  const chain = await useLocalChain(
    anvil,
    ["polygon", "bsc"],
    { polygon: { USDT: { address: usdt, decimals: 6 } }, bsc: { USDT: { address: bscUsdt, decimals: 18 } } },
    {
      HOT_WALLET_FLOAT_POLYGON: `USDT=${USDT_MIN}/${USDT_TARGET},gas=0.5/5`,
      HOT_WALLET_FLOAT_BSC: "USDT=5/50",
      HOT_WALLET_COLD_ADDRESS: cold,
      OPERATOR_ALERT_EMAIL: OPERATOR,
    },
  );
  restore = chain.restore;
  hotWallet = chain.hotWallet.address;
  await anvil.mint(usdt, hotWallet, 30_000_000n); // 30 USDT: below the minimum of 100
  registerCollectors();
});

afterAll(async () => {
  restore?.();
  await anvil?.stop();
});

async function gauge(name: string, asset: string): Promise<number | undefined> {
  const metric = metricsRegistry.getSingleMetric(name);
  return (await metric!.get()).values.find((v) => v.labels.network === "polygon" && v.labels.asset === asset)?.value;
}

async function alertMails(): Promise<number> {
  const rows = await db()
    .select()
    .from(mailOutbox)
    .where(
      and(eq(mailOutbox.toAddress, OPERATOR), like(mailOutbox.subject, "%hot wallet below minimum on polygon: USDT%")),
    );
  return rows.length;
}

const row = async (id: string) => (await db().select().from(withdrawals).where(eq(withdrawals.id, id)))[0];

describe("hot-wallet float on a local node", () => {
  it("below the minimum: gauges and one mail; a withdrawal it cannot pay waits with its reason, then completes after a top-up", async () => {
    await checkHotWalletFloat();
    await checkHotWalletFloat(); // the same crossing: no second mail
    expect(await gauge("payments_hot_wallet_balance", "USDT")).toBe(30);
    expect(await gauge("payments_hot_wallet_below_minimum", "USDT")).toBe(1);
    expect(await gauge("payments_hot_wallet_below_minimum", "gas")).toBe(0); // 1000 ETH of gas money
    expect(await alertMails()).toBe(1);

    const { merchant, apiKey } = await seedMerchant({ accountType: "business", balanceCentavos: 100_000 });
    const to = randomAddress();
    const res = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { network: "polygon", toAddress: to, value: 270, token: "USDT" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200); // 50 USDT at 5.40: more than the 30 held
    const w = res.body as { id: string; transactionHash: Hex; status: string; tokenAmount: number };
    expect(w.status).toBe("PENDING");
    expect(w.tokenAmount).toBe(50);
    const debited = await shownBalanceOf(db(), merchant.id);
    expect(debited).toBeLessThan(100_000 - 27_000);

    // Recorded and signed, never sent: a transfer without the tokens would revert and fail the withdrawal.
    expect(await anvil.client.getTransaction({ hash: w.transactionHash }).catch(() => null)).toBeNull();
    const shown = await api("GET", `/api/v1/withdrawals/${w.id}`, { apiKey });
    expect(shown.body.withdrawal).toMatchObject({ status: "PENDING", transactionHash: w.transactionHash });
    expect(shown.body.withdrawal.waitingReason).toBe(
      "hot wallet below minimum on polygon: USDT (holds 30, minimum 100; this transfer needs 50); waiting for a top-up",
    );
    const [held] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, w.id));
    expect(held.heldReason).toBe(shown.body.withdrawal.waitingReason);
    // The operator's `treasury status` and the merchant's dashboard say the same.
    const status = await floatStatus("polygon");
    expect(status.readings.find((r) => r.asset === "USDT")).toMatchObject({
      balance: "30",
      minimum: "100",
      target: "1000",
      belowMinimum: true,
      excess: "0",
    });
    expect(status.held).toMatchObject([{ id: held.id, purpose: "withdrawal", ownerId: w.id, reason: held.heldReason }]);
    const dashboard = await getWithdrawalState(merchant.id);
    expect(dashboard.history.find((h) => h.id === w.id)?.waitingReason).toBe(held.heldReason);

    // The job and the sweep follow it as usual: it stays held, never failed nor credited back.
    for (let i = 0; i < 3; i++) expect(await processWithdrawal(w.id)).toBe(false);
    await anvil.mine(CONFIRMATIONS + 1);
    expect(await processWithdrawal(w.id)).toBe(false);
    expect(await checkHotWalletFloat()).toMatchObject({ stillHeld: 1 });
    expect(await row(w.id)).toMatchObject({ status: "PENDING", failureReason: null });
    expect(await shownBalanceOf(db(), merchant.id)).toBe(debited);
    expect(await anvil.client.getTransaction({ hash: w.transactionHash }).catch(() => null)).toBeNull();

    // Topped up: the next float check sends it, and it completes like any withdrawal.
    await anvil.mint(usdt, hotWallet, 2_000_000_000n); // 2000 USDT
    expect(await checkHotWalletFloat()).toMatchObject({ stillHeld: 0 });
    const receipt = await anvil.client.waitForTransactionReceipt({ hash: w.transactionHash });
    expect(receipt.status).toBe("success");
    expect(await anvil.balanceOf(usdt, to)).toBe(50_000_000n);
    await anvil.mine(CONFIRMATIONS);
    expect(await processWithdrawal(w.id)).toBe(true);
    expect(await row(w.id)).toMatchObject({ status: "COMPLETED", waitingReason: null });
    const after = await api("GET", `/api/v1/withdrawals/${w.id}`, { apiKey });
    expect(after.body.withdrawal.waitingReason).toBeUndefined();
    expect(await shownBalanceOf(db(), merchant.id)).toBe(debited);
    expect(debited).toBe(await ledgerSum(db(), merchant.id));

    await checkHotWalletFloat(); // the gauges show the last check's reading
    expect(await gauge("payments_hot_wallet_balance", "USDT")).toBe(1980);
    expect(await gauge("payments_hot_wallet_below_minimum", "USDT")).toBe(0);
    expect(await alertMails()).toBe(1);
  });

  it("move-excess sends exactly balance − target to the cold address, once", async () => {
    const before = await anvil.balanceOf(usdt, hotWallet);
    expect(before).toBe(1_980_000_000n);
    const dry = await moveExcess({ network: "polygon", dryRun: true });
    expect(dry).toMatchObject([{ asset: "USDT", moved: "980", chainTxId: null }]);

    const [move] = await moveExcess({ network: "polygon" });
    expect(move).toMatchObject({
      network: "polygon",
      asset: "USDT",
      balance: "1980",
      target: "1000",
      promised: "0",
      moved: "980",
    });
    // Recorded before it left, as every hot-wallet send.
    const [tx] = await db().select().from(chainTxs).where(eq(chainTxs.id, move.chainTxId!));
    expect(tx).toMatchObject({ purpose: "treasury", toAddress: cold, amount: "980.000000000000000000", ownerId: null });

    // Run again while it may still be unmined, and after it is decided: nothing more moves.
    expect((await moveExcess({ network: "polygon" }))[0]).toMatchObject({ moved: "0", chainTxId: null });
    await anvil.client.waitForTransactionReceipt({ hash: move.hash as Hex });
    await anvil.mine(CONFIRMATIONS);
    await checkHotWalletFloat();
    expect((await moveExcess({ network: "polygon" }))[0]).toMatchObject({
      balance: "1000",
      promised: "0",
      moved: "0",
      chainTxId: null,
    });

    expect(await anvil.balanceOf(usdt, cold)).toBe(before - USDT_TARGET * 1_000_000n);
    expect(await anvil.balanceOf(usdt, hotWallet)).toBe(USDT_TARGET * 1_000_000n);
    const treasury = await db().select().from(chainTxs).where(eq(chainTxs.purpose, "treasury"));
    expect(treasury).toHaveLength(1);
  });

  it("a Crypto-PIX refund the hot wallet cannot pay waits PENDING (never FAILED) and is paid after a top-up", async () => {
    const payer = account(5);
    await anvil.mint(bscUsdt, payer.address, toBaseUnits("100", 18));
    const { apiKey } = await seedMerchant();
    const qrcode = encodeStaticBrCode({
      pixKey: SANDBOX_FAILING_PIX_KEY,
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos: 5400,
      txid: "PEDIDO123",
    });
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
    expect(res.status).toBe(201);
    const [p] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.address, res.body.data.address));
    await anvil.transfer(bscUsdt, payer, p.address as Hex, toBaseUnits("10", 18));
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("bsc"); // paid in full, the PIX is not made: the refund is decided, and held (the wallet has no bsc USDT)

    const [refundTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, p.id));
    expect(refundTx).toMatchObject({ purpose: "refund", status: "pending" });
    expect(refundTx.heldReason).toBe(
      "hot wallet below minimum on bsc: USDT (holds 0, minimum 5; this transfer needs 10); waiting for a top-up",
    );
    await anvil.mine(CONFIRMATIONS);
    await runSweep();
    await checkHotWalletFloat();
    const payment = async () => (await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, p.id)))[0];
    expect(await payment()).toMatchObject({ status: "PENDING", refundStatus: "PENDING", refundTxHash: null });
    // Only this payment's: on-chain withdrawals earlier files left pending in the shared database are
    // sent by this network's node now too, and wait beside it.
    const heldHere = async () => (await floatStatus("bsc")).held.filter((h) => h.ownerId === p.id);
    expect(await heldHere()).toMatchObject([
      { id: refundTx.id, purpose: "refund", ownerKind: "crypto_pix", ownerId: p.id },
    ]);

    const before = await anvil.balanceOf(bscUsdt, payer.address);
    await anvil.mint(bscUsdt, hotWallet, toBaseUnits("100000", 18));
    await checkHotWalletFloat();
    expect(await heldHere()).toEqual([]);
    await anvil.mine(CONFIRMATIONS);
    await runSweep();
    expect(await payment()).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
    expect(await anvil.balanceOf(bscUsdt, payer.address)).toBe(before + toBaseUnits("10", 18));
  });
});
