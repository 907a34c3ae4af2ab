import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Hex } from "viem";
import { db } from "@/db";
import {
  auditEvents,
  chainTransfers,
  chainTxs,
  events,
  ledgerEntries,
  mailOutbox,
  onchainOrders,
  payoutDestinations,
  unappliedResolutions,
  users,
} from "@/db/schema";
import { advanceChainTx } from "@/lib/hot-wallet/tracker";
import { applyDepositTransfer } from "@/lib/onchain/service";
import {
  acceptUnapplied,
  cancelWaitingReturn,
  previewReturn,
  releaseWaitingReturns,
  returnUnapplied,
} from "@/lib/onchain/unapplied";
import { hashPassword } from "@/lib/identity/password-hash";
import { confirmDestination } from "@/lib/withdrawals/address-book";
import { CHAIN_TX_OWNERS } from "@/lib/worker/owners";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

// What a merchant does with an on-chain order's unapplied tokens (lib/onchain/unapplied.ts): accept them
// as payment (credited at the order's fixed rate) or return them from the hot wallet, once per transfer,
// against real PostgreSQL and a real node (anvil) for the return.

let anvil: Anvil;
let usdt: Hex; // polygon USDT: 6 decimals, funded in the hot wallet
let unfunded: Hex; // polygon DAI: never in the hot wallet, so returning it reverts
let restore: () => void;
const payer = account(6);

beforeAll(async () => {
  anvil = await startAnvil();
  usdt = await anvil.deployToken(6, "USDT");
  unfunded = await anvil.deployToken(18, "DAI");
  const chain = await useLocalChain(anvil, ["polygon"], {
    polygon: { USDT: { address: usdt, decimals: 6 }, DAI: { address: unfunded, decimals: 18 } },
  });
  restore = chain.restore;
  await anvil.mint(usdt, chain.hotWallet.address, 10n ** 15n);
});

afterAll(async () => {
  restore?.();
  await anvil?.stop();
});

let hashSeq = Math.floor(Math.random() * 1e9) * 1000;
const freshHash = () => `0x${(++hashSeq).toString(16).padStart(64, "0")}`;

/** A polygon order of R$ 54 (10 tokens at 5.40) and a transfer of `amount` to it, from the payer; `late` expires the order first. */
async function orderWithTransfer(asset: "USDT" | "DAI", amount: string, late = false) {
  const { merchant, apiKey } = await seedMerchant();
  const res = await api("POST", "/api/v1/onchain/deposit", { apiKey, body: { value: 54, network: "polygon", asset } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.order.id as string;
  if (late)
    await db()
      .update(onchainOrders)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(onchainOrders.id, id));
  const [order] = await db().select().from(onchainOrders).where(eq(onchainOrders.id, id));
  await applyDepositTransfer(id, {
    network: "polygon",
    txHash: freshHash(),
    logIndex: 0,
    fromAddress: payer.address,
    toAddress: order.address,
    tokenAddress: order.tokenAddress,
    amount,
    blockTime: new Date(),
  });
  const [transfer] = await db().select().from(chainTransfers).where(eq(chainTransfers.ownerId, id));
  const actor = { merchantId: merchant.id, userId: null, email: "owner@example.com", ip: "127.0.0.1" };
  return { merchant, apiKey, id, paymentLinkId: order.paymentLinkId, transfer, actor };
}

/** An owner for the merchant, so the mails about a return have someone to go to. */
async function ownerOf(merchantId: string) {
  const [user] = await db()
    .insert(users)
    .values({
      merchantId,
      email: `owner-${merchantId.slice(0, 8)}@loja.com.br`,
      passwordHash: await hashPassword("correct horse"),
      role: "owner",
    })
    .returning();
  return user;
}

const resolutionEvents = (orderId: string) =>
  db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, orderId), eq(events.type, "onchain.deposit.unapplied.status_changed")))
    .orderBy(asc(events.seq));
const auditsOf = (merchantId: string) => db().select().from(auditEvents).where(eq(auditEvents.merchantId, merchantId));
const resolutionOf = async (transferId: string) =>
  (
    await db()
      .select()
      .from(unappliedResolutions)
      .where(and(eq(unappliedResolutions.transferId, transferId), isNull(unappliedResolutions.cancelledAt)))
  )[0];

describe("accepting unapplied on-chain funds as payment", () => {
  it("an overpayment's extra 2 USDT credits R$ 10,80 at the fixed rate, with its ledger entry, event and audit row, once", async () => {
    const { merchant, apiKey, id, paymentLinkId, transfer, actor } = await orderWithTransfer("USDT", "12");
    expect(transfer.unappliedAmount).toBe("2.000000000000000000");
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400);

    const r = await acceptUnapplied(actor, id, transfer.id);
    expect(r).toMatchObject({ kind: "accept", status: "COMPLETED", creditedCentavos: 1080 });
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400 + 1080);
    const entries = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchant.id), eq(ledgerEntries.kind, "unapplied_credit")));
    expect(entries).toMatchObject([{ amountCentavos: 1080, refType: "chain_transfer", refId: transfer.id }]);
    const [event] = await resolutionEvents(id);
    expect(event.data).toMatchObject({
      id,
      status: "COMPLETED",
      creditedValue: 64.8,
      resolution: { kind: "accept", status: "COMPLETED", amount: 2, value: 10.8, transferId: transfer.id },
    });
    expect((await auditsOf(merchant.id)).filter((a) => a.action === "unapplied.accepted")).toHaveLength(1);
    // The API's lookup says what was credited; the order keeps its final status.
    const lookup = await api("GET", `/api/v1/onchain/order/${paymentLinkId}`, { apiKey });
    expect(lookup.body.order).toMatchObject({ status: "COMPLETED", creditedValue: 64.8, unappliedValue: 2 });

    // A second click: refused, nothing credited twice.
    await expect(acceptUnapplied(actor, id, transfer.id)).rejects.toThrow("unapplied.alreadyResolved");
    await expect(returnUnapplied(actor, "pt-BR", id, transfer.id)).rejects.toThrow("unapplied.alreadyResolved");
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400 + 1080);
    expect(await resolutionEvents(id)).toHaveLength(1);
  });

  it("ten accepts racing: one credit, one event, one audit row; the others are refused", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("USDT", "10", true);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => acceptUnapplied(actor, id, transfer.id)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(5400);
    expect(await resolutionEvents(id)).toHaveLength(1);
    expect((await auditsOf(merchant.id)).filter((a) => a.action === "unapplied.accepted")).toHaveLength(1);
  });

  it("the database itself refuses a second resolution of one transfer, whatever code wrote it", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("USDT", "10", true);
    await acceptUnapplied(actor, id, transfer.id);
    await expect(
      db().insert(unappliedResolutions).values({
        merchantId: merchant.id,
        orderId: id,
        transferId: transfer.id,
        kind: "return",
        status: "PENDING",
        amount: "10",
      }),
    ).rejects.toThrow();
  });

  it("another merchant's order is not found, and a transfer that counted in full cannot be taken", async () => {
    const { id, transfer } = await orderWithTransfer("USDT", "12");
    const other = await seedMerchant();
    const stranger = { merchantId: other.merchant.id, userId: null, email: "x@example.com", ip: null };
    await expect(acceptUnapplied(stranger, id, transfer.id)).rejects.toThrow("Order not found");
    const exact = await orderWithTransfer("USDT", "10");
    await expect(acceptUnapplied(exact.actor, exact.id, exact.transfer.id)).rejects.toThrow("unapplied.notResolvable");
  });
});

describe("returning unapplied on-chain funds to the sender (polygon → anvil)", () => {
  it("a late 10 USDT go back less the network fee: recorded PENDING before the broadcast, COMPLETED only once mined", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("USDT", "10", true);
    const preview = await previewReturn(merchant.id, id, transfer.id);
    expect(preview.to).toBe(payer.address);
    expect(Number(preview.fee)).toBeGreaterThan(0);
    const before = await anvil.balanceOf(usdt, payer.address);

    const r = await returnUnapplied(actor, "pt-BR", id, transfer.id);
    expect(r).toMatchObject({ kind: "return", status: "PENDING", toAddress: payer.address });
    const sent = Number(r.sentAmount);
    expect(sent + Number(r.feeAmount)).toBeCloseTo(10, 9);
    const [chainTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, r.id));
    expect(chainTx).toMatchObject({
      purpose: "refund",
      ownerKind: "unapplied_return",
      transferId: transfer.id,
      toAddress: payer.address,
    });
    const [pendingTransfer] = await db().select().from(chainTransfers).where(eq(chainTransfers.id, transfer.id));
    expect(pendingTransfer.refundStatus).toBe("PENDING");
    expect((await auditsOf(merchant.id)).filter((a) => a.action === "unapplied.returned")).toHaveLength(1);
    // Nothing debited: the tokens were never the merchant's balance.
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);

    // Not decided until the receipt is final.
    expect((await resolutionOf(transfer.id)).status).toBe("PENDING");
    await anvil.mine(CONFIRMATIONS);
    for (let i = 0; i < 3 && !(await advanceChainTx(chainTx.id, CHAIN_TX_OWNERS)); i++) await anvil.mine(1);
    const done = await resolutionOf(transfer.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await anvil.balanceOf(usdt, payer.address)).toBe(before + BigInt(Math.round(sent * 1e6)));
    const changes = await resolutionEvents(id);
    expect(changes.map((e) => (e.data as { resolution: { status: string } }).resolution.status)).toEqual([
      "PENDING",
      "COMPLETED",
    ]);
    expect(changes[1].data).toMatchObject({ resolution: { kind: "return", txHash: done.txHash, to: payer.address } });
    const [doneTransfer] = await db().select().from(chainTransfers).where(eq(chainTransfers.id, transfer.id));
    expect(doneTransfer.refundStatus).toBe("COMPLETED");
    // Once returned, it can be neither accepted nor returned again.
    await expect(acceptUnapplied(actor, id, transfer.id)).rejects.toThrow("unapplied.notResolvable");
  });

  it("to an address the merchant gives (the sender was an exchange): a bad address is refused before anything is recorded", async () => {
    const { id, transfer, actor } = await orderWithTransfer("USDT", "12");
    await expect(returnUnapplied(actor, "pt-BR", id, transfer.id, "0x123")).rejects.toThrow("unapplied.addressInvalid");
    expect(await resolutionOf(transfer.id)).toBeUndefined();
    const to = randomAddress();
    const r = await returnUnapplied(actor, "pt-BR", id, transfer.id, to);
    expect(r.toAddress).toBe(to);
  });

  it("accept racing return: exactly one wins", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("USDT", "10", true);
    const [a, b] = await Promise.allSettled([
      acceptUnapplied(actor, id, transfer.id),
      returnUnapplied(actor, "pt-BR", id, transfer.id),
    ]);
    expect([a, b].filter((x) => x.status === "fulfilled")).toHaveLength(1);
    const rows = await db().select().from(unappliedResolutions).where(eq(unappliedResolutions.transferId, transfer.id));
    expect(rows).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(rows[0].kind === "accept" ? 5400 : 0);
    expect(await db().select().from(chainTxs).where(eq(chainTxs.transferId, transfer.id))).toHaveLength(
      rows[0].kind === "return" ? 1 : 0,
    );
  });

  it("a return the chain refuses (the hot wallet lacks the token) is FAILED, for an operator, and never credited", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("DAI", "10", true);
    const r = await returnUnapplied(actor, "pt-BR", id, transfer.id);
    const [chainTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, r.id));
    await anvil.mine(CONFIRMATIONS);
    for (let i = 0; i < 3 && !(await advanceChainTx(chainTx.id, CHAIN_TX_OWNERS)); i++) await anvil.mine(1);
    const failed = await resolutionOf(transfer.id);
    expect(failed).toMatchObject({ status: "FAILED" });
    expect(failed.failureReason).toBeTruthy();
    const [t] = await db().select().from(chainTransfers).where(eq(chainTransfers.id, transfer.id));
    expect(t.refundStatus).toBe("FAILED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    await expect(acceptUnapplied(actor, id, transfer.id)).rejects.toThrow();
  });

  it("to a new address (not the sender's): it waits, with no transaction, the owner mailed and the audit row naming it; an owner's confirmation sends it", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("USDT", "10", true);
    const owner = await ownerOf(merchant.id);
    const to = randomAddress();
    const r = await returnUnapplied(actor, "pt-BR", id, transfer.id, to);
    expect(r).toMatchObject({ kind: "return", status: "PENDING", toAddress: to, chainTxId: null });
    expect(r.waitingReason).toMatch(/^waiting for destination 0x[0-9a-f]{40}: it is new/);
    expect(await db().select().from(chainTxs).where(eq(chainTxs.ownerId, r.id))).toEqual([]);
    const [destination] = await db()
      .select()
      .from(payoutDestinations)
      .where(eq(payoutDestinations.merchantId, merchant.id));
    expect(destination).toMatchObject({ value: to.toLowerCase(), status: "held" });
    const [returned] = (await auditsOf(merchant.id)).filter((a) => a.action === "unapplied.returned");
    expect(returned.details).toMatchObject({ to, toSender: false, newDestination: true, waitsFor: destination.id });
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, owner.email));
    expect(mails.map((m) => m.subject.split(":")[0]).sort()).toEqual([
      "Devolução de fundos não aplicados solicitada",
      "Novo destino de saque",
    ]);
    expect(mails.find((m) => m.subject.startsWith("Devolução"))!.body).toContain(to);
    // Still held: the sweep sends nothing.
    expect(await releaseWaitingReturns(merchant.id)).toBe(0);

    await confirmDestination({ ...actor, userId: owner.id }, destination.id);
    expect(await releaseWaitingReturns(merchant.id)).toBe(1);
    const released = await resolutionOf(transfer.id);
    expect(released).toMatchObject({ status: "PENDING", waitingDestinationId: null });
    const [chainTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, r.id));
    expect(chainTx.toAddress).toBe(to);
    expect((await auditsOf(merchant.id)).map((a) => a.action)).toContain("unapplied.returnReleased");
  });

  it("to the sender: no hold, no destination recorded; a waiting return cancelled leaves the funds to decide again", async () => {
    const { merchant, id, transfer, actor } = await orderWithTransfer("USDT", "10", true);
    const waiting = await returnUnapplied(actor, "pt-BR", id, transfer.id, randomAddress());
    await cancelWaitingReturn(actor, id, waiting.id);
    const [t] = await db().select().from(chainTransfers).where(eq(chainTransfers.id, transfer.id));
    expect(t.refundStatus).toBeNull();
    await expect(cancelWaitingReturn(actor, id, waiting.id)).rejects.toThrow("unapplied.notWaiting");
    expect((await auditsOf(merchant.id)).map((a) => a.action)).toContain("unapplied.returnCancelled");
    const cancelled = (await resolutionEvents(id)).at(-1)!.data as { resolution: { status: string; reason: string } };
    expect(cancelled.resolution).toMatchObject({ status: "FAILED", reason: "cancelled" });

    // Decided again: back to the sender, at once.
    const r = await returnUnapplied(actor, "pt-BR", id, transfer.id, payer.address);
    expect(r.waitingDestinationId).toBeNull();
    expect(await db().select().from(chainTxs).where(eq(chainTxs.ownerId, r.id))).toHaveLength(1);
    expect(
      (await auditsOf(merchant.id)).filter((a) => a.action === "unapplied.returned").at(-1)!.details,
    ).toMatchObject({
      toSender: true,
      newDestination: false,
    });
  });
});
