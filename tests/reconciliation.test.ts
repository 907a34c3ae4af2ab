import { and, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/db";
import {
  auditEvents,
  chainCursors,
  chainTransfers,
  chainTxs,
  mailOutbox,
  orderReceipts,
  orderRefunds,
  orders,
  pixPayouts,
  pixReceipts,
  reconMismatches,
  reconRuns,
} from "@/db/schema";
import { attentionList } from "@/lib/attention/attention";
import { resetEnvForTests } from "@/lib/env";
import { saoPauloDay } from "@/lib/money";
import { advancePayout, providerPayoutId } from "@/lib/pix-payouts/machine";
import { confirmNotifiedPix } from "@/lib/pix-collection/confirm";
import { UnreadableAnswer, UpstreamUnavailable } from "@/lib/errors";
import { metricsRegistry } from "@/lib/metrics/registry";
import { binancePay } from "@/lib/providers/exchange/binance-pay";
import { registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { confirmExchangeOrder } from "@/lib/exchange-wallet/confirm";
import { confirmLightningOrder } from "@/lib/lightning/confirm";
import { lndLightning } from "@/lib/providers/lightning/lnd";
import { lightningPaging } from "@/lib/reconciliation/source-lightning";
import { watchDeposits } from "@/lib/worker";
import { processWithdrawal } from "@/lib/withdrawals/service";
import type { Account } from "viem";
import { reconcile } from "@/lib/reconciliation/daily";
import { dayWindow } from "@/lib/reconciliation/run";
import { listMismatches, resolveMismatch } from "@/lib/reconciliation/mismatches";
import { onWithdrawalPayout } from "@/lib/withdrawals/service";
import { resolveMoneyOut } from "@/lib/worker/operator";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { startBinancePay, type BinancePayServer } from "./fixtures/binance-pay/server";
import { startLndNode, type LndNode } from "./fixtures/lnd/server";
import { startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { account, startAnvil, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { api } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";

// One day reconciled against the test PSP's own records (API Pix GET /pix, Efí GET /v2/gn/pix/enviados),
// with one disagreement of each kind made the way it happens: a PIX sent from the PSP's portal (missing
// here), a payout an operator recorded as made that never reached the PSP (missing there), a record of
// ours altered (amount differs), a payout recorded as not made that the PSP made (state differs). Each
// is reported once, however often the day is reconciled, and resolved with an audited note.

const RECEIVER_KEY = "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716";
const PAYOUT_KEY = "recon@pixcrypto.example";
const WEBHOOK_TOKEN = "recon-test-webhook-token-0123456789abcdef";
const OPERATOR = "ops@pixcrypto.example";

let psp: PixPsp;
let receiver: HttpsReceiver;
const savedEnv = saveEnv();
const owners = { withdrawal: onWithdrawalPayout };

async function pixOut(apiKey: string, value: number) {
  const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, res.body.id));
  return payout;
}

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  receiver = await startHttpsReceiver(psp, { mtls: "skip" });
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, webhookToken: WEBHOOK_TOKEN }),
    {
      OPERATOR_ALERT_EMAIL: OPERATOR,
    },
  );
  resetEnvForTests();
  await registerPixWebhooks(`${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`);
});

afterEach(() => {
  expect(psp.violations).toEqual([]);
});

afterAll(async () => {
  await receiver.close();
  await psp.close();
  savedEnv.restore();
});

describe("daily reconciliation", () => {
  it("a day with one mismatch of each kind: each reported once, alerted once, resolved with an audited note; balance = ledger throughout", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant(50_000);

    // Matched on both sides: a PIX received and a payout made.
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 33.3 } });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    const paid = await psp.pay(order.txid!, { notify: false });
    await confirmNotifiedPix(paid.endToEndId);
    const fine = await pixOut(apiKey, 1000);
    // Efí answers the send EM_PROCESSAMENTO; the read after it, REALIZADO.
    expect((await advancePayout(fine.id, owners)) || (await advancePayout(fine.id, owners))).toBe(true);

    // amount_differs: our record of the PIX no longer says what the PSP does.
    await db().update(pixReceipts).set({ valueCentavos: 3333 }).where(eq(pixReceipts.endToEndId, paid.endToEndId));

    // missing_here: a PIX sent from the PSP's own portal.
    const elsewhere = psp.sendElsewhere({ valor: "12.00", favorecido: "someone@else.example" });

    // missing_there: recorded as made by an operator, never sent to the PSP.
    const never = await pixOut(apiKey, 700);
    await resolveMoneyOut("payout", never.id, "made", "the PSP's support said it went out (it had not)");

    // state_differs: the PSP made it; an operator recorded it as not made (the money credited back).
    psp.faults.payoutOutcome = () => "EM_PROCESSAMENTO";
    psp.faults.dropNotifications = true;
    const made = await pixOut(apiKey, 900);
    expect(await advancePayout(made.id, owners)).toBe(false);
    psp.settlePayout(providerPayoutId(made), "REALIZADO");
    await resolveMoneyOut("payout", made.id, "not-made", "the PSP's support said it was refused (it was not)");
    psp.faults.payoutOutcome = () => "REALIZADO";
    psp.faults.dropNotifications = false;
    const balance = await balanceMatchesLedger(merchant.id);

    const runs = await reconcile({ day });
    expect(runs.map((r) => [r?.source, r?.status])).toEqual([
      ["pix_received", "done"],
      ["pix_sent", "done"],
    ]);
    // This test's own (other test files may have left records of other PSPs' movements in the database).
    const ours = <T extends { merchantId: string | null; ref: string }>(rows: T[]) =>
      rows.filter((m) => m.merchantId === merchant.id || m.ref === elsewhere.idEnvio);
    const found = ours((await listMismatches()).filter((m) => m.day === day));
    const byKind = Object.fromEntries(found.map((m) => [m.kind, m]));
    expect(found.map((m) => m.kind).sort()).toEqual([
      "amount_differs",
      "missing_here",
      "missing_there",
      "state_differs",
    ]);
    expect(byKind.amount_differs).toMatchObject({
      source: "pix_received",
      ref: paid.endToEndId,
      merchantId: merchant.id,
    });
    expect(byKind.missing_here).toMatchObject({ source: "pix_sent", ref: elsewhere.idEnvio, merchantId: null });
    expect(byKind.missing_there).toMatchObject({
      source: "pix_sent",
      ref: providerPayoutId(never),
      merchantId: merchant.id,
    });
    expect(byKind.state_differs).toMatchObject({
      source: "pix_sent",
      ref: providerPayoutId(made),
      detail: "ours is failed, the provider's COMPLETED",
    });
    // Reconciliation reports; it moves no money.
    expect(await balanceMatchesLedger(merchant.id)).toBe(balance);

    // Again, and again from scratch: nothing is reported twice.
    await reconcile({ day });
    await reconcile({ day, again: true });
    expect(ours(await db().select().from(reconMismatches).where(eq(reconMismatches.day, day))).length).toBe(4);
    const [run] = await db()
      .select()
      .from(reconRuns)
      .where(and(eq(reconRuns.source, "pix_sent"), eq(reconRuns.day, day)));
    expect(run.status).toBe("done");
    expect(run.mismatches).toBeGreaterThanOrEqual(3);

    // Each alerted once: listed for operators, one mail each.
    const listed = (await attentionList(db(), 100_000)).filter((a) => a.kind === "recon_mismatch");
    for (const m of found) expect(listed.some((a) => a.id === m.id)).toBe(true);
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, OPERATOR));
    for (const m of found) expect(mails.filter((x) => x.subject.includes(m.id))).toHaveLength(1);

    // Resolved with a note: audited, off the open list and the attention list.
    await resolveMismatch(byKind.missing_here.id, "Efí portal payment by finance, ticket 123");
    expect((await listMismatches()).some((m) => m.id === byKind.missing_here.id)).toBe(false);
    expect((await attentionList(db(), 100_000)).some((a) => a.id === byKind.missing_here.id)).toBe(false);
    const [trail] = await db().select().from(auditEvents).where(eq(auditEvents.target, byKind.missing_here.id));
    expect(trail).toMatchObject({
      action: "recon.mismatchResolved",
      details: { note: "Efí portal payment by finance, ticket 123", kind: "missing_here" },
    });
    await expect(resolveMismatch(byKind.missing_here.id, "again")).rejects.toThrow(/No open/);
    await reconcile({ day, again: true });
    expect(ours(await db().select().from(reconMismatches).where(eq(reconMismatches.day, day))).length).toBe(4);
    expect(await balanceMatchesLedger(merchant.id)).toBe(balance);
  });

  it("a PIX the PSP has and we never recorded is applied by reconciliation and reported as missing here", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 21 } });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    const paid = await psp.pay(order.txid!, { notify: false });
    await reconcile({ day, only: "pix_received", again: true });
    const [m] = await db().select().from(reconMismatches).where(eq(reconMismatches.ref, paid.endToEndId));
    expect(m).toMatchObject({
      kind: "missing_here",
      detail: "we had no record of it: applied now by reconciliation",
      merchantId: merchant.id,
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(2100);
  });

  it("a run that fails part-way is resumed by the next one", async () => {
    const day = saoPauloDay(new Date(Date.now() - 2 * 86_400_000));
    // Past the client's own retries of a read.
    psp.faults.failNext.push({ path: /\/v2\/gn\/pix\/enviados\?/, status: 503, count: 3 });
    await expect(reconcile({ day, only: "pix_sent" })).rejects.toThrow();
    const [failed] = await db()
      .select()
      .from(reconRuns)
      .where(and(eq(reconRuns.source, "pix_sent"), eq(reconRuns.day, day)));
    expect(failed.status).toBe("failed");
    const [done] = await reconcile({ day, only: "pix_sent" });
    expect(done).toMatchObject({ status: "done" });
  });
});

describe("daily reconciliation: Efí's list of PIX sent, in each shape its SDKs declare", () => {
  afterEach(() => {
    psp.faults.sentListShape = "envelope";
  });

  async function failures(reason: string): Promise<number> {
    const metric = await metricsRegistry.getSingleMetric("payments_reconciliation_run_failures_total")?.get();
    return metric?.values.find((v) => v.labels.source === "pix_sent" && v.labels.reason === reason)?.value ?? 0;
  }

  it("the bare array of efipay/sdk-node-apis-efi's typings is read like the envelope: our payout is found there, one sent elsewhere is missing here", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant(20_000);
    const made = await pixOut(apiKey, 800);
    expect((await advancePayout(made.id, owners)) || (await advancePayout(made.id, owners))).toBe(true);
    const elsewhere = psp.sendElsewhere({ valor: "3.00", favorecido: "array@else.example" });
    psp.faults.sentListShape = "array";
    const [run] = await reconcile({ day, only: "pix_sent", again: true });
    expect(run).toMatchObject({ status: "done" });
    const mine = await db()
      .select()
      .from(reconMismatches)
      .where(eq(reconMismatches.ref, providerPayoutId(made)));
    expect(mine).toEqual([]);
    const [theirs] = await db().select().from(reconMismatches).where(eq(reconMismatches.ref, elsewhere.idEnvio));
    expect(theirs).toMatchObject({ kind: "missing_here", source: "pix_sent" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(19_200);
  });

  it("a list in neither shape stops the run loudly (an error, the metric, one operator alert) and reports nothing missing; the next readable run clears it", async () => {
    const day = saoPauloDay();
    const { apiKey } = await liveMerchant(20_000);
    const made = await pixOut(apiKey, 600);
    expect((await advancePayout(made.id, owners)) || (await advancePayout(made.id, owners))).toBe(true);
    const before = await failures("unreadable_answer");
    psp.faults.sentListShape = "other";
    await expect(reconcile({ day, only: "pix_sent", again: true })).rejects.toBeInstanceOf(UnreadableAnswer);
    await expect(reconcile({ day, only: "pix_sent" })).rejects.toThrow(/shape we cannot read/);
    expect(await failures("unreadable_answer")).toBe(before + 2);
    const [run] = await db()
      .select()
      .from(reconRuns)
      .where(and(eq(reconRuns.source, "pix_sent"), eq(reconRuns.day, day)));
    expect(run.status).toBe("failed");
    expect(run.attention).toMatch(/pix_sent .*shape we cannot read \(an object with parametros, enviados\)/);
    expect((await attentionList(db(), 100_000)).filter((a) => a.kind === "recon_run" && a.id === run.id)).toHaveLength(
      1,
    );
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, OPERATOR));
    expect(mails.filter((m) => m.subject.includes(run.id))).toHaveLength(1);
    // Nothing was read as an empty page: our payout is not reported missing at the PSP.
    expect(
      await db()
        .select()
        .from(reconMismatches)
        .where(eq(reconMismatches.ref, providerPayoutId(made))),
    ).toEqual([]);

    psp.faults.sentListShape = "envelope";
    const [done] = await reconcile({ day, only: "pix_sent" });
    expect(done).toMatchObject({ status: "done" });
    expect((await attentionList(db(), 100_000)).some((a) => a.id === run.id)).toBe(false);
  });
});

describe("daily reconciliation: Binance Pay orders and refunds", () => {
  let binance: BinancePayServer;

  beforeAll(async () => {
    binance = await startBinancePay({ quiet: true, autoExpire: false });
    // Notifications would go to the public URL, which nothing answers here: the test reads instead.
    binance.faults.dropNotifications = true;
    Object.assign(process.env, {
      BINANCE_PAY_URL: binance.url,
      BINANCE_PAY_API_KEY: binance.apiKey,
      BINANCE_PAY_SECRET_KEY: binance.secretKey,
    });
    resetEnvForTests();
  });

  afterEach(() => {
    expect(binance.violations).toEqual([]);
  });

  afterAll(async () => {
    await binance.stop();
    for (const k of ["BINANCE_PAY_URL", "BINANCE_PAY_API_KEY", "BINANCE_PAY_SECRET_KEY"]) delete process.env[k];
    resetEnvForTests();
  });

  async function exchangeOrder(apiKey: string, value: number) {
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
    return order;
  }

  async function paidOrder(apiKey: string, value: number) {
    const order = await exchangeOrder(apiKey, value);
    await binance.pay(order.paymentLinkId, { notify: false });
    expect(await confirmExchangeOrder(order, "poll")).toMatchObject({ applied: true });
    return order;
  }

  async function refund(apiKey: string, orderId: string, body: Record<string, unknown>) {
    const res = await api("POST", `/api/v1/order/${orderId}/refund`, { apiKey, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.refund as { id: string; status: string };
  }

  it("a day with one mismatch of each kind, each reported once; a payment we never recorded is applied; balance = ledger throughout", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant();

    // Matched: paid, refunded in part through our API.
    const fine = await paidOrder(apiKey, 50);
    expect((await refund(apiKey, fine.id, { value: 10 })).status).toBe("COMPLETED");

    // Paid at Binance; every notification and poll missed it: applied by reconciliation, reported missing here.
    const missed = await exchangeOrder(apiKey, 31);
    await binance.pay(missed.paymentLinkId, { notify: false });

    // state_differs: the merchant refunded it from Binance's portal; we still have it paid.
    const portal = await paidOrder(apiKey, 40);
    binance.refundFromPortal(portal.paymentLinkId, "2.00000000");

    // missing_there: the refund's send never reached Binance, and an operator recorded it as made.
    const lost = await paidOrder(apiKey, 20);
    binance.faults.failNext = [{ path: /\/order\/refund$/, status: 503, count: 1 }];
    const never = await refund(apiKey, lost.id, { value: 5 });
    expect(never.status).toBe("PENDING");
    await resolveMoneyOut("refund", never.id, "made", "Binance support said it was made (it was not)");

    // amount_differs: our record of a refund no longer says what Binance refunded.
    const altered = await paidOrder(apiKey, 30);
    const changed = await refund(apiKey, altered.id, { value: 6 });
    expect(changed.status).toBe("COMPLETED");
    await db().update(orderRefunds).set({ valueCentavos: 700 }).where(eq(orderRefunds.id, changed.id));

    const before = await balanceMatchesLedger(merchant.id);
    const runs = await reconcile({ day, only: "exchange", again: true });
    expect(runs).toMatchObject([{ source: "exchange", status: "done" }]);
    // The payment we had missed is credited (R$ 31,00); nothing else moved.
    expect(await balanceMatchesLedger(merchant.id)).toBe(before + 3100);
    expect(await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, missed.id))).toHaveLength(1);

    const mine = async () =>
      (await db().select().from(reconMismatches).where(eq(reconMismatches.source, "exchange"))).filter(
        (m) => m.merchantId === merchant.id,
      );
    const found = await mine();
    expect(found.map((m) => `${m.kind} ${m.ref}`).sort()).toEqual(
      [
        `amount_differs refund:${changed.id.replace(/-/g, "")}`,
        `missing_here order:${missed.paymentLinkId}`,
        `missing_there refund:${never.id.replace(/-/g, "")}`,
        `state_differs order:${portal.paymentLinkId}`,
        // The refund Binance never had also leaves its order unrefunded there.
        `state_differs order:${lost.paymentLinkId}`,
      ].sort(),
    );
    const byKind = Object.fromEntries(
      found.filter((m) => m.ref !== `order:${lost.paymentLinkId}`).map((m) => [m.kind, m]),
    );
    expect(byKind.missing_here).toMatchObject({
      ref: `order:${missed.paymentLinkId}`,
      detail: "we had no record of it: applied now by reconciliation",
    });
    expect(byKind.state_differs).toMatchObject({
      ref: `order:${portal.paymentLinkId}`,
      detail: "ours is paid, the provider's REFUNDED",
    });
    expect(byKind.missing_there).toMatchObject({ ref: `refund:${never.id.replace(/-/g, "")}` });
    expect(byKind.amount_differs).toMatchObject({
      ref: `refund:${changed.id.replace(/-/g, "")}`,
      detail: expect.stringMatching(/^we have R\$\s7,00, the provider R\$\s6,00$/),
    });

    // Again, and from scratch: nothing twice, nothing applied twice.
    await reconcile({ day, only: "exchange" });
    await reconcile({ day, only: "exchange", again: true });
    expect(await mine()).toHaveLength(5);
    expect(await balanceMatchesLedger(merchant.id)).toBe(before + 3100);
    // The order we had missed now matches: what was reported is marked cleared, still listed for an operator.
    const [cleared] = (await mine()).filter((m) => m.kind === "missing_here");
    expect(cleared.clearedAt).not.toBeNull();
    expect(cleared.resolvedAt).toBeNull();
  });

  it("a day with more orders than a page is read page by page, and a run that fails part-way resumes at its page", async () => {
    const day = saoPauloDay(new Date(Date.now() - 3 * 86_400_000));
    const { merchant, apiKey } = await liveMerchant();
    const made: string[] = [];
    for (let i = 0; i < 105; i++) made.push((await exchangeOrder(apiKey, (100 + i) / 100)).id);
    // Dated three days ago, as if made then; one of them paid at Binance then.
    const { from } = dayWindow(day);
    await db()
      .update(orders)
      .set({ createdAt: new Date(from.getTime() + 3_600_000) })
      .where(inArray(orders.id, made));
    const [paid] = await db().select().from(orders).where(eq(orders.id, made[104]));
    await binance.pay(paid.paymentLinkId, { notify: false, at: new Date(from.getTime() + 7_200_000) });
    // Binance stops answering at the second page's first order.
    const read = binancePay.readOrderRecord!.bind(binancePay);
    let asked = 0;
    const spy = vi.spyOn(binancePay, "readOrderRecord").mockImplementation(async (tradeNo) => {
      if (++asked === 101) throw new UpstreamUnavailable("Binance Pay unavailable (read the order): HTTP 503");
      return read(tradeNo);
    });
    await expect(reconcile({ day, only: "exchange" })).rejects.toThrow(/503/);
    const [failed] = await db()
      .select()
      .from(reconRuns)
      .where(and(eq(reconRuns.source, "exchange"), eq(reconRuns.day, day)));
    expect(failed).toMatchObject({ status: "failed", cursor: { page: 1 } });
    asked = 0;
    const [done] = await reconcile({ day, only: "exchange" });
    spy.mockRestore();
    expect(done).toMatchObject({ status: "done", resumed: true });
    // Resumed at the second page: only its 5 orders were asked for again.
    expect(asked).toBe(5);
    const found = (await db().select().from(reconMismatches).where(eq(reconMismatches.day, day))).filter(
      (m) => m.merchantId === merchant.id,
    );
    expect(found).toMatchObject([{ kind: "missing_here", ref: `order:${paid.paymentLinkId}` }]);
  });
});

describe("daily reconciliation: LND settled invoices", () => {
  let node: LndNode;
  let rates: ProviderServer;
  const LND_ENV = ["RATES_URL", "LIGHTNING_BACKEND", "LND_REST_URL", "LND_MACAROON_FILE", "LND_TLS_CERT_FILE"];

  beforeAll(async () => {
    node = await startLndNode({ quiet: true });
    rates = await startProviderServer();
    Object.assign(process.env, {
      RATES_URL: `${rates.url}/api/v3`,
      LIGHTNING_BACKEND: "lnd",
      LND_REST_URL: node.url,
      LND_MACAROON_FILE: node.macaroonFile,
      LND_TLS_CERT_FILE: node.certFile,
    });
    resetEnvForTests();
  });

  afterEach(() => {
    // Everything we sent the node and everything it answered followed LND's REST description.
    expect(node.violations).toEqual([]);
    lightningPaging.size = 500;
  });

  afterAll(async () => {
    await node.close();
    await rates.close();
    for (const k of LND_ENV) delete process.env[k];
    resetEnvForTests();
  });

  async function lightningOrder(apiKey: string, value: number) {
    const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
    return order;
  }

  async function paidOrder(apiKey: string, value: number) {
    const order = await lightningOrder(apiKey, value);
    node.pay(order.paymentHash!);
    expect(await confirmLightningOrder(order, "poll")).toMatchObject({ applied: true });
    return order;
  }

  it("a day with one mismatch of each kind the node can show, each reported once; a settle we never recorded is applied; balance = ledger", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant();

    // Matched: settled, recorded from the node.
    await paidOrder(apiKey, 20);

    // Settled while every stream message and poll missed it: applied by reconciliation, reported missing here.
    const missed = await lightningOrder(apiKey, 12);
    node.pay(missed.paymentHash!);

    // missing_here: an invoice made on the node by someone else with its macaroon, and paid.
    const elsewhere = await lndLightning.createInvoice({
      satoshis: 4321,
      fiatCentavos: 0,
      description: "not ours",
      expirySeconds: 600,
      paymentLinkId: "elsewhere",
    });
    node.pay(elsewhere.paymentHash);

    // amount_differs: our record of an order's satoshis no longer says what the node was paid.
    const altered = await paidOrder(apiKey, 15);
    await db()
      .update(orders)
      .set({ satoshis: altered.satoshis! + 1 })
      .where(eq(orders.id, altered.id));

    // missing_there: the node was restored from a backup taken before this invoice settled.
    const lost = await paidOrder(apiKey, 9);
    node.invoices.delete(lost.paymentHash!);

    const before = await balanceMatchesLedger(merchant.id);
    expect(await reconcile({ day, only: "lightning", again: true })).toMatchObject([
      { source: "lightning", status: "done" },
    ]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(before + 1200);

    const mine = async () =>
      (await db().select().from(reconMismatches).where(eq(reconMismatches.source, "lightning"))).filter(
        (m) => m.merchantId === merchant.id || m.ref === elsewhere.paymentHash,
      );
    const found = await mine();
    expect(found.map((m) => `${m.kind} ${m.ref}`).sort()).toEqual(
      [
        `missing_here ${missed.paymentHash}`,
        `missing_here ${elsewhere.paymentHash}`,
        `amount_differs ${altered.paymentHash}`,
        `missing_there ${lost.paymentHash}`,
      ].sort(),
    );
    const byRef = Object.fromEntries(found.map((m) => [m.ref, m]));
    expect(byRef[missed.paymentHash!].detail).toBe("we had no record of it: applied now by reconciliation");
    expect(byRef[elsewhere.paymentHash]).toMatchObject({
      merchantId: null,
      detail: "the provider has 4321 sats (SETTLED); we have no record of it",
    });
    expect(byRef[altered.paymentHash!].detail).toBe(
      `we have ${altered.satoshis! + 1} sats, the provider ${altered.satoshis} sats`,
    );

    await reconcile({ day, only: "lightning" });
    await reconcile({ day, only: "lightning", again: true });
    expect(await mine()).toHaveLength(4);
    expect(await balanceMatchesLedger(merchant.id)).toBe(before + 1200);
  });

  it("the node's list is read page by page, by add index, and a run that fails part-way resumes at its page", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant();
    lightningPaging.size = 2;
    const paid = [];
    for (let i = 0; i < 3; i++) {
      const o = await lightningOrder(apiKey, 5 + i);
      node.pay(o.paymentHash!);
      paid.push(o);
    }
    const list = lndLightning.listInvoices!.bind(lndLightning);
    let pages = 0;
    const spy = vi.spyOn(lndLightning, "listInvoices").mockImplementation(async (args) => {
      if (++pages === 2) throw new UpstreamUnavailable("LND node unavailable (list the invoices): HTTP 503");
      return list(args);
    });
    await expect(reconcile({ day, only: "lightning", again: true })).rejects.toThrow(/503/);
    const [failed] = await db()
      .select()
      .from(reconRuns)
      .where(and(eq(reconRuns.source, "lightning"), eq(reconRuns.day, day)));
    expect(failed.status).toBe("failed");
    const offset = failed.cursor.page as number;
    expect(offset).toBeGreaterThan(0);
    const offsets: number[] = [];
    spy.mockImplementation(async (args) => {
      offsets.push(args.indexOffset);
      return list(args);
    });
    const [done] = await reconcile({ day, only: "lightning" });
    spy.mockRestore();
    expect(done).toMatchObject({ status: "done", resumed: true });
    // Resumed after the last add index read, not from the start.
    expect(offsets[0]).toBe(offset);
    const found = (await db().select().from(reconMismatches).where(eq(reconMismatches.source, "lightning"))).filter(
      (m) => m.merchantId === merchant.id,
    );
    expect(found.map((m) => m.ref).sort()).toEqual(paid.map((o) => o.paymentHash).sort());
    expect(await balanceMatchesLedger(merchant.id)).toBe(500 + 600 + 700);
  });
});

describe("daily reconciliation: chain transfers to our deposit addresses and from the hot wallet", () => {
  let anvil: Anvil;
  let usdt: `0x${string}`;
  let rates: ProviderServer;
  let restore: () => void;
  let hotWallet: Account;
  const payer = account(3);
  const payee = randomAddress();

  beforeAll(async () => {
    anvil = await startAnvil();
    usdt = await anvil.deployToken(6, "USDT");
    rates = await startProviderServer();
    process.env.RATES_URL = `${rates.url}/api/v3`;
    // Live mode, as every source here: anvil's development chain id must be allowed.
    const chain = await useLocalChain(
      anvil,
      ["polygon"],
      { polygon: { USDT: { address: usdt, decimals: 6 } } },
      { ALLOW_TEST_CHAINS: "true" },
    );
    restore = chain.restore;
    hotWallet = chain.hotWallet;
    await anvil.mint(usdt, payer.address, 10n ** 15n);
  });

  afterAll(async () => {
    restore?.();
    delete process.env.RATES_URL;
    await anvil?.stop();
    await rates?.close();
    resetEnvForTests();
  });

  async function deposit(apiKey: string, value: number) {
    const res = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value, network: "polygon", asset: "USDT" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.order as { id: string; address: `0x${string}` };
  }
  const confirmed = async () => {
    await anvil.mine(CONFIRMATIONS - 1);
    await watchDeposits("polygon");
  };

  it("a day of transfers: one the watcher never recorded, one whose block was reorganised away after we recorded it, one recorded for another amount, one the hot wallet's key made without us; judged only once the day's blocks are confirmed", async () => {
    const day = saoPauloDay();
    const { merchant, apiKey } = await liveMerchant(100_000);

    // missing_there: recorded with its confirmations, then a reorg deeper than them took its block away.
    const reorged = await deposit(apiKey, 27); // 5 USDT at 5.40
    const snapshot = await anvil.test.snapshot();
    const gone = await anvil.transfer(usdt, payer, reorged.address, 5_000_000n);
    await confirmed();
    expect(await db().select().from(chainTransfers).where(eq(chainTransfers.txHash, gone.hash))).toHaveLength(1);
    await anvil.test.revert({ id: snapshot });
    await anvil.mine(CONFIRMATIONS + 2);
    // The cursor belonged to the replaced blocks: read again from the new chain.
    await db().delete(chainCursors).where(eq(chainCursors.network, "polygon"));

    // Matched: sent, confirmed, recorded by the watcher.
    const fine = await deposit(apiKey, 54);
    const sent = await anvil.transfer(usdt, payer, fine.address, 10_000_000n);
    await confirmed();

    // amount_differs: our record of a transfer no longer says what the chain does.
    const altered = await deposit(apiKey, 10.8);
    const changed = await anvil.transfer(usdt, payer, altered.address, 2_000_000n);
    await confirmed();
    await db().update(chainTransfers).set({ amount: "2.5" }).where(eq(chainTransfers.txHash, changed.hash));

    // missing_here: sent to one of our addresses, confirmed, never read by the watcher.
    const unseen = await anvil.transfer(usdt, payer, fine.address, 1_000_000n);
    await anvil.mine(CONFIRMATIONS);

    // From the hot wallet: a withdrawal sent and confirmed (matched), one whose record no longer says
    // what was sent (amount_differs), and a transfer someone made with the hot wallet's key (missing_here).
    await anvil.mint(usdt, hotWallet.address, 10n ** 12n);
    const withdrawn = async (value: number) => {
      const res = await api("POST", "/api/v1/onchain/withdraw/initiate", {
        apiKey,
        body: { network: "polygon", toAddress: payee, value, token: "USDT" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await anvil.mine(CONFIRMATIONS);
      expect(await processWithdrawal(res.body.id)).toBe(true);
      return res.body.transactionHash as string;
    };
    const paidOut = await withdrawn(54);
    const misrecorded = await withdrawn(27);
    await db().update(chainTxs).set({ amount: "4" }).where(eq(chainTxs.minedHash, misrecorded));
    const outside = await anvil.transfer(usdt, hotWallet, payee, 3_000_000n);
    await anvil.mine(CONFIRMATIONS);

    // Today is not over: its last blocks are still to come.
    await expect(reconcile({ day, only: "chain", again: true })).rejects.toThrow(/confirmations/);
    // The day ends (blocks after it, with their confirmations).
    const { to } = dayWindow(day);
    await anvil.test.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(to.getTime() / 1000) + 3600 + 60) });
    await anvil.mine(CONFIRMATIONS + 1);

    const before = await balanceMatchesLedger(merchant.id);
    expect(await reconcile({ day, only: "chain" })).toMatchObject([
      { source: "chain", status: "done", resumed: false },
    ]);
    // Reconciliation reports; it moves no money.
    expect(await balanceMatchesLedger(merchant.id)).toBe(before);
    const ref = (hash: string, logIndex = 0) => `in:polygon:${hash.toLowerCase()}:${logIndex}`;
    const mine = async () =>
      (await db().select().from(reconMismatches).where(eq(reconMismatches.source, "chain"))).filter(
        (m) =>
          m.merchantId === merchant.id ||
          m.ref === ref(unseen.hash) ||
          m.ref === `out:polygon:${outside.hash.toLowerCase()}`,
      );
    const found = await mine();
    expect(found.map((m) => `${m.kind} ${m.ref}`).sort()).toEqual(
      [
        `missing_there ${ref(gone.hash)}`,
        `amount_differs ${ref(changed.hash)}`,
        `missing_here ${ref(unseen.hash)}`,
        `amount_differs out:polygon:${misrecorded.toLowerCase()}`,
        `missing_here out:polygon:${outside.hash.toLowerCase()}`,
      ].sort(),
    );
    expect(found.some((m) => m.ref.includes(paidOut.toLowerCase()))).toBe(false);
    const byRef = Object.fromEntries(found.map((m) => [m.ref, m]));
    expect(byRef[ref(changed.hash)].detail).toBe("we have 2.500000000000000000, the provider 2");
    expect(byRef[ref(unseen.hash)].detail).toBe("the provider has 1 (CONFIRMED); we have no record of it");
    expect(byRef[`out:polygon:${misrecorded.toLowerCase()}`].detail).toMatch(/^we have 4\.0+, the provider 4\.\d+$/);
    expect(byRef[`out:polygon:${outside.hash.toLowerCase()}`]).toMatchObject({
      merchantId: null,
      detail: "the provider has 3 (CONFIRMED); we have no record of it",
    });
    expect(found.some((m) => m.ref === ref(sent.hash))).toBe(false);

    await reconcile({ day, only: "chain", again: true });
    expect(await mine()).toHaveLength(5);
    // Read again three blocks a page: many pages, the same transfers, nothing reported twice.
    process.env.CHAIN_LOG_BLOCK_RANGE = "3";
    resetEnvForTests();
    try {
      expect(await reconcile({ day, only: "chain", again: true })).toMatchObject([{ status: "done" }]);
    } finally {
      delete process.env.CHAIN_LOG_BLOCK_RANGE;
      resetEnvForTests();
    }
    // Still true disagreements, each once: none is marked cleared.
    expect(await mine()).toHaveLength(5);
    expect((await mine()).filter((m) => m.clearedAt !== null)).toEqual([]);
  });
});
