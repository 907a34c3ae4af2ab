import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { apiKeys, orderReceipts, orders } from "@/db/schema";
import { generateApiKey } from "@/lib/api-auth/keys";
import { dispatchApi } from "@/lib/api/serve";
import { resetEnvForTests } from "@/lib/env";
import { reconcileExchange } from "@/lib/exchange-wallet/completion";
import { balanceOf as shownBalanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { runSweep, startWorker, stopWorker } from "@/lib/worker";
import { startBinancePay, type BinancePayServer } from "./fixtures/binance-pay/server";
import { api, seedMerchant } from "./helpers";

// Live exchange-wallet orders through Binance Pay (issue 14), against a test server that checks our
// request signatures and signs its notifications with an RSA key it publishes.

let binance: BinancePayServer;
let server: http.Server;
let webhookUrl: string;
const saved = { ...process.env };

beforeAll(async () => {
  binance = await startBinancePay({ quiet: true, autoExpire: false });
  server = http.createServer((req, res) => void dispatchApi(req, res, "http://127.0.0.1"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/providers/binance-pay/webhook`;
  Object.assign(process.env, {
    PAYMENTS_MODE: "live",
    AUTH_SECRET: "a".repeat(40),
    PUBLIC_BASE_URL: "https://pay.example.com",
    DEPOSIT_XPUB: "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
    BINANCE_PAY_URL: binance.url,
    BINANCE_PAY_API_KEY: binance.apiKey,
    BINANCE_PAY_SECRET_KEY: binance.secretKey,
    PROVIDER_POLL_SECONDS: "1",
  });
  resetEnvForTests();
});

afterEach(() => {
  expect(binance.violations).toEqual([]);
  Object.assign(binance.faults, { dropNotifications: false, duplicateNotifications: false, notificationDelayMs: 0, failNext: [], delayNext: [] });
});

afterAll(async () => {
  await stopWorker();
  await new Promise<void>((r) => server.close(() => r()));
  await binance.stop();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

async function liveMerchant(balanceCentavos = 0) {
  const { merchant } = await seedMerchant({ balanceCentavos });
  const key = generateApiKey("live");
  await db().insert(apiKeys).values({ merchantId: merchant.id, name: "live", prefix: key.prefix, keyHash: key.hash, mode: "live" });
  return { merchant, apiKey: key.key };
}

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

async function balance(merchantId: string) {
  const shown = await shownBalanceOf(db(), merchantId);
  expect(shown).toBe(await ledgerSum(db(), merchantId));
  return shown;
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
    expect(page.body.payment.payment).toEqual({ qrCodeLink: remote.qrcodeLink, qrContent: remote.qrContent, checkoutUrl: remote.checkoutUrl, deeplink: remote.deeplink });
  });

  it("the payer pays → the signed notification, verified and read back, completes the order once with Binance's payment time", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 10);
    binance.faults.duplicateNotifications = true;
    const start = performance.now();
    const paid = await binance.pay(order.paymentLinkId);
    await binance.idle();
    console.log(`Binance Pay notification → COMPLETED: ${Math.round(performance.now() - start)} ms (two notifications)`);
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: new Date(paid.transactTime!) });
    expect(await balance(merchant.id)).toBe(1000);
    const acks = binance.notifications.filter((n) => n.merchantTradeNo === order.paymentLinkId);
    expect(acks.length).toBeGreaterThanOrEqual(2);
    expect(acks.every((n) => n.acknowledged)).toBe(true);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt).toMatchObject({ provider: "binance-pay", paymentRef: paid.transactionId, source: "notification", applied: true });
  });

  it("forged notifications (another key, unsigned, a tampered body) are refused and change nothing; a rotated certificate is fetched again", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 11);
    for (const how of ["wrong-key", "unsigned", "tampered-body"] as const) {
      expect(await binance.forgeNotification(order.paymentLinkId, { url: webhookUrl, how })).toBe(401);
    }
    expect((await row(order.id)).status).toBe("PENDING");
    expect(await balance(merchant.id)).toBe(0);
    binance.rotateCertificate();
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
    expect(binance.notifications.filter((n) => n.merchantTradeNo === order.paymentLinkId).every((n) => !n.acknowledged)).toBe(true);
    expect((await row(order.id)).status).toBe("PENDING");
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    // The first poll of the restarted process.
    await reconcileExchange();
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt: new Date(paid.transactTime!) });
    // Binance's retries arrive after the restart, twice.
    binance.faults.duplicateNotifications = true;
    expect(await binance.notify(order.paymentLinkId)).toBe(200);
    expect(await balance(merchant.id)).toBe(1000);
    expect(await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id))).toHaveLength(1);
  });

  it("with the notification lost, the poll completes the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await exchangeOrder(apiKey, 12);
    await binance.pay(order.paymentLinkId, { notify: false });
    const start = performance.now();
    const pass = await reconcileExchange();
    console.log(`Binance Pay poll pass: ${pass.read} orders read, ${pass.paid} paid, ${Math.round(performance.now() - start)} ms`);
    expect((await row(order.id)).status).toBe("COMPLETED");
    expect(await balance(merchant.id)).toBe(1200);
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
    expect(await balance(merchant.id)).toBe(1400);
  });

  it("Binance refusing the order (an amount it will not take) is the create endpoint's 400 naming its answer", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.failNext = [{ path: /\/v3\/order/, status: 400, count: 1, code: "400102", errorMessage: "fiatCurrency BRL is not supported." }];
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 5 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: "Binance Pay refused to create the order: 400102 fiatCurrency BRL is not supported." });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });

  it("Binance down: create answers the endpoint's 500 after retries, and nothing is written", async () => {
    const { merchant, apiKey } = await liveMerchant();
    binance.faults.failNext = [{ path: /\/v3\/order/, status: 503, count: 3 }];
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 5 } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/^Binance Pay unavailable \(create the order\): HTTP 503/) });
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
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: { reason: "Produto devolvido" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.refund.status).toBe("COMPLETED");
    const refund = binance.refunds.get(res.body.refund.id.replace(/-/g, ""))!;
    expect(refund).toMatchObject({ prepayId: remote.prepayId, status: "REFUNDED" });
    expect(refund.refundAmount).toBe(remote.orderAmount);
    expect((await row(order.id)).status).toBe("REFUND");
    expect(await balance(merchant.id)).toBe(0);
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
    expect(await balance(merchant.id)).toBe(1500);

    await startWorker();
    binance.faults.refundOutcome = () => "REFUNDING";
    try {
      const pending = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
      expect(pending.body.refund.status).toBe("PENDING");
      const remote = binance.refunds.get(pending.body.refund.id.replace(/-/g, ""))!;
      remote.webhookUrl = webhookUrl;
      await binance.settleRefund(remote.refundRequestId, "REFUNDED");
      const until = Date.now() + 10_000;
      while ((await row(order.id)).status !== "REFUND" && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect((await row(order.id)).status).toBe("REFUND");
      expect(await balance(merchant.id)).toBe(0);
    } finally {
      binance.faults.refundOutcome = () => "REFUNDED";
      await stopWorker();
    }
  });
});
