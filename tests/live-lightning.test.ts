import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { apiKeys, events, orderReceipts, orders } from "@/db/schema";
import { generateApiKey } from "@/lib/api-auth/keys";
import { dispatchApi } from "@/lib/api/serve";
import { resetEnvForTests } from "@/lib/env";
import { balanceOf as shownBalanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { reconcileLightning } from "@/lib/lightning/completion";
import { runSweep } from "@/lib/worker";
import { OPENNODE_KEY, startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { api, seedMerchant } from "./helpers";

// Live Lightning orders through OpenNode complete by themselves (issue 14): the charge callback,
// verified and read back, or the poll alone; a payment made in time completes an order already
// cancelled, one made after its expiry is kept as unapplied funds.

let provider: ProviderServer;
let server: http.Server;
let callbackUrl: string;
const saved = { ...process.env };

beforeAll(async () => {
  provider = await startProviderServer();
  server = http.createServer((req, res) => void dispatchApi(req, res, "http://127.0.0.1"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/providers/opennode/webhook`;
  Object.assign(process.env, {
    PAYMENTS_MODE: "live",
    AUTH_SECRET: "a".repeat(40),
    PUBLIC_BASE_URL: "https://pay.example.com",
    DEPOSIT_XPUB: "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
    RATES_URL: `${provider.url}/api/v3`,
    LIGHTNING_API_URL: provider.url,
    LIGHTNING_API_KEY: OPENNODE_KEY,
  });
  resetEnvForTests();
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await provider.close();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

async function liveMerchant() {
  const { merchant } = await seedMerchant();
  const key = generateApiKey("live");
  await db().insert(apiKeys).values({ merchantId: merchant.id, name: "live", prefix: key.prefix, keyHash: key.hash, mode: "live" });
  return { merchant, apiKey: key.key };
}

/** A live Lightning order; its charge's callback reaches this test's server, as the public URL would route it. */
async function lightningOrder(apiKey: string, value = 10) {
  const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
  const charge = provider.charges.get(order.providerRef!)!;
  expect(charge.callback_url).toBe("https://pay.example.com/api/v1/providers/opennode/webhook");
  charge.callback_url = callbackUrl;
  return order;
}

const row = async (id: string) => (await db().select().from(orders).where(eq(orders.id, id)))[0];

async function balance(merchantId: string) {
  const shown = await shownBalanceOf(db(), merchantId);
  expect(shown).toBe(await ledgerSum(db(), merchantId));
  return shown;
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
    expect(await balance(merchant.id)).toBe(1000);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt).toMatchObject({ provider: "opennode", paymentRef: order.paymentHash, applied: true, source: "notification" });
  });

  it("a callback that does not verify is 401 and reads nothing; one that verifies for an unpaid charge changes nothing", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 11);
    const reads = () => provider.requests.filter((r) => r.method === "GET" && r.path.startsWith(`/v1/charge/${order.providerRef}`)).length;
    const before = reads();
    expect(await provider.postCallback(order.providerRef!, { key: "not-the-api-key", status: "paid" })).toBe(401);
    expect(reads()).toBe(before);
    // Signed right (the signature covers only the id), claiming "paid": the read says unpaid.
    expect(await provider.postCallback(order.providerRef!, { status: "paid" })).toBe(200);
    expect(reads()).toBe(before + 1);
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await balance(merchant.id)).toBe(0);
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
    expect(await balance(merchant.id)).toBe(1100);
    expect(await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id))).toHaveLength(1);
  });

  it("with the callback lost, the poll completes the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const order = await lightningOrder(apiKey, 12);
    await provider.payCharge(order.providerRef!, { notify: false });
    expect((await row(order.id)).status).toBe("PENDING");
    const start = performance.now();
    const pass = await reconcileLightning();
    console.log(`OpenNode poll pass: ${pass.read} invoices read, ${pass.paid} paid, ${Math.round(performance.now() - start)} ms`);
    expect((await row(order.id)).status).toBe("COMPLETED");
    expect(await balance(merchant.id)).toBe(1200);
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
    expect(await balance(merchant.id)).toBe(1300);
    // Polled again: nothing more.
    await reconcileLightning();
    expect(await balance(merchant.id)).toBe(1300);
  });
});
