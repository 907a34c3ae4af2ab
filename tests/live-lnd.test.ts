import fs from "node:fs";
import https from "node:https";
import bolt11 from "bolt11";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import {
  cryptoPixInvoices,
  cryptoPixPayments,
  mailOutbox,
  orderReceipts,
  orders,
  pixPayouts,
  providerCursors,
} from "@/db/schema";
import { followOpenHoldInvoices, stopFollowingHoldInvoices } from "@/lib/crypto-pix/hold-invoice-streams";
import { cryptoPixPayoutMayStart, onStreamedHoldInvoice, runInvoiceActions } from "@/lib/crypto-pix/lightning";
import { onCryptoPixPayout } from "@/lib/crypto-pix/service";
import { resetEnvForTests } from "@/lib/env";
import { reconcileLightning } from "@/lib/lightning/reconcile";
import { startInvoiceStream, stopInvoiceStream } from "@/lib/lightning/stream";
import { advancePayout } from "@/lib/pix-payouts/machine";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { attentionList } from "@/lib/attention/attention";
import { getOrderDetail } from "@/lib/dashboard/server/order-detail";
import { nodePublicKey } from "@/lib/providers/lightning/bolt11-sign";
import { runSweep } from "@/lib/worker";
import { LND_DEFAULTS, startLndNode, type LndNode } from "./fixtures/lnd/server";
import { loadLndSwagger } from "./fixtures/lnd/swagger";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { api } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";

// Live Lightning through the merchant's own LND node (docs/providers.md#lightning-lnd-the-merchants-own-node), against a test node that speaks
// LND's REST gateway as its swagger describes it (tests/fixtures/lnd): invoices with the order's
// amount and expiry, completed from the node's invoice stream (resumed from the stored settle_index
// after a cut or a restart) or by the lookup poll alone, with the node's settle_date as the payment
// time; and Crypto-PIX over Lightning with hold invoices, settled only once the PIX is made.

const RECEIVER_KEY = "4d7b8c5e-2f1a-4b3c-9d8e-7f6a5b4c3d2e";
const PAYOUT_KEY = "payouts@lojista.example.com";

let node: LndNode;
let rates: ProviderServer;
let psp: PixPsp;
const savedEnv = saveEnv();

function liveEnv(extra: Record<string, string> = {}) {
  Object.assign(process.env, {
    PAYMENTS_MODE: "live",
    AUTH_SECRET: "a".repeat(40),
    PUBLIC_BASE_URL: "https://pay.example.com",
    DEPOSIT_XPUB:
      "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
    RATES_URL: `${rates.url}/api/v3`,
    LIGHTNING_BACKEND: "lnd",
    LND_REST_URL: node.url,
    LND_MACAROON_FILE: node.macaroonFile,
    LND_TLS_CERT_FILE: node.certFile,
    LND_TIMEOUT_MS: "1500",
    PIX_API_URL: psp.apiUrl,
    PIX_CLIENT_ID: psp.clientId,
    PIX_CLIENT_SECRET: psp.clientSecret,
    PIX_CERT_FILE: psp.files.clientCert,
    PIX_KEY_FILE: psp.files.clientKey,
    PIX_CA_FILE: psp.files.ca,
    PIX_RECEIVER_KEY: RECEIVER_KEY,
    PIX_PAYOUT_PROVIDER: "efi",
    PIX_PAYOUT_KEY: PAYOUT_KEY,
    PIX_TIMEOUT_MS: "1500",
    ...extra,
  });
  resetEnvForTests();
}

beforeAll(async () => {
  node = await startLndNode({ quiet: true });
  rates = await startProviderServer();
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  // Efí sends a PIX only from a key with a webhook (a deployment registers it at start, registerPixWebhooks);
  // payouts here are read back by id, so where Efí posts their outcome does not matter.
  psp.webhooks.set(PAYOUT_KEY, "https://127.0.0.1:9/api/v1/providers/pix/unused");
  liveEnv();
});

afterEach(async () => {
  await stopInvoiceStream();
  stopFollowingHoldInvoices();
  // Everything we sent the node and everything it answered followed LND's REST description.
  expect(node.violations).toEqual([]);
  Object.assign(node.faults, { failNext: [], delayNext: [], silentStreams: false });
});

afterAll(async () => {
  await node.close();
  await rates.close();
  await psp.close();
  savedEnv.restore();
});

/** A live Lightning order; its invoice expires with the order, after EXPIRY_LIGHTNING_SECONDS (900). */
async function lightningOrder(apiKey: string, value: number) {
  const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.order.id));
  return { order, body: res.body };
}

const row = async (id: string) => (await db().select().from(orders).where(eq(orders.id, id)))[0];

const storedSettleIndex = async () =>
  (await db().select().from(providerCursors).where(eq(providerCursors.name, "lightning:settle_index")))[0]?.sequence ??
  0;

describe("the test LND node", () => {
  it("speaks LND's REST: a macaroon is required, invoices are signed by the node, the stream never reports ACCEPTED", async () => {
    const agent = new https.Agent({ ca: [fs.readFileSync(node.certFile)] });
    const call = (path: string, init: { method?: string; macaroon?: string; body?: unknown } = {}) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = https.request(
          `${node.url}${path}`,
          {
            method: init.method ?? "GET",
            agent,
            headers: init.macaroon ? { "Grpc-Metadata-macaroon": init.macaroon } : {},
          },
          (res) => {
            let text = "";
            res.on("data", (c) => (text += c));
            res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on("error", reject);
        req.end(init.body === undefined ? undefined : JSON.stringify(init.body));
      });
    expect(await call("/v1/invoices", { method: "POST", body: { value_msat: "1000" } })).toMatchObject({
      status: 500,
      body: { code: 2, message: "expected 1 macaroon, got 0" },
    });
    expect(
      (await call("/v1/invoices", { method: "POST", macaroon: "00".repeat(96), body: { value_msat: "1000" } })).body
        .message,
    ).toMatch(/verification failed/);
    const added = await call("/v1/invoices", {
      method: "POST",
      macaroon: node.macaroonHex,
      body: { memo: "t", value_msat: "21000", expiry: "600" },
    });
    expect(added.status).toBe(200);
    const decoded = bolt11.decode(added.body.payment_request);
    expect(decoded.payeeNodeKey).toBe(nodePublicKey(node.nodeKey));
    expect(decoded).toMatchObject({ satoshis: 21, timeExpireDate: decoded.timestamp! + 600 });
    const hash = Buffer.from(added.body.r_hash, "base64").toString("hex");
    expect(await call(`/v1/invoice/${"ab".repeat(32)}`, { macaroon: node.macaroonHex })).toMatchObject({
      status: 404,
      body: { code: 5 },
    });
    expect((await call(`/v1/invoice/${hash}`, { macaroon: node.macaroonHex })).body).toMatchObject({
      state: "OPEN",
      value: "21",
      settle_index: "0",
    });
    // The all-invoices stream: additions and settlements, never a hold invoice's ACCEPTED.
    const lines: any[] = [];
    const streamReq = https.request(
      `${node.url}/v1/invoices/subscribe`,
      { agent, headers: { "Grpc-Metadata-macaroon": node.macaroonHex } },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (c: string) =>
          lines.push(
            ...c
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l).result),
          ),
        );
      },
    );
    streamReq.on("error", () => {});
    streamReq.end();
    await waitFor(
      "the stream",
      async () => node.openStreams(),
      (n) => n === 1,
      10_000,
      { everyMs: 5 },
    );
    const holdHash = "cd".repeat(32);
    expect(
      (
        await call("/v2/invoices/hodl", {
          method: "POST",
          macaroon: node.macaroonHex,
          body: { hash: Buffer.from(holdHash, "hex").toString("base64"), value_msat: "5000", expiry: "60" },
        })
      ).status,
    ).toBe(200);
    node.pay(holdHash);
    node.pay(hash);
    await waitFor(
      "two additions and a settlement",
      async () => lines.length,
      (n) => n >= 2,
      10_000,
      { everyMs: 5 },
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(
      lines.map((l) => `${Buffer.from(l.r_hash, "base64").toString("hex") === hash ? "plain" : "hold"} ${l.state}`),
    ).toEqual(["hold OPEN", "plain SETTLED"]);
    streamReq.destroy();
    // A request with a field the message does not have is recorded as a violation.
    const swagger = loadLndSwagger();
    expect(swagger.request("POST", "/v1/invoices", { value_msat: "1", amount: 5 })).toEqual([
      expect.stringContaining("additional properties"),
    ]);
    expect(swagger.request("POST", "/v1/invoices", { value_msat: 1000 })).toEqual([
      expect.stringContaining("/value_msat must be string"),
    ]);
  });
});

describe("the test LND node's chain", () => {
  it("holds an HTLC to its CLTV: cltv_expiry recorded, heights from the chain, GetBestBlock, and lnd's cancel at expiry_height − holdexpirydelta", async () => {
    const agent = new https.Agent({ ca: [fs.readFileSync(node.certFile)] });
    const call = (path: string, body?: unknown) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = https.request(
          `${node.url}${path}`,
          {
            method: body === undefined ? "GET" : "POST",
            agent,
            headers: { "Grpc-Metadata-macaroon": node.macaroonHex },
          },
          (res) => {
            let text = "";
            res.on("data", (c) => (text += c));
            res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on("error", reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    const hodl = (hash: string, cltv?: string) =>
      call("/v2/invoices/hodl", {
        hash: Buffer.from(hash, "hex").toString("base64"),
        value_msat: "7000",
        expiry: "600",
        ...(cltv ? { cltv_expiry: cltv } : {}),
      });
    // lnd refuses a final CLTV delta under routing.MinCLTVDelta, and takes its default without one.
    expect((await hodl("e1".repeat(32), "10")).body.message).toMatch(/must be greater than minimum of 24/);
    expect((await hodl("e2".repeat(32))).status).toBe(200);
    expect(node.invoices.get("e2".repeat(32))).toMatchObject({
      cltvExpiry: LND_DEFAULTS.cltvExpiry,
      cltvExpiryRequested: null,
    });
    const hash = "e3".repeat(32);
    const added = await hodl(hash, "40");
    expect(added.status).toBe(200);
    expect(
      bolt11.decode(added.body.payment_request).tags.find((t) => t.tagName === "min_final_cltv_expiry")?.data,
    ).toBe(40);
    expect(await call("/v2/chainkit/bestblock")).toMatchObject({ status: 200, body: { block_height: node.height() } });

    // An HTLC that leaves less than the invoice's delta is refused (the invoice stays OPEN).
    const h = node.height();
    expect(() => node.pay(hash, { expiryHeight: h + 39 })).toThrow(/expires too soon/);
    node.pay(hash, { expiryHeight: h + 40 });
    const read = await call(`/v1/invoice/${hash}`);
    expect(read.body).toMatchObject({
      state: "ACCEPTED",
      cltv_expiry: "40",
      htlcs: [{ accept_height: h, expiry_height: h + 40, state: "ACCEPTED" }],
    });

    const seen: string[] = [];
    const streamReq = https.request(
      `${node.url}/v2/invoices/subscribe/${Buffer.from(hash, "hex").toString("base64url")}`,
      { agent, headers: { "Grpc-Metadata-macaroon": node.macaroonHex } },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (c: string) =>
          seen.push(
            ...c
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l).result.state as string),
          ),
        );
      },
    );
    streamReq.on("error", () => {});
    streamReq.end();
    await waitFor(
      "the current state",
      async () => seen.length,
      (n) => n === 1,
      10_000,
      { everyMs: 5 },
    );
    // Held until height + holdexpirydelta reaches the HTLC's expiry, then cancelled (not reopened).
    node.mine(40 - LND_DEFAULTS.holdExpiryDelta - 1);
    expect(node.invoices.get(hash)!.state).toBe("ACCEPTED");
    node.mine(1);
    expect(node.invoices.get(hash)).toMatchObject({ state: "CANCELED", htlc: { state: "CANCELED" } });
    await waitFor(
      "CANCELED on the invoice's stream",
      async () => seen,
      (s) => s.length === 2,
      10_000,
      { everyMs: 5 },
    );
    expect(seen).toEqual(["ACCEPTED", "CANCELED"]);
    expect((await call(`/v1/invoice/${hash}`)).body).toMatchObject({
      state: "CANCELED",
      htlcs: [{ state: "CANCELED" }],
    });
    streamReq.destroy();
  });
});

describe("live Lightning orders through LND", () => {
  it("the invoice is LND's, for the order's amount and expiry; the stream completes the order with settle_date, once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order, body } = await lightningOrder(apiKey, 10);
    const inv = node.invoices.get(order.providerRef!)!;
    expect(inv).toMatchObject({ expiry: 900, state: "OPEN", hold: false });
    expect(body.order.invoice).toBe(inv.paymentRequest);
    const decoded = bolt11.decode(inv.paymentRequest);
    expect(decoded.payeeNodeKey).toBe(nodePublicKey(node.nodeKey));
    expect(BigInt(decoded.millisatoshis!)).toBe(inv.valueMsat);
    expect(Math.abs(decoded.timeExpireDate! * 1000 - order.expiresAt!.getTime())).toBeLessThanOrEqual(2000);
    // The node was asked for value_msat: the satoshis the order quoted, exactly.
    expect(inv.valueMsat).toBe(BigInt(order.satoshis!) * 1000n);
    expect(body.order.satoshis).toBe(order.satoshis);

    startInvoiceStream([onStreamedHoldInvoice]);
    await waitFor(
      "the stream",
      async () => node.openStreams(),
      (n) => n === 1,
      10_000,
      { everyMs: 5 },
    );
    const paidAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const t0 = performance.now();
    node.pay(order.providerRef!, { at: paidAt });
    const { ms } = await waitFor(
      "COMPLETED",
      () => row(order.id),
      (o) => o.status === "COMPLETED",
      10_000,
      { everyMs: 5 },
    );
    console.log(`LND stream → COMPLETED in ${Math.round(performance.now() - t0)} ms (observed ${Math.round(ms)} ms)`);
    expect((await row(order.id)).paidAt).toEqual(paidAt);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1000);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt).toMatchObject({ provider: "lnd", source: "stream", applied: true });
    expect(await storedSettleIndex()).toBe(inv.settleIndex);

    // The order lookup's providerDetails come from the node's invoice.
    const lookup = await api("GET", `/api/v1/order/${order.id}`, { apiKey });
    expect(lookup.body.providerDetails).toMatchObject({
      success: true,
      data: { id: order.providerRef, status: "paid", currency: "BTC", amount: Number(inv.valueMsat / 1000n) },
    });
    expect(lookup.body.providerDetails.data.metadata).toMatchObject({
      state: "SETTLED",
      settle_index: String(inv.settleIndex),
    });

    // Replayed (a reconnect from an older index) and polled: nothing more is credited.
    await stopInvoiceStream();
    await db().update(providerCursors).set({ sequence: 0 }).where(eq(providerCursors.name, "lightning:settle_index"));
    startInvoiceStream([onStreamedHoldInvoice]);
    await reconcileLightning();
    expect(await balanceMatchesLedger(merchant.id)).toBe(1000);
  });

  it("a stream cut while payments settle resumes from the stored settle_index and loses none", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const a = (await lightningOrder(apiKey, 11)).order;
    const b = (await lightningOrder(apiKey, 12)).order;
    startInvoiceStream([onStreamedHoldInvoice]);
    await waitFor(
      "the stream",
      async () => node.openStreams(),
      (n) => n === 1,
      10_000,
      { everyMs: 5 },
    );
    node.pay(a.providerRef!);
    await waitFor(
      "a COMPLETED",
      () => row(a.id),
      (o) => o.status === "COMPLETED",
      10_000,
      { everyMs: 5 },
    );
    // The stream goes silent (a notification lost), then is cut; b settles in between.
    node.faults.silentStreams = true;
    node.pay(b.providerRef!);
    node.faults.silentStreams = false;
    expect((await row(b.id)).status).toBe("PENDING");
    node.cutStreams();
    await waitFor(
      "b COMPLETED after the reconnect",
      () => row(b.id),
      (o) => o.status === "COMPLETED",
      10_000,
      { everyMs: 5 },
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(2300);
    expect(node.requests.filter((r) => r.path === "/v1/invoices/subscribe").length).toBeGreaterThanOrEqual(2);
  });

  it("survives a restart while a payment settles: our process down, then the node down, and the stream picks it up", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const a = (await lightningOrder(apiKey, 13)).order;
    const b = (await lightningOrder(apiKey, 14)).order;
    // Our process is down (no stream) when a settles.
    node.pay(a.providerRef!);
    // The node restarts while b settles: connections dropped, the same invoices after.
    startInvoiceStream([onStreamedHoldInvoice]);
    await waitFor(
      "a COMPLETED from the replay",
      () => row(a.id),
      (o) => o.status === "COMPLETED",
      10_000,
      { everyMs: 5 },
    );
    await node.stop();
    node.pay(b.providerRef!);
    await new Promise((r) => setTimeout(r, 300));
    await node.start();
    await waitFor(
      "b COMPLETED after the node came back",
      () => row(b.id),
      (o) => o.status === "COMPLETED",
      20_000,
      { everyMs: 5 },
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(2700);
  });

  it("with no stream at all, the lookup poll completes the order with the node's settle_date", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await lightningOrder(apiKey, 15);
    const paidAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 3000);
    node.pay(order.providerRef!, { at: paidAt });
    // One lookup answered 503 first: the poll retries it.
    node.faults.failNext.push({ path: /^\/v1\/invoice\//, status: 503, count: 1 });
    const start = performance.now();
    const pass = await reconcileLightning();
    console.log(
      `LND poll pass: ${pass.read} invoices read, ${pass.paid} paid, ${Math.round(performance.now() - start)} ms`,
    );
    expect(await row(order.id)).toMatchObject({ status: "COMPLETED", paidAt });
    expect(await balanceMatchesLedger(merchant.id)).toBe(1500);
    const [receipt] = await db().select().from(orderReceipts).where(eq(orderReceipts.orderId, order.id));
    expect(receipt.source).toBe("poll");
  });

  it("settled at 899 s, reported at 901 s: the order the sweep had cancelled completes", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await lightningOrder(apiKey, 16);
    // 901 s have passed since the order and its invoice were made.
    const shift = 901_000;
    await db()
      .update(orders)
      .set({
        createdAt: new Date(order.createdAt.getTime() - shift),
        expiresAt: new Date(order.expiresAt!.getTime() - shift),
      })
      .where(eq(orders.id, order.id));
    const inv = node.invoices.get(order.providerRef!)!;
    inv.creationDate -= 901;
    await runSweep();
    expect((await row(order.id)).status).toBe("CANCELLED");
    node.pay(order.providerRef!, { at: new Date((inv.creationDate + 899) * 1000) });
    startInvoiceStream([onStreamedHoldInvoice]);
    await waitFor(
      "COMPLETED",
      () => row(order.id),
      (o) => o.status === "COMPLETED",
      10_000,
      { everyMs: 5 },
    );
    expect((await row(order.id)).paidAt).toEqual(new Date((inv.creationDate + 899) * 1000));
    expect(await balanceMatchesLedger(merchant.id)).toBe(1600);
  });

  it("refuses a node whose certificate is not the pinned one, and one that refuses our macaroon; the order is not created", async () => {
    const { apiKey } = await liveMerchant();
    const impostor = await startLndNode({ quiet: true });
    try {
      // The impostor's URL with the real node's certificate pinned: the TLS handshake fails.
      liveEnv({ LND_REST_URL: impostor.url });
      const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 10 } });
      // The spec's row for a Lightning provider error: 400 naming the provider's status.
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: expect.stringMatching(/^Lightning provider error: LND node unavailable/),
      });
      expect(impostor.invoices.size).toBe(0);
      // The right node, a macaroon it did not bake.
      liveEnv({ LND_MACAROON_FILE: impostor.macaroonFile });
      const before = node.invoices.size;
      const refused = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 10 } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/LND node refused to create the invoice: HTTP 500: verification failed/);
      expect(node.invoices.size).toBe(before);
    } finally {
      await impostor.close();
      liveEnv();
    }
  });
});

describe("Crypto-PIX over Lightning through LND (hold invoices)", () => {
  const qrcode = (centavos: number) =>
    encodeStaticBrCode({
      pixKey: "padaria@example.com",
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos: centavos,
    });

  async function payWithLightning(apiKey: string, centavos: number) {
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: { qrcode: qrcode(centavos), network: "lightning" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [payment] = await db()
      .select()
      .from(cryptoPixPayments)
      .where(eq(cryptoPixPayments.address, res.body.data.address));
    const [invoice] = await db().select().from(cryptoPixInvoices).where(eq(cryptoPixInvoices.paymentId, payment.id));
    return { data: res.body.data, payment, invoice };
  }

  const payment = async (id: string) =>
    (await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, id)))[0];
  const invoiceRow = async (id: string) =>
    (await db().select().from(cryptoPixInvoices).where(eq(cryptoPixInvoices.paymentId, id)))[0];

  async function settlePayout(paymentId: string) {
    const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, paymentId));
    for (
      let i = 0;
      i < 3 && (await db().select().from(pixPayouts).where(eq(pixPayouts.id, payout.id)))[0].status !== "completed";
      i++
    )
      await advancePayout(payout.id, { crypto_pix: onCryptoPixPayout });
    return payout;
  }

  afterEach(() => {
    psp.faults.payoutOutcome = () => "REALIZADO";
  });

  it("the payer's sats are held; the PIX is paid through Efí; only then is the invoice settled with our preimage", async () => {
    const { apiKey } = await liveMerchant();
    const { data, payment: p, invoice } = await payWithLightning(apiKey, 5432);
    const held = node.invoices.get(invoice.paymentHash)!;
    expect(held).toMatchObject({ hold: true, state: "OPEN", preimage: null });
    expect(data).toMatchObject({
      network: "lightning",
      asset: "BTC",
      address: held.paymentRequest,
      satoshis: String(held.valueMsat / 1000n),
    });
    expect(bolt11.decode(data.address).payeeNodeKey).toBe(nodePublicKey(node.nodeKey));

    expect(await followOpenHoldInvoices()).toBe(1);
    await waitFor(
      "the invoice's stream",
      async () => node.openStreams(),
      (n) => n >= 1,
      10_000,
      { everyMs: 5 },
    );
    const t0 = performance.now();
    node.pay(invoice.paymentHash);
    const { value: accepted } = await waitFor(
      "accepted",
      () => invoiceRow(p.id),
      (i) => i.state === "accepted",
      10_000,
      { everyMs: 5 },
    );
    console.log(`LND hold invoice ACCEPTED → recorded in ${Math.round(performance.now() - t0)} ms`);
    expect(accepted.acceptedAt).toEqual(new Date(held.htlc!.acceptTime * 1000));
    // Not settled before the PIX is made.
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("ACCEPTED");
    const payout = await settlePayout(p.id);
    expect(payout).toMatchObject({ purpose: "crypto_pix", valueCentavos: 5432 });
    expect((await payment(p.id)).status).toBe("COMPLETED");
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)).toMatchObject({ state: "SETTLED", preimage: invoice.preimage });
    expect(await invoiceRow(p.id)).toMatchObject({ state: "settled", action: null });
    const lookup = await api("GET", `/api/v1/crypto-pix/order/${data.payCryptoPixId}`, { apiKey });
    expect(lookup.status).toBe(200);
    expect(JSON.stringify(lookup.body)).toContain('"status":"COMPLETED"');
  });

  it("the PIX is not made: the hold invoice is cancelled and the payer's sats go back by themselves (REFUNDED)", async () => {
    const { apiKey } = await liveMerchant();
    psp.faults.payoutOutcome = () => "NAO_REALIZADO";
    const { payment: p, invoice } = await payWithLightning(apiKey, 2100);
    node.pay(invoice.paymentHash);
    // The stream for this invoice was never opened (a lost notification): the poll finds it accepted.
    const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
    expect(await reconcileHoldInvoices()).toBe(1);
    await settlePayout(p.id);
    // The node refuses the first cancel (down a moment): retried at the next run.
    node.faults.failNext.push({ path: /^\/v2\/invoices\/cancel$/, status: 503, count: 3 });
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("ACCEPTED");
    expect((await invoiceRow(p.id)).lastError).toBeTruthy();
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("CANCELED");
    expect(await payment(p.id)).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
    expect(node.invoices.get(invoice.paymentHash)!.preimage).toBeNull();
  });

  it("a settle whose answer was lost is sent again, and lnd's 'already settled' answer closes it", async () => {
    const { apiKey } = await liveMerchant();
    const { payment: p, invoice } = await payWithLightning(apiKey, 1500);
    node.pay(invoice.paymentHash);
    const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
    await reconcileHoldInvoices();
    await settlePayout(p.id);
    // Every answer of this run is late (the adapter sends it three times): settled at the node, not known to us.
    node.faults.delayNext.push({ path: /^\/v2\/invoices\/settle$/, ms: 1700, count: 3 });
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("SETTLED");
    expect((await invoiceRow(p.id)).action).toBe("settle");
    await runInvoiceActions();
    expect(node.requests.filter((r) => r.path === "/v2/invoices/settle").length).toBeGreaterThanOrEqual(4);
    expect(await invoiceRow(p.id)).toMatchObject({ state: "settled", action: null });
    expect(await payment(p.id)).toMatchObject({ status: "COMPLETED" });
  });
  const lookup = async (apiKey: string, payCryptoPixId: string) =>
    (await api("GET", `/api/v1/crypto-pix/order/${payCryptoPixId}`, { apiKey })).body;
  const payoutsOf = async (paymentId: string) =>
    db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, paymentId));

  it("a hold invoice asks the node for LND_HOLD_CLTV_EXPIRY blocks (cltv_expiry), and the invoice carries them", async () => {
    const { apiKey } = await liveMerchant();
    const first = await payWithLightning(apiKey, 1200);
    expect(node.invoices.get(first.invoice.paymentHash)).toMatchObject({ cltvExpiryRequested: 80, cltvExpiry: 80 });
    liveEnv({ LND_HOLD_CLTV_EXPIRY: "144", LND_HOLD_MIN_BLOCKS_LEFT: "40" });
    try {
      const second = await payWithLightning(apiKey, 1300);
      expect(node.invoices.get(second.invoice.paymentHash)).toMatchObject({
        cltvExpiryRequested: 144,
        cltvExpiry: 144,
      });
      expect(bolt11.decode(second.data.address).tags.find((t) => t.tagName === "min_final_cltv_expiry")?.data).toBe(
        144,
      );
    } finally {
      delete process.env.LND_HOLD_CLTV_EXPIRY;
      delete process.env.LND_HOLD_MIN_BLOCKS_LEFT;
      liveEnv();
    }
  });

  it("an HTLC with too few blocks left before it expires: no PIX, the invoice cancelled, the payment FAILED", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const made = psp.payoutsMade;
    const { data, payment: p, invoice } = await payWithLightning(apiKey, 3300);
    const h = node.height();
    node.pay(invoice.paymentHash);
    const expiryHeight = h + 80 + LND_DEFAULTS.blockPadding;
    // Our worker was down while 48 blocks were mined: 35 left, fewer than LND_HOLD_MIN_BLOCKS_LEFT (36),
    // and lnd (holdexpirydelta 18) has not cancelled it yet.
    node.mine(48);
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("ACCEPTED");
    expect(await followOpenHoldInvoices()).toBeGreaterThanOrEqual(1);
    await waitFor(
      "the payment FAILED",
      () => payment(p.id),
      (x) => x.status === "FAILED",
      10_000,
      { everyMs: 5 },
    );
    expect(await payment(p.id)).toMatchObject({ pixPayoutId: null, paidAt: null });
    expect(Number((await payment(p.id)).receivedAmount)).toBe(0);
    expect((await payment(p.id)).failureReason).toMatch(/35 blocks.*36/);
    expect(await invoiceRow(p.id)).toMatchObject({
      state: "accepted",
      action: "cancel",
      acceptHeight: h,
      htlcExpiryHeight: expiryHeight,
    });
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)).toMatchObject({ state: "CANCELED", preimage: null });
    expect(await invoiceRow(p.id)).toMatchObject({ state: "canceled", action: null });
    // Nothing later pays it either: a sweep, the poll.
    await runSweep();
    const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
    await reconcileHoldInvoices();
    expect(await payoutsOf(p.id)).toEqual([]);
    expect(psp.payoutsMade).toBe(made);
    const view = await lookup(apiKey, data.payCryptoPixId);
    expect(view).toMatchObject({
      status: "FAILED",
      holdInvoice: { status: "CANCELED", acceptHeight: h, htlcExpiryHeight: expiryHeight },
    });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("accepted with room, but its payout not sent until too few blocks are left: the PIX is not sent, the invoice cancelled, the payer's sats back", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const made = psp.payoutsMade;
    const { payment: p, invoice } = await payWithLightning(apiKey, 3350);
    node.pay(invoice.paymentHash);
    const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
    expect(await reconcileHoldInvoices()).toBe(1);
    const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, p.id));
    expect(payout.attempts).toBe(0);
    // The payout job did not run (our workers were down) while 48 blocks were mined: 35 left, fewer than 36.
    node.mine(48);
    expect(
      await advancePayout(payout.id, { crypto_pix: onCryptoPixPayout }, { crypto_pix: cryptoPixPayoutMayStart }),
    ).toBe(true);
    expect(psp.requests.some((r) => r.path.includes(payout.id.replace(/-/g, "")))).toBe(false);
    expect(psp.payoutsMade).toBe(made);
    const [decided] = await db().select().from(pixPayouts).where(eq(pixPayouts.id, payout.id));
    expect(decided).toMatchObject({ status: "failed", failureReason: expect.stringMatching(/35 blocks.*36/) });
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("CANCELED");
    expect(await payment(p.id)).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("enough blocks left, read from the HTLC when the node cannot tell its height (no ChainKit): the PIX is paid", async () => {
    const { apiKey } = await liveMerchant();
    const { payment: p, invoice } = await payWithLightning(apiKey, 3400);
    node.pay(invoice.paymentHash);
    node.faults.failNext.push({ path: /^\/v2\/chainkit\/bestblock$/, status: 404, count: 1 });
    const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
    expect(await reconcileHoldInvoices()).toBe(1);
    await settlePayout(p.id);
    expect((await payment(p.id)).status).toBe("COMPLETED");
    expect(await invoiceRow(p.id)).toMatchObject({
      action: "settle",
      acceptHeight: node.invoices.get(invoice.paymentHash)!.htlc!.acceptHeight,
    });
    await runInvoiceActions();
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("SETTLED");
  });

  it("the PIX made, then the node keeps refusing the settle: COMPLETED, attention raised and mailed, shown on the payment, cleared once it settles", async () => {
    liveEnv({ OPERATOR_ALERT_EMAIL: "ops@example.com" });
    try {
      const { merchant, apiKey } = await liveMerchant();
      const { data, payment: p, invoice } = await payWithLightning(apiKey, 4400);
      node.pay(invoice.paymentHash);
      const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
      await reconcileHoldInvoices();
      await settlePayout(p.id);
      expect((await payment(p.id)).status).toBe("COMPLETED");
      node.faults.failNext.push({ path: /^\/v2\/invoices\/settle$/, status: 503, count: 1000 });
      await runInvoiceActions();
      // A settle that just failed is retried; no operator yet.
      expect(await invoiceRow(p.id)).toMatchObject({ action: "settle", attention: null });
      expect((await invoiceRow(p.id)).lastError).toMatch(/503/);
      expect((await lookup(apiKey, data.payCryptoPixId)).holdInvoice).toMatchObject({
        status: "SETTLE_FAILING",
        attention: null,
      });

      // Still failing minutes after the PIX was made: an operator is told, once.
      await db()
        .update(cryptoPixPayments)
        .set({ closedAt: new Date(Date.now() - 6 * 60_000) })
        .where(eq(cryptoPixPayments.id, p.id));
      await runInvoiceActions();
      await runInvoiceActions();
      const flagged = await invoiceRow(p.id);
      expect(flagged.attention).toMatch(/settle/);
      expect(flagged.attentionAt).toBeInstanceOf(Date);
      expect((await attentionList(db(), 100_000)).filter((a) => a.id === p.id)).toEqual([
        expect.objectContaining({ kind: "hold_invoice" }),
      ]);
      const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "ops@example.com"));
      expect(mails.filter((m) => m.subject.includes(p.id))).toHaveLength(1);
      const view = await lookup(apiKey, data.payCryptoPixId);
      expect(view).toMatchObject({
        status: "COMPLETED",
        holdInvoice: { status: "SETTLE_FAILING", attention: flagged.attention },
      });
      expect(view.holdInvoice.attentionSince).toBe(flagged.attentionAt!.toISOString());
      const detail = await getOrderDetail(merchant.id, p.id);
      expect(detail!.facts).toEqual(
        expect.arrayContaining([
          { label: "order.holdInvoice", type: "holdInvoice", value: "SETTLE_FAILING" },
          { label: "order.holdInvoiceAttention", type: "text", value: flagged.attention },
        ]),
      );
      expect(node.invoices.get(invoice.paymentHash)!.state).toBe("ACCEPTED");

      // The node accepts the settle: the sats are ours and the attention goes.
      node.faults.failNext = [];
      await runInvoiceActions();
      expect(node.invoices.get(invoice.paymentHash)).toMatchObject({ state: "SETTLED", preimage: invoice.preimage });
      expect(await invoiceRow(p.id)).toMatchObject({
        state: "settled",
        action: null,
        lastError: null,
        attention: null,
        attentionAt: null,
      });
      expect((await lookup(apiKey, data.payCryptoPixId)).holdInvoice).toMatchObject({
        status: "SETTLED",
        attention: null,
        lastError: null,
      });
      expect((await attentionList(db(), 100_000)).filter((a) => a.id === p.id)).toEqual([]);
      expect((await payment(p.id)).status).toBe("COMPLETED");
    } finally {
      delete process.env.OPERATOR_ALERT_EMAIL;
      liveEnv();
    }
  });

  it("the PIX made, but lnd cancelled the HTLC first: attention at once, since no retry can settle it", async () => {
    const { apiKey } = await liveMerchant();
    const { data, payment: p, invoice } = await payWithLightning(apiKey, 4500);
    node.pay(invoice.paymentHash);
    const { reconcileHoldInvoices } = await import("@/lib/crypto-pix/lightning");
    await reconcileHoldInvoices();
    await settlePayout(p.id);
    // The settle could not reach the node until lnd had cancelled the HTLC.
    node.mine(80 + LND_DEFAULTS.blockPadding - LND_DEFAULTS.holdExpiryDelta);
    expect(node.invoices.get(invoice.paymentHash)!.state).toBe("CANCELED");
    await runInvoiceActions();
    const row = await invoiceRow(p.id);
    expect(row).toMatchObject({ action: "settle" });
    expect(row.attention).toMatch(/cancel/i);
    expect(await lookup(apiKey, data.payCryptoPixId)).toMatchObject({
      status: "COMPLETED",
      holdInvoice: { status: "SETTLE_FAILING" },
    });
  });
});
