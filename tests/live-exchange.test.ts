import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { orderReceipts, orderRefunds, orders } from "@/db/schema";
import { dispatchApi } from "@/lib/api/serve";
import { resetEnvForTests } from "@/lib/env";
import { reconcileExchange } from "@/lib/exchange-wallet/reconcile";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { startJobs, stopJobs } from "@/lib/jobs/queue";
import { binancePay, binancePayCertificates } from "@/lib/providers/exchange/binance-pay";
import { advanceRefund, refundQueue } from "@/lib/refunds/machine";
import { runSweep, startWorker, stopWorker } from "@/lib/worker";
import { PATHS, startBinancePay, type BinancePayServer } from "./fixtures/binance-pay/server";
import { api, specOf } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";

// Live exchange-wallet orders through Binance Pay (docs/providers.md#exchange-wallet-binance-pay), against a test server that checks our
// request signatures and signs its notifications with an RSA key it publishes.

let binance: BinancePayServer;
let server: http.Server;
let webhookUrl: string;
const savedEnv = saveEnv();

beforeAll(async () => {
  binance = await startBinancePay({ quiet: true, autoExpire: false });
  server = http.createServer((req, res) => void dispatchApi(req, res, "http://127.0.0.1"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/providers/binance-pay/webhook`;
  Object.assign(process.env, {
    PAYMENTS_MODE: "live",
    AUTH_SECRET: "a".repeat(40),
    PUBLIC_BASE_URL: "https://pay.example.com",
    DEPOSIT_XPUB:
      "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
    BINANCE_PAY_URL: binance.url,
    BINANCE_PAY_API_KEY: binance.apiKey,
    BINANCE_PAY_SECRET_KEY: binance.secretKey,
    PROVIDER_POLL_SECONDS: "1",
  });
  resetEnvForTests();
});

afterEach(() => {
  expect(binance.violations).toEqual([]);
  Object.assign(binance.faults, {
    dropNotifications: false,
    duplicateNotifications: false,
    notificationDelayMs: 0,
    failNext: [],
    delayNext: [],
    loseAnswerNext: [],
    refundInfoAsString: false,
  });
});

afterAll(async () => {
  await stopWorker();
  await new Promise<void>((r) => server.close(() => r()));
  await binance.stop();
  savedEnv.restore();
});

/** A live exchange-wallet order; Binance's notifications for it reach this test's server, as the public URL would route them. */
async function exchangeOrder(apiKey: string, value = 25.9) {
  const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
  const remote = binance.orders.get(order.paymentLinkId)!;
  expect(remote.webhookUrl).toBe("https://pay.example.com/api/v1/providers/binance-pay/webhook");
  remote.webhookUrl = webhookUrl;
  return { res, order, remote };
}

const row = async (id: string) => (await db().select().from(orders).where(eq(orders.id, id)))[0];

/** As if the certificate cache's refetch interval had passed since its last fetch (it may ask Binance again). */
function certificateIntervalPasses() {
  const cache = binancePayCertificates();
  const before = cache.now;
  const skip = cache.refetchAfterMs + 1;
  cache.now = () => before() + skip;
}

const certificateCalls = () => binance.requests.filter((r) => r.path === PATHS.certificates).length;

/** A notification signed by nobody Binance knows, under a serial Binance never issued. */
function forgedPost(address: string) {
  const body = JSON.stringify({ bizType: "PAY", bizIdStr: "1", bizStatus: "PAY_SUCCESS", data: "{}" });
  return fetch(webhookUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [CLIENT_ADDRESS_HEADER]: address,
      "BinancePay-Timestamp": String(Date.now()),
      "BinancePay-Nonce": randomBytes(16).toString("hex"),
      "BinancePay-Certificate-SN": randomBytes(16).toString("hex"),
      "BinancePay-Signature": randomBytes(256).toString("base64"),
    },
    body,
  });
}

describe("live exchange-wallet orders through Binance Pay", () => {
  it("create: a signed v3 order for the BRL value with our merchantTradeNo and expiry; qrCodeLink is Binance's, the payer page offers its checkout and app link", async () => {
    const { apiKey } = await liveMerchant();
    const { res, order, remote } = await exchangeOrder(apiKey, 25.9);
    expect(remote).toMatchObject({
      merchantTradeNo: order.paymentLinkId,
      fiatCurrency: "BRL",
      fiatAmount: "25.90",
      status: "INITIAL",
      expireTime: order.expiresAt!.getTime(),
    });
    expect(order.providerRef).toBe(remote.prepayId);
    expect(res.body.order.qrCodeLink).toBe(remote.qrcodeLink);
    const png = await fetch(remote.qrcodeLink);
    expect(png.headers.get("content-type")).toBe("image/png");
    const page = await api("GET", `/api/v1/public/payments/${order.paymentLinkId}`);
    expect(page.body.payment.payment).toEqual({
      qrCodeLink: remote.qrcodeLink,
      qrContent: remote.qrContent,
      checkoutUrl: remote.checkoutUrl,
      deeplink: remote.deeplink,
    });
  });

  it("the payer pays → the signed notification, verified and read back, completes the order once with Binance's payment time", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 10);
    binance.faults.duplicateNotifications = true;
    const start = performance.now();
    const paid = await binance.pay(order.paymentLinkId);
    await binance.idle();
    console.log(
      `Binance Pay notification → COMPLETED: ${Math.round(performance.now() - start)} ms (two notifications)`,
    );
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: new Date(paid.transactTime!) });
    expect(await balanceMatchesLedger(merchant.id)).toBe(1000);
    const acks = binance.notifications.filter((n) => n.merchantTradeNo === order.paymentLinkId);
    expect(acks.length).toBeGreaterThanOrEqual(2);
    expect(acks.every((n) => n.acknowledged)).toBe(true);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt).toMatchObject({
      provider: "binance-pay",
      paymentRef: paid.transactionId,
      source: "notification",
      applied: true,
    });
  });

  it("forged notifications (another key, unsigned, a tampered body) are refused and change nothing; a rotated certificate is fetched again", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 11);
    for (const how of ["wrong-key", "unsigned", "tampered-body"] as const) {
      expect(await binance.forgeNotification(order.paymentLinkId, { url: webhookUrl, how })).toBe(401);
    }
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // Binance starts signing with a new key; its serial is fetched once the cache may ask again.
    binance.rotateCertificate();
    certificateIntervalPasses();
    await binance.pay(order.paymentLinkId);
    await binance.idle();
    expect((await row(order.id)).status).toBe("COMPLETED");
  });

  it("our server restarts while the payment is notified: the poll after the restart completes it, and the late retries change nothing", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 10);
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
    // Every attempt finds nothing listening.
    const paid = await binance.pay(order.paymentLinkId);
    await binance.idle();
    expect(
      binance.notifications.filter((n) => n.merchantTradeNo === order.paymentLinkId).every((n) => !n.acknowledged),
    ).toBe(true);
    expect((await row(order.id)).status).toBe("PENDING");
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    // The first poll of the restarted process.
    await reconcileExchange();
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: new Date(paid.transactTime!) });
    // Binance's retries arrive after the restart, twice.
    binance.faults.duplicateNotifications = true;
    expect(await binance.notify(order.paymentLinkId)).toBe(200);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1000);
    expect(await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id))).toHaveLength(1);
  });

  it("with the notification lost, the poll completes the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 12);
    await binance.pay(order.paymentLinkId, { notify: false });
    const start = performance.now();
    const pass = await reconcileExchange();
    console.log(
      `Binance Pay poll pass: ${pass.read} orders read, ${pass.paid} paid, ${Math.round(performance.now() - start)} ms`,
    );
    expect((await row(order.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(1200);
  });

  it("expiry closes the order at Binance before cancelling it; one paid but not yet reported stays open until the poll reads it", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order: unpaid } = await exchangeOrder(apiKey, 13);
    const { order: paid } = await exchangeOrder(apiKey, 14);
    const payment = await binance.pay(paid.paymentLinkId, { notify: false });
    await db()
      .update(orders)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(orders.id, unpaid.id));
    // Paid a moment before its expiry, which has passed since.
    await new Promise((r) => setTimeout(r, 5));
    await db()
      .update(orders)
      .set({ expiresAt: new Date(payment.transactTime! + 1) })
      .where(eq(orders.id, paid.id));
    await runSweep();
    expect(binance.orders.get(unpaid.paymentLinkId)!.status).toBe("CANCELED");
    expect((await row(unpaid.id)).status).toBe("CANCELLED");
    expect((await row(paid.id)).status).toBe("PENDING");
    await reconcileExchange();
    expect((await row(paid.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(1400);
  });

  it("Binance refusing the order (an amount it will not take) is the create endpoint's 400 naming its answer", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.failNext = [
      {
        path: /\/v3\/order/,
        status: 400,
        count: 1,
        code: "400102",
        errorMessage: "fiatCurrency BRL is not supported.",
      },
    ];
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 5 } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      success: false,
      error: "Binance Pay refused to create the order: 400102 fiatCurrency BRL is not supported.",
    });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });

  it("Binance down: create answers the endpoint's 500 after retries, and nothing is written", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.failNext = [{ path: /\/v3\/order/, status: 503, count: 3 }];
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 5 } });
    expect(res.status).toBe(500);
    expect(specOf(res.body)).toEqual({
      success: false,
      error: expect.stringMatching(/^Binance Pay unavailable \(create the order\): HTTP 503/),
    });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });
});

describe("refunds of Binance Pay orders", () => {
  async function paidOrder(value: number) {
    const { merchant, apiKey } = await liveMerchant();
    const { order, remote } = await exchangeOrder(apiKey, value);
    await binance.pay(order.paymentLinkId, { notify: false });
    await reconcileExchange();
    expect((await row(order.id)).status).toBe("COMPLETED");
    return { merchant, apiKey, order, remote };
  }

  it("a full refund refunds the whole order amount at Binance with our refundRequestId → COMPLETED, the order REFUND", async () => {
    await stopWorker();
    const { merchant, apiKey, order, remote } = await paidOrder(20);
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, {
      apiKey,
      body: { reason: "Produto devolvido" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.refund.status).toBe("COMPLETED");
    const refund = binance.refunds.get(res.body.refund.id.replace(/-/g, ""))!;
    expect(refund).toMatchObject({ prepayId: remote.prepayId, status: "REFUNDED" });
    expect(refund.refundAmount).toBe(remote.orderAmount);
    expect((await row(order.id)).status).toBe("REFUND");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("a partial refund is the same share of the order's USDT amount", async () => {
    const { apiKey, order, remote } = await paidOrder(30);
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: { value: 10 } });
    expect(res.body.refund.status).toBe("COMPLETED");
    const refund = binance.refunds.get(res.body.refund.id.replace(/-/g, ""))!;
    // R$ 10 of R$ 30 at BRL 5.00 per USDT: 2 of 6 USDT.
    expect(remote.orderAmount).toBe("6.00000000");
    expect(refund.refundAmount).toBe("2.00000000");
    expect((await row(order.id)).status).toBe("COMPLETED");
  });

  it("REFUND_REJECTED fails the refund and credits the merchant back; REFUNDING stays PENDING until Binance's refund notification", async () => {
    const { merchant, apiKey, order } = await paidOrder(15);
    binance.faults.refundOutcome = () => "REFUND_REJECTED";
    const rejected = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: { value: 5 } });
    expect(rejected.body.refund.status).toBe("FAILED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(1500);

    await startWorker();
    binance.faults.refundOutcome = () => "REFUNDING";
    try {
      const pending = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
      expect(pending.body.refund.status).toBe("PENDING");
      const remote = binance.refunds.get(pending.body.refund.id.replace(/-/g, ""))!;
      remote.webhookUrl = webhookUrl;
      await binance.settleRefund(remote.refundRequestId, "REFUNDED");
      const until = Date.now() + 10_000;
      while ((await row(order.id)).status !== "REFUND" && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect((await row(order.id)).status).toBe("REFUND");
      expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    } finally {
      binance.faults.refundOutcome = () => "REFUNDED";
      await stopWorker();
    }
  });
});

describe("a Binance Pay refund whose answer was lost", () => {
  it("is read back by its refundRequestId; Binance refusing the repeat (the order already refunded) leaves it PENDING, never credited back; then COMPLETED once", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 12);
    await binance.pay(order.paymentLinkId, { notify: false });
    await reconcileExchange();
    // The refund is made at Binance; its answer never comes. Binance's refund query lags it, and the repeat
    // meets the order already refunded in full (Binance's 400204: the order's status does not allow a refund).
    binance.faults.loseAnswerNext = [{ path: /\/order\/refund$/, count: 1 }];
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.refund.status).toBe("PENDING");
    const refundId = res.body.refund.id as string;
    binance.faults.failNext = [
      { path: /\/order\/refund\/query$/, status: 200, count: 1, code: "400202" },
      {
        path: /\/order\/refund$/,
        status: 200,
        count: 1,
        code: "400204",
        errorMessage: "The order status does not allow a refund.",
      },
    ];
    expect(await advanceRefund(refundId)).toBe(false);
    const [pending] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
    expect(pending.status).toBe("PENDING");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    expect(await advanceRefund(refundId)).toBe(true);
    const [done] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
    expect(done.status).toBe("COMPLETED");
    expect((await row(order.id)).status).toBe("REFUND");
    expect([...binance.refunds.values()].filter((r) => r.refundRequestId === refundId.replace(/-/g, ""))).toHaveLength(
      1,
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });
});

describe("Binance Pay as its documents say it behaves", () => {
  /** Calendar-minute rate-limit windows: keep a test's requests inside one minute. */
  async function awayFromMinuteEdge() {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
  }

  it("a create whose answer was lost: the repeat's 400201 is our own order, which its query cannot show a payer, so it is closed at Binance and the create fails cleanly; nothing is written", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.loseAnswerNext = [{ path: /\/v3\/order$/, count: 1 }];
    const before = new Set(binance.orders.keys());
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 7 } });
    expect(res.status).toBe(500);
    expect(specOf(res.body)).toEqual({
      success: false,
      error: expect.stringMatching(/answer was lost.*400201.*closed at Binance.*create the order again/),
    });
    const made = [...binance.orders.values()].filter((o) => !before.has(o.merchantTradeNo));
    expect(made).toHaveLength(1);
    expect(made[0].status).toBe("CANCELED");
    // The repeat met 400201; the order was read by merchantTradeNo, then closed.
    const calls = binance.requests.slice(-4).map((r) => [r.path, r.status, r.code]);
    expect(calls).toEqual([
      [PATHS.create, 0, "000000"],
      [PATHS.create, 400, "400201"],
      [PATHS.query, 200, "000000"],
      [PATHS.close, 200, "000000"],
    ]);
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("a lost create whose order shows payment activity is kept as created (without Binance's links), and its payment completes it", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.loseAnswerNext = [{ path: /\/v3\/order$/, count: 1 }];
    binance.faults.failNext = [{ path: /order\/close$/, status: 400, count: 1, code: "400204" }];
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 8 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
    const remote = binance.orders.get(order.paymentLinkId)!;
    expect(order.providerRef).toBe(remote.prepayId);
    expect(remote.status).toBe("INITIAL");
    await binance.pay(order.paymentLinkId, { notify: false });
    await reconcileExchange();
    expect((await row(order.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(800);
  });

  it("400201 for an order Binance does not have is its refusal of the trade number: the create endpoint's 400 naming it, nothing closed", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.failNext = [{ path: /\/v3\/order$/, status: 400, count: 1, code: "400201" }];
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 5 } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      success: false,
      error: "Binance Pay refused to create the order: 400201 merchantTradeNo is invalid or duplicated.",
    });
    expect(binance.requests.at(-1)).toMatchObject({ path: PATHS.query, code: "400202" });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });

  it("a refund notification carries its refund in data.refundInfo (an object, or a JSON string): verified, it wakes that refund's job at once", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 16);
    await binance.pay(order.paymentLinkId, { notify: false });
    await reconcileExchange();
    binance.faults.refundOutcome = () => "REFUNDING";
    try {
      const refunds: { id: string; remote: string }[] = [];
      for (const value of [6, 5]) {
        const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: { value } });
        expect(res.body.refund.status, JSON.stringify(res.body)).toBe("PENDING");
        const remote = binance.refunds.get(res.body.refund.id.replace(/-/g, ""))!;
        remote.webhookUrl = webhookUrl;
        refunds.push({ id: res.body.refund.id, remote: remote.refundRequestId });
      }
      // A job system with no workers: what the notification enqueues stays there to be seen.
      const boss = await startJobs({ workers: [], recurring: [] });
      await boss.createQueue(refundQueue.name, refundQueue.options);
      const dueNow = async (id: string) =>
        (
          await db().execute<{ n: number }>(
            sql`select count(*)::int as n from pgboss.job where name = ${refundQueue.name} and data->>'id' = ${id} and start_after <= now() + interval '1 second'`,
          )
        )[0].n;
      for (const [i, { id, remote }] of refunds.entries()) {
        binance.faults.refundInfoAsString = i === 1;
        expect(await dueNow(id)).toBe(0);
        await binance.settleRefund(remote, "REFUNDED");
        const sent = binance.notifications.at(-1)!;
        expect(sent).toMatchObject({
          bizType: "PAY_REFUND",
          bizStatus: "REFUND_SUCCESS",
          status: 200,
          acknowledged: true,
        });
        const info = JSON.parse(JSON.parse(sent.rawBody).data).refundInfo;
        expect(typeof info).toBe(i === 1 ? "string" : "object");
        expect(await binancePay.verifyNotification!(new Headers(sent.headers), sent.rawBody)).toMatchObject({
          kind: "PAY_REFUND",
          refundRequestId: remote,
        });
        expect(await dueNow(id)).toBe(1);
      }
      await stopJobs();
      await startWorker();
      const refundStatuses = async () =>
        (
          await db().execute<{ status: string }>(sql`select status from order_refunds where order_id = ${order.id}`)
        ).map((r) => r.status);
      const until = Date.now() + 15_000;
      while ((await refundStatuses()).some((st) => st !== "COMPLETED") && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(await refundStatuses()).toEqual(["COMPLETED", "COMPLETED"]);
      expect(await balanceMatchesLedger(merchant.id)).toBe(500);
    } finally {
      binance.faults.refundOutcome = () => "REFUNDED";
      await stopJobs();
      await stopWorker();
    }
  });

  it("700 forged notifications under unknown certificate serials: refused, at the cost of at most one certificate fetch", async () => {
    certificateIntervalPasses();
    const before = certificateCalls();
    const statuses: number[] = [];
    for (let i = 0; i < 700; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) => forgedPost(`198.51.100.${1 + ((i + j) % 250)}`)),
      );
      statuses.push(...batch.map((r) => r.status));
    }
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect(certificateCalls() - before).toBeLessThanOrEqual(1);
  });

  it("Binance down while a new key must be fetched: 503 without Binance's text (so Binance retries), one fetch per interval; once up, its retry completes the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 9);
    binance.rotateCertificate();
    certificateIntervalPasses();
    binance.faults.failNext = [{ path: /certificates$/, status: 503, count: 3 }];
    const before = certificateCalls();
    await binance.pay(order.paymentLinkId);
    await binance.idle();
    const attempts = binance.notifications.filter((n) => n.merchantTradeNo === order.paymentLinkId);
    expect(attempts.length).toBe(7);
    expect(attempts.every((n) => n.status === 503 && !n.acknowledged)).toBe(true);
    // One fetch (three attempts of it), not one per notification.
    expect(certificateCalls() - before).toBe(3);
    const answer = await forgedPost("203.0.113.9");
    expect(answer.status).toBe(503);
    const text = await answer.text();
    expect(specOf(JSON.parse(text))).toEqual({
      message: "Temporarily unable to process the notification; retry later",
    });
    expect(text).not.toMatch(/HTTP|503|Binance Pay unavailable|certificates/);
    expect((await row(order.id)).status).toBe("PENDING");
    certificateIntervalPasses();
    expect(await binance.notify(order.paymentLinkId)).toBe(200);
    expect((await row(order.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(900);
  });

  it("a 429 from Binance is retried after its Retry-After (seconds or HTTP-date), and not at all when it asks for more than the maximum", async () => {
    const { apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 4);
    const read = () =>
      binancePay.readPayment!({ merchantTradeNo: order.paymentLinkId, providerRef: order.providerRef! });
    const queriesSince = (t: number) => binance.requests.filter((r) => r.path === PATHS.query && r.at >= t);

    // An HTTP-date has whole seconds: 2 s ahead is at least 1 s away.
    for (const retryAfter of [() => "1", () => new Date(Date.now() + 2_000).toUTCString()]) {
      binance.faults.failNext = [{ path: /order\/query$/, status: 429, count: 1, retryAfter: retryAfter() }];
      const t0 = Date.now();
      expect((await read()).status).toBe("pending");
      const q = queriesSince(t0);
      expect(q.map((r) => r.status)).toEqual([429, 200]);
      expect(q[1].at - q[0].at).toBeGreaterThanOrEqual(900);
    }

    binance.faults.failNext = [{ path: /order\/query$/, status: 429, count: 1, retryAfter: "120" }];
    const t0 = Date.now();
    await expect(read()).rejects.toThrow(/HTTP 429 \(Retry-After 120 s\)/);
    expect(queriesSince(t0).map((r) => r.status)).toEqual([429]);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("a flood from one address gets 429 past PROVIDER_CALLBACK_LIMIT_PER_MINUTE, with Retry-After, and costs no call to Binance; another address is unaffected", async () => {
    process.env.PROVIDER_CALLBACK_LIMIT_PER_MINUTE = "5";
    resetEnvForTests();
    try {
      await awayFromMinuteEdge();
      const flooder = `192.0.2.${1 + Math.floor(Math.random() * 250)}`;
      certificateIntervalPasses();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await forgedPost(flooder)).status);
      // Past the limit nothing is verified: even with the cache free to ask Binance again, nobody does.
      certificateIntervalPasses();
      const before = certificateCalls();
      const limited: Response[] = [];
      for (let i = 0; i < 25; i++) limited.push(await forgedPost(flooder));
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      expect(limited.map((r) => r.status)).toEqual(Array(25).fill(429));
      expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(specOf(await limited[0].json())).toEqual({
        message: expect.stringContaining("Rate limit exceeded: at most 5 requests per minute"),
      });
      expect(certificateCalls()).toBe(before);
      expect((await forgedPost(`203.0.113.${1 + Math.floor(Math.random() * 250)}`)).status).toBe(401);
    } finally {
      process.env.PROVIDER_CALLBACK_LIMIT_PER_MINUTE = "100000";
      resetEnvForTests();
    }
  });
});
