import { afterEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "@/db";
import { cryptoPixPayments, pixPayouts, sandboxPixPayouts, withdrawals } from "@/db/schema";
import { providerPayoutId } from "@/lib/pix-payouts/machine";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { overrideProvidersForTests } from "@/lib/providers";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { runSweep } from "@/lib/worker";
import { faultyPayout } from "./fixtures/faulty-payout";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

// An outcome we do not know is not a failure (docs/providers.md#an-outcome-we-do-not-know-is-not-a-failure): a payout whose answer was lost is read
// back by our id, never sent twice and never credited back on a guess; money goes back only when
// the provider says the PIX was not made.

afterEach(() => overrideProvidersForTests(undefined));

const payoutOf = async (ownerId: string) =>
  (await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, ownerId)))[0];
const withdrawal = async (id: string) => (await db().select().from(withdrawals).where(eq(withdrawals.id, id)))[0];
const madeAtProvider = async (payoutId: string) =>
  db()
    .select()
    .from(sandboxPixPayouts)
    .where(eq(sandboxPixPayouts.id, providerPayoutId({ id: payoutId })));

async function pixOut(apiKey: string, value: number, pixKey?: string) {
  const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value, ...(pixKey ? { pixKey } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

describe("pix-out payouts whose outcome is not known", () => {
  it("the answer is lost after the PIX was made: PENDING, then read back as made → COMPLETED, paid once", async () => {
    const psp = faultyPayout();
    overrideProvidersForTests({ payout: psp.provider });
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    psp.fail("lost");
    const w = await pixOut(apiKey, 10_000);
    expect(await processWithdrawal(w.id)).toBe(false);
    expect(await withdrawal(w.id)).toMatchObject({ status: "PENDING" });
    const payout = await payoutOf(w.id);
    expect(payout).toMatchObject({
      status: "created",
      attempts: 1,
      lastError: expect.stringContaining("socket hang up"),
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(40_000); // still debited: nothing is given back on a guess

    psp.fail(null);
    expect(await processWithdrawal(w.id)).toBe(true);
    expect(await withdrawal(w.id)).toMatchObject({ status: "COMPLETED", providerRef: expect.stringMatching(/^E/) });
    expect(psp.sent(providerPayoutId(payout))).toBe(1); // read, not sent again
    expect(await madeAtProvider(payout.id)).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(40_000);
  });

  it("the provider never received it: sent again with the same id once it answers", async () => {
    const psp = faultyPayout();
    overrideProvidersForTests({ payout: psp.provider });
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    psp.fail("down");
    const w = await pixOut(apiKey, 5_000);
    for (let i = 0; i < 3; i++) expect(await processWithdrawal(w.id)).toBe(false);
    expect(await withdrawal(w.id)).toMatchObject({ status: "PENDING" });
    psp.fail(null);
    expect(await processWithdrawal(w.id)).toBe(true);
    expect(await withdrawal(w.id)).toMatchObject({ status: "COMPLETED" });
    expect(await madeAtProvider((await payoutOf(w.id)).id)).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(45_000);
  });

  it("processing, then not made (NAO_REALIZADO): FAILED and credited back, only then", async () => {
    const psp = faultyPayout();
    overrideProvidersForTests({ payout: psp.provider });
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    psp.fail("processing");
    const w = await pixOut(apiKey, 7_000);
    expect(await processWithdrawal(w.id)).toBe(false);
    const payout = await payoutOf(w.id);
    expect(payout.status).toBe("processing");
    expect(await processWithdrawal(w.id)).toBe(false);
    expect(await balanceMatchesLedger(merchant.id)).toBe(43_000);
    psp.finish(providerPayoutId(payout), { status: "FAILED", reason: "recipient account closed" });
    expect(await processWithdrawal(w.id)).toBe(true);
    expect(await withdrawal(w.id)).toMatchObject({ status: "FAILED", failureReason: "recipient account closed" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(50_000);
  });
});

describe("Crypto-PIX payouts whose outcome is not known", () => {
  const qrcode = (pixKey = "padaria@example.com") =>
    encodeStaticBrCode({
      pixKey,
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos: 5400,
      txid: "PEDIDO9",
    });
  const payment = async (address: string) =>
    (await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.address, address)))[0];

  async function paid(apiKey: string) {
    const created = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: { qrcode: qrcode(), network: "bsc" },
    });
    expect(created.status).toBe(201);
    const t = await api("POST", `/api/v1/sandbox/crypto-pix/${created.body.data.payCryptoPixId}/transfer`, {
      apiKey,
      body: { amount: String(created.body.data.cryptoValue) },
    });
    expect(t.status).toBe(200);
    return { address: created.body.data.address as string, answer: t.body };
  }

  it("the payout's answer is lost: the payment stays PENDING (never refunded on a guess), and completes when the read says made", async () => {
    const psp = faultyPayout();
    overrideProvidersForTests({ payout: psp.provider });
    const { apiKey } = await seedMerchant();
    psp.fail("lost");
    const { address, answer } = await paid(apiKey);
    expect(answer.payment).toMatchObject({ status: "PENDING" });
    expect(answer.payment.refundStatus).toBeUndefined();
    const p = await payment(address);
    const payout = await payoutOf(p.id);
    expect(payout).toMatchObject({ purpose: "crypto_pix", status: "created", brcode: qrcode(), attempts: 1 });
    expect(await payment(address)).toMatchObject({ status: "PENDING", refundStatus: null, closedAt: null });

    // The next check asks the provider by our id instead of sending again: it was made.
    await runSweep();
    expect(await payment(address)).toMatchObject({ status: "COMPLETED", refundStatus: null });
    expect(psp.sent(providerPayoutId(payout))).toBe(1);
    expect(await madeAtProvider(payout.id)).toHaveLength(1);
  });

  it("the payout's outcome is unknown and the read says not made: only then is the crypto refunded", async () => {
    const psp = faultyPayout();
    overrideProvidersForTests({ payout: psp.provider });
    const { apiKey } = await seedMerchant();
    psp.fail("processing");
    const { address } = await paid(apiKey);
    await runSweep();
    expect(await payment(address)).toMatchObject({ status: "PENDING", refundStatus: null });
    const payout = await payoutOf((await payment(address)).id);
    psp.finish(providerPayoutId(payout), { status: "FAILED", reason: "NAO_REALIZADO: recipient key not found" });
    await runSweep();
    expect(await payment(address)).toMatchObject({
      status: "REFUNDED",
      refundStatus: "COMPLETED",
      failureReason: "NAO_REALIZADO: recipient key not found",
    });
  });
});
