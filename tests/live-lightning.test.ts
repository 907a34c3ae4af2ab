import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { events, orderReceipts, orders } from "@/db/schema";
import { dispatchApi } from "@/lib/api/serve";
import { resetEnvForTests } from "@/lib/env";
import { reconcileLightning } from "@/lib/lightning/reconcile";
import { runSweep } from "@/lib/worker";
import { OPENNODE_KEY, startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { api } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";

// Live Lightning orders through OpenNode complete by themselves (docs/providers.md, "Lightning
// (OpenNode)"): the charge callback, verified and read back, or the poll alone; a payment made in time
// completes an order already cancelled, one made after its expiry is kept as unapplied funds. Paid on
// chain, a charge is `processing` until it confirms (the order waits for it), or stays `underpaid`
// (never credited, kept as unapplied funds). The fake OpenNode (fixtures/opennode.ts) answers as its
// documents and SDK say.

let provider: ProviderServer;
let server: http.Server;
let callbackUrl: string;
const savedEnv = saveEnv();

beforeAll(async () => {
  provider = await startProviderServer();
  server = http.createServer((req, res) => void dispatchApi(req, res, "http://127.0.0.1"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/providers/opennode/webhook`;
  Object.assign(process.env, {
    PAYMENTS_MODE: "live",
    AUTH_SECRET: "a".repeat(40),
    PUBLIC_BASE_URL: "https://pay.example.com",
    DEPOSIT_XPUB:
      "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
    RATES_URL: `${provider.url}/api/v3`,
    LIGHTNING_API_URL: provider.url,
    LIGHTNING_API_KEY: OPENNODE_KEY,
  });
  resetEnvForTests();
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await provider.close();
  savedEnv.restore();
});

/** A live Lightning order; its charge's callback reaches this test's server, as the public URL would route it. */
async function lightningOrder(apiKey: string, value = 10) {
  const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
  const charge = provider.charges.get(order.providerRef!)!;
  expect(charge.callbackUrl).toBe("https://pay.example.com/api/v1/providers/opennode/webhook");
  // OpenNode's dashboard and callbacks name our order by its payment link id.
  expect(charge.orderId).toBe(order.paymentLinkId);
  charge.callbackUrl = callbackUrl;
  return order;
}

const row = async (id: string) => (await db().select().from(orders).where(eq(orders.id, id)))[0];
const receipts = (orderId: string) => db().select().from(orderReceipts).where(eq(orderReceipts.orderId, orderId));
const eventsOf = (orderId: string, type: string) =>
  db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, orderId), eq(events.type, type)))
    .orderBy(asc(events.seq));

/** The order is due: its expiry (as stored) is behind us, as the sweep will find it. */
async function expire(order: { id: string }): Promise<Date> {
  const [due] = await db()
    .update(orders)
    .set({ expiresAt: new Date(Math.floor(Date.now() / 1000) * 1000 - 5000) })
    .where(eq(orders.id, order.id))
    .returning();
  return due.expiresAt!;
}

describe("live Lightning through OpenNode", () => {
  it("the payer pays → OpenNode's callback, verified and read back, completes the order with the charge's settlement time, once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 10);
    const settledAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const start = performance.now();
    expect(await provider.payCharge(order.providerRef!, { at: settledAt, duplicate: true })).toEqual([200, 200]);
    console.log(`OpenNode callback → COMPLETED: ${Math.round(performance.now() - start)} ms (two callbacks)`);
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: settledAt });
    expect(await balanceMatchesLedger(merchant.id)).toBe(1000);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt).toMatchObject({
      provider: "opennode",
      paymentRef: order.paymentHash,
      applied: true,
      source: "notification",
    });
  });

  it("a callback that does not verify is 401 and reads nothing; one that verifies for an unpaid charge changes nothing", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 11);
    const reads = () =>
      provider.requests.filter((r) => r.method === "GET" && r.path === `/v2/charges/${order.providerRef}`).length;
    const before = reads();
    expect(await provider.postCallback(order.providerRef!, { key: "not-the-api-key", status: "paid" })).toBe(401);
    expect(reads()).toBe(before);
    // Signed right (the signature covers only the id), claiming "paid": the read says unpaid.
    expect(await provider.postCallback(order.providerRef!, { status: "paid" })).toBe(200);
    expect(reads()).toBe(before + 1);
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("our server restarts while the charge is paid: the poll after the restart completes it, and a late callback changes nothing", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 11);
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
    const settledAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    // The callback finds nothing listening (no answer).
    expect(await provider.payCharge(order.providerRef!, { at: settledAt })).toEqual([0]);
    expect((await row(order.id)).status).toBe("PENDING");
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    await reconcileLightning();
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: settledAt });
    expect(await provider.postCallback(order.providerRef!)).toBe(200);
    expect(await provider.postCallback(order.providerRef!)).toBe(200);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1100);
    expect(await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id))).toHaveLength(1);
  });

  it("with the callback lost, the poll completes the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 12);
    await provider.payCharge(order.providerRef!, { notify: false });
    expect((await row(order.id)).status).toBe("PENDING");
    const start = performance.now();
    const pass = await reconcileLightning();
    console.log(
      `OpenNode poll pass: ${pass.read} invoices read, ${pass.paid} paid, ${Math.round(performance.now() - start)} ms`,
    );
    expect((await row(order.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(1200);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt.source).toBe("poll");
  });

  it("settled at 899 s, reported at 901 s: the order the sweep cancelled completes; settled after its expiry: kept as unapplied funds", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const inTime = await lightningOrder(apiKey, 13);
    const late = await lightningOrder(apiKey, 14);
    for (const o of [inTime, late]) {
      await db()
        .update(orders)
        .set({ expiresAt: new Date(Date.now() - 5000) })
        .where(eq(orders.id, o.id));
    }
    await runSweep();
    expect((await row(inTime.id)).status).toBe("CANCELLED");
    const expiry = (await row(inTime.id)).expiresAt!;
    await provider.payCharge(inTime.providerRef!, { at: new Date(expiry.getTime() - 1000), notify: false });
    await provider.payCharge(late.providerRef!, { at: new Date(Date.now()), notify: false });
    await reconcileLightning();
    expect((await row(inTime.id)).status).toBe("COMPLETED");
    expect((await row(late.id)).status).toBe("CANCELLED");
    const [unapplied] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, late.id));
    expect(unapplied).toMatchObject({ applied: false, unappliedReason: "after_expiry" });
    const [event] = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, late.id), eq(events.type, "order.funds_unapplied")));
    expect(event.data).toMatchObject({ reason: "after_expiry", unappliedValue: 14 });
    expect(await balanceMatchesLedger(merchant.id)).toBe(1300);
    // Polled again: nothing more.
    await reconcileLightning();
    expect(await balanceMatchesLedger(merchant.id)).toBe(1300);
  });

  it("EXPIRY_LIGHTNING_SECONDS below OpenNode's 10 minutes: the charge asks for 10, the order expires at ours, and a payment after it is kept as unapplied funds", async () => {
    process.env.EXPIRY_LIGHTNING_SECONDS = "120";
    resetEnvForTests();
    try {
      const { merchant, apiKey } = await liveMerchant();
      const order = await lightningOrder(apiKey, 15);
      const charge = provider.charges.get(order.providerRef!)!;
      expect(charge.ttl).toBe(10);
      expect(order.expiresAt!.getTime() - order.createdAt.getTime()).toBeLessThanOrEqual(121_000);
      expect(order.expiresAt!.getTime()).toBeLessThan(charge.lightningExpiresAt * 1000);
      // Paid at 5 minutes: OpenNode's invoice was still valid, our order was not.
      const paidAt = new Date(charge.createdAt * 1000 + 300_000);
      expect(await provider.payCharge(order.providerRef!, { at: paidAt })).toEqual([200]);
      expect((await receipts(order.id))[0]).toMatchObject({ applied: false, unappliedReason: "after_expiry", paidAt });
      await expire(order);
      await runSweep();
      expect((await row(order.id)).status).toBe("CANCELLED");
      expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    } finally {
      delete process.env.EXPIRY_LIGHTNING_SECONDS;
      resetEnvForTests();
    }
  });

  it("on chain: seen before the expiry, confirmed after it → never cancelled under it; completes with the time OpenNode saw it, once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 16);
    const expiresAt = await expire(order);
    const seen = new Date(expiresAt.getTime() - 60_000);
    // OpenNode posts processing (seen in the mempool): the payment is under way, nothing to apply yet.
    expect(await provider.opennode.seeOnchain(order.providerRef!, { at: seen })).toEqual([200]);
    expect((await row(order.id)).status).toBe("PENDING");
    await runSweep();
    await reconcileLightning();
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // Confirmed on chain after the order's expiry: paid.
    expect(await provider.opennode.confirmOnchain(order.providerRef!)).toEqual([200]);
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: seen });
    const changes = await eventsOf(order.id, "order.status_changed");
    expect(changes.map((e) => (e.data as { status: string; previousStatus: string }).previousStatus)).toEqual([
      "PENDING",
    ]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1600);
    await reconcileLightning();
    await provider.postCallback(order.providerRef!);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1600);
    expect(await receipts(order.id)).toEqual([
      expect.objectContaining({ applied: true, paymentRef: order.paymentHash, paidAt: seen }),
    ]);
  });

  it("on chain, seen in time but reported only after the sweep cancelled the order: CANCELLED → COMPLETED", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 17);
    const expiresAt = await expire(order);
    await runSweep();
    expect((await row(order.id)).status).toBe("CANCELLED");
    await provider.opennode.seeOnchain(order.providerRef!, {
      at: new Date(expiresAt.getTime() - 30_000),
      notify: false,
    });
    await reconcileLightning();
    expect((await row(order.id)).status).toBe("CANCELLED");
    await provider.opennode.confirmOnchain(order.providerRef!, { notify: false });
    await reconcileLightning();
    expect((await row(order.id)).status).toBe("COMPLETED");
    const changes = await eventsOf(order.id, "order.status_changed");
    expect(changes.map((e) => (e.data as { status: string; previousStatus: string }).previousStatus)).toEqual([
      "PENDING",
      "CANCELLED",
    ]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1700);
  });

  it("underpaid: nothing is credited, the order is CANCELLED at its expiry, and once OpenNode stops waiting for the rest what arrived is kept as unapplied funds, once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 18);
    const half = Math.floor(order.satoshis! / 2);
    const seen = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
    expect(await provider.opennode.seeOnchain(order.providerRef!, { amount: half, at: seen })).toEqual([200]);
    // The payer may still send the rest: nothing is decided.
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await receipts(order.id)).toHaveLength(0);
    await expire(order);
    await runSweep();
    expect((await row(order.id)).status).toBe("CANCELLED");
    await reconcileLightning();
    expect(await receipts(order.id)).toHaveLength(0);
    // OpenNode's charge expires: the rest can no longer come.
    await provider.opennode.expireCharge(order.providerRef!);
    await reconcileLightning();
    expect(await receipts(order.id)).toEqual([
      expect.objectContaining({
        applied: false,
        unappliedReason: "wrong_value",
        paymentRef: order.paymentHash,
        paidAt: seen,
        source: "poll",
      }),
    ]);
    const [event] = await eventsOf(order.id, "order.funds_unapplied");
    expect(event.data).toMatchObject({
      reason: "wrong_value",
      unappliedSatoshis: half,
      missingSatoshis: order.satoshis! - half,
      // What arrived, valued at the order's own rate, rounded down to the centavo.
      unappliedValue: Math.floor((1800 * half) / order.satoshis!) / 100,
      paidAt: seen.toISOString(),
    });
    await reconcileLightning();
    await provider.postCallback(order.providerRef!);
    expect(await receipts(order.id)).toHaveLength(1);
    expect(await eventsOf(order.id, "order.funds_unapplied")).toHaveLength(1);
    expect((await row(order.id)).status).toBe("CANCELLED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("underpaid, then the rest sent before the expiry: completes once, with no unapplied funds; an underpayment the payer took back leaves nothing on record", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 19);
    const first = new Date(Math.floor(Date.now() / 1000) * 1000 - 20_000);
    const rest = new Date(first.getTime() + 10_000);
    await provider.opennode.seeOnchain(order.providerRef!, { amount: 1000, at: first });
    await provider.opennode.seeOnchain(order.providerRef!, { at: rest });
    await provider.opennode.confirmOnchain(order.providerRef!);
    // The payment was whole only when its last part was seen.
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: rest });
    expect(await receipts(order.id)).toEqual([expect.objectContaining({ applied: true })]);

    const taken = await lightningOrder(apiKey, 20);
    await provider.opennode.seeOnchain(taken.providerRef!, { amount: 1000 });
    expect(await provider.opennode.refundUnderpayment(taken.providerRef!)).toEqual([200]);
    await expire(taken);
    await runSweep();
    await provider.opennode.expireCharge(taken.providerRef!);
    await reconcileLightning();
    expect((await row(taken.id)).status).toBe("CANCELLED");
    expect(await receipts(taken.id)).toHaveLength(0);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1900);
  });

  it("expired: OpenNode's callback changes nothing by itself; the sweep cancels the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 21);
    expect(await provider.opennode.expireCharge(order.providerRef!)).toEqual([200]);
    expect((await row(order.id)).status).toBe("PENDING");
    await expire(order);
    await runSweep();
    expect((await row(order.id)).status).toBe("CANCELLED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("a charge whose order_id names another order is never applied to this one", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 22);
    provider.charges.get(order.providerRef!)!.orderId = "someoneElsesLinkId0000";
    expect(await provider.payCharge(order.providerRef!)).toEqual([200]);
    await reconcileLightning();
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await receipts(order.id)).toHaveLength(0);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });
});
