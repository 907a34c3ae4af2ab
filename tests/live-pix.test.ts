import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { cryptoPixPayments, events, orders, pixPayouts, pixReceipts, providerCursors, withdrawals } from "@/db/schema";
import { metricsRegistry } from "@/lib/metrics/registry";
import { resetEnvForTests } from "@/lib/env";
import { setLoggerForTests } from "@/lib/log";
import { advancePayout, providerPayoutId } from "@/lib/pix-payouts/machine";
import { onCryptoPixPayout } from "@/lib/crypto-pix/service";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { toBaseUnits } from "@/lib/money";
import type { Hex } from "viem";
import { reconcileReceivedPix } from "@/lib/pix-collection/reconcile";
import { registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { runSweep, startWorker, stopWorker, watchDeposits } from "@/lib/worker";
import { onWithdrawalPayout } from "@/lib/withdrawals/service";
import { startAnvil, account, type Anvil } from "./fixtures/anvil";
import { CONFIRMATIONS, useLocalChain } from "./fixtures/local-chain";
import { pixId } from "./fixtures/pix-psp/api-pix";
import { dynamicBrCode } from "./fixtures/pix-psp/brcode";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { postToReceiver, startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { api, captureLogs, specOf } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";

// The app in live mode against a test PSP that speaks the Central Bank's API Pix and Efí's payouts
// over mutual TLS, checks every request we send and every answer it gives against the published
// document, and has the faults a real one has (docs/providers.md). The faults that decide whether money
// is paid twice or credited back wrongly are tests/live-money-out.test.ts's.

const RECEIVER_KEY = "d6f1a8c2-5b7e-4c3a-9e1f-2a4b6c8d0e12";
const PAYOUT_KEY = "pagamentos@pixcrypto.example";
const WEBHOOK_TOKEN = "live-pix-test-webhook-token-0123456789";

let psp: PixPsp;
let receiver: HttpsReceiver;
let receiverBase: string;
const savedEnv = saveEnv();

function liveEnv(extra: Record<string, string> = {}) {
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, webhookToken: WEBHOOK_TOKEN }),
    extra,
  );
  resetEnvForTests();
}

async function createPix(apiKey: string, body: Record<string, unknown> = { value: 25.9 }) {
  const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.pixOrder._id));
  return { res, order };
}

async function orderStatus(id: string) {
  const [o] = await db().select().from(orders).where(eq(orders.id, id));
  return o;
}

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  // The app's API on a real https socket, so the PSP's registration checks and notifications reach it as in production.
  receiver = await startHttpsReceiver(psp, { mtls: "skip" });
  receiverBase = `${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`;
  liveEnv();
  // The receiving key's PIX, and the payout key's outcomes (Efí sends from a key with a webhook only).
  await registerPixWebhooks(receiverBase);
});

afterEach(() => {
  // Every request we sent and every answer the PSP gave followed the Central Bank's document.
  expect(psp.violations).toEqual([]);
  Object.assign(psp.faults, {
    dropNotifications: false,
    duplicateNotifications: false,
    notificationDelayMs: 0,
    failNext: [],
    delayNext: [],
    loseNextPayoutResponse: 0,
    rateLimitNext: [],
    readLagMs: 0,
    expireTokensNow: false,
  });
});

afterAll(async () => {
  await stopWorker();
  await receiver.close();
  await psp.close();
  savedEnv.restore();
});

describe("live PIX collection through API Pix", () => {
  it("registers the webhook at the PSP with PUT /webhook/{chave}", () => {
    expect(psp.webhooks.get(RECEIVER_KEY)).toBe(receiverBase);
    expect(psp.webhooks.get(PAYOUT_KEY)).toBe(receiverBase);
  });

  it("create-PIX is a charge at the PSP: our txid, key, value, expiry and payer; the order's qrCode is the PSP's pixCopiaECola", async () => {
    const { apiKey } = await liveMerchant();
    const { res, order } = await createPix(apiKey, {
      value: 25.9,
      name: "Maria Souza",
      cpf: "529.982.247-25",
      expiresIn: 600,
    });
    const charge = psp.charges.get(order.txid!)!;
    expect(order.txid).toMatch(/^[a-zA-Z0-9]{32}$/);
    expect(charge).toMatchObject({
      status: "ATIVA",
      chave: RECEIVER_KEY,
      valor: { original: "25.90" },
      calendario: { expiracao: 600 },
      devedor: { cpf: "52998224725", nome: "Maria Souza" },
    });
    expect(res.body.qrCode).toBe(charge.pixCopiaECola);
    expect(order).toMatchObject({ provider: "api-pix", brcode: charge.pixCopiaECola, status: "PENDING" });
  });

  it("the payer pays → the notification, read back from the PSP, completes the order and credits it once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    await startWorker();
    const { order } = await createPix(apiKey, { value: 10.01 });
    const sent = performance.now();
    const pix = await psp.pay(order.txid!);
    const { ms } = await waitFor(
      "COMPLETED",
      () => orderStatus(order.id),
      (o) => o.status === "COMPLETED",
    );
    console.log(
      `notification → COMPLETED: ${Math.round(performance.now() - sent)} ms (observed ${Math.round(ms)} ms after the PSP's answer)`,
    );
    const completed = await orderStatus(order.id);
    expect(completed.paidAt?.toISOString()).toBe(new Date(pix.horario).toISOString());
    expect(await balanceMatchesLedger(merchant.id)).toBe(1001);
    expect(psp.requests.some((r) => r.method === "GET" && r.path.endsWith(`/pix/${pix.endToEndId}`))).toBe(true);
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.endToEndId, pix.endToEndId));
    expect(receipt).toMatchObject({ orderId: order.id, applied: true, source: "notification", valueCentavos: 1001 });
  });

  it("the notification's request line names the route, never the token in its URL", async () => {
    const lines = captureLogs();
    try {
      const { apiKey } = await liveMerchant();
      await startWorker();
      const { order } = await createPix(apiKey, { value: 10.02 });
      await psp.pay(order.txid!);
      await waitFor(
        "the notification's request line",
        async () => lines.filter((l) => l.includes('"path":"/api/v1/providers/pix/')),
        (found) => found.length > 0,
      );
    } finally {
      setLoggerForTests(undefined);
    }
    const line = JSON.parse(lines.find((l) => l.includes('"path":"/api/v1/providers/pix/'))!);
    expect(line).toMatchObject({
      msg: "request",
      method: "POST",
      path: "/api/v1/providers/pix/[redacted]/pix",
      status: 200,
    });
    expect(lines.join("")).not.toContain(WEBHOOK_TOKEN);
  });

  it("duplicate notifications count once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    await startWorker();
    psp.faults.duplicateNotifications = true;
    const { order } = await createPix(apiKey, { value: 7 });
    const pix = await psp.pay(order.txid!);
    await psp.notify([pix]);
    await waitFor(
      "COMPLETED",
      () => orderStatus(order.id),
      (o) => o.status === "COMPLETED",
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await balanceMatchesLedger(merchant.id)).toBe(700);
    const changes = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, order.id), eq(events.type, "order.status_changed")));
    expect(changes).toHaveLength(1);
  });

  it("a forged notification changes nothing: the PSP has no such Pix", async () => {
    const { merchant, apiKey } = await liveMerchant();
    await startWorker();
    const { order } = await createPix(apiKey, { value: 99 });
    expect(await psp.forgeNotification(order.txid!, { url: `${receiverBase}/pix` })).toBe(200);
    // The read was made, and found nothing.
    await waitFor(
      "the read-back",
      async () =>
        psp.requests.filter((r) => r.method === "GET" && /\/pix\/[a-zA-Z0-9]{32}$/.test(r.path) && r.status === 404)
          .length,
      (n) => n > 0,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await orderStatus(order.id)).status).toBe("PENDING");
    expect(await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, order.id))).toEqual([]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // A wrong token is a 404 before anything is read.
    expect(
      await postToReceiver(psp, `${receiverBase.replace(WEBHOOK_TOKEN, "x".repeat(WEBHOOK_TOKEN.length))}/pix`, {
        pix: [],
      }),
    ).toBe(404);
  });

  it("with every notification lost, the reconciliation poll completes the order", async () => {
    const { merchant, apiKey } = await liveMerchant();
    await startWorker();
    psp.faults.dropNotifications = true;
    const { order } = await createPix(apiKey, { value: 12.34 });
    const paidAt = performance.now();
    await psp.pay(order.txid!);
    const { ms } = await waitFor(
      "COMPLETED by the poll",
      () => orderStatus(order.id),
      (o) => o.status === "COMPLETED",
      15_000,
    );
    console.log(
      `poll only (PIX_POLL_SECONDS=1): paid → COMPLETED in ${Math.round(ms)} ms (${Math.round(performance.now() - paidAt)} ms)`,
    );
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, order.id));
    expect(receipt.source).toBe("poll");
    expect(await balanceMatchesLedger(merchant.id)).toBe(1234);
  });

  it("more than a pass's 100 pages: the cursor moves only as far as was read, the next passes read the rest, and the backlog is a metric", async () => {
    await stopWorker();
    psp.faults.dropNotifications = true;
    // 150 Pix two to three hours ago, none of ours (a static code without txid), served one per page.
    psp.faults.maxItemsPerPage = 1;
    const first = Date.now() - 3 * 60 * 60 * 1000;
    const listed: string[] = [];
    try {
      for (let i = 0; i < 150; i++) {
        const at = new Date(first + i * 40_000);
        const endToEndId = pixId("E", "12345678", at);
        psp.received.set(endToEndId, { endToEndId, valor: "1.00", chave: RECEIVER_KEY, horario: at.toISOString() });
        listed.push(endToEndId);
      }
      // The poll last caught up just before them.
      const position = new Date(first - 1000);
      await db()
        .insert(providerCursors)
        .values({ name: "api-pix:received", position, sequence: 1 })
        .onConflictDoUpdate({ target: providerCursors.name, set: { position, sequence: 1 } });
      const recorded = async () =>
        (await db().select({ e: pixReceipts.endToEndId }).from(pixReceipts)).filter((r) => listed.includes(r.e)).length;
      const backlog = async () =>
        (await metricsRegistry.getSingleMetric("payments_pix_reconcile_backlog_seconds")?.get())?.values[0]?.value;

      const pass = (await reconcileReceivedPix())!;
      expect(pass.complete).toBe(false);
      expect(pass.pages).toBe(100);
      const [cursor] = await db().select().from(providerCursors).where(eq(providerCursors.name, "api-pix:received"));
      // Where it stopped reading, not now: everything before it was read, nothing after it counted as read.
      expect(cursor.position.getTime()).toBe(pass.to.getTime());
      expect(cursor.position.getTime()).toBeLessThan(first + 150 * 40_000);
      const readSoFar = await recorded();
      expect(readSoFar).toBeGreaterThan(0);
      expect(readSoFar).toBeLessThan(150);
      expect(await backlog()).toBeGreaterThan(60 * 60);

      let passes = 1;
      for (let done = false; !done && passes < 6; passes++) done = (await reconcileReceivedPix())!.complete;
      expect(await recorded()).toBe(150);
      expect(await backlog()).toBe(0);
    } finally {
      psp.faults.maxItemsPerPage = null;
      for (const e of listed) psp.received.delete(e);
    }
  });

  it("a Pix of the wrong value is kept as unapplied funds on the order, with its event; the order stays PENDING", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await createPix(apiKey, { value: 50 });
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(order.txid!, { valor: "5.00" });
    await reconcileReceivedPix();
    expect((await orderStatus(order.id)).status).toBe("PENDING");
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.endToEndId, pix.endToEndId));
    expect(receipt).toMatchObject({
      applied: false,
      unappliedReason: "wrong_value",
      orderId: order.id,
      valueCentavos: 500,
    });
    const [event] = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, order.id), eq(events.type, "order.funds_unapplied")));
    expect(event.data).toMatchObject({ unappliedValue: 5, endToEndId: pix.endToEndId, reason: "wrong_value" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // Read again: counted once.
    await reconcileReceivedPix();
    expect(await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, order.id))).toHaveLength(1);
  });

  it("expiry removes the charge at the PSP, then cancels; a charge paid in time but not yet notified keeps its order until the payment is read", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const { order: unpaid } = await createPix(apiKey, { value: 3, expiresIn: 60 });
    const { order: paid } = await createPix(apiKey, { value: 4, expiresIn: 60 });
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(paid.txid!);
    await db()
      .update(orders)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(orders.id, unpaid.id));
    // Paid a moment before its expiry, which has passed since.
    await new Promise((r) => setTimeout(r, 5));
    await db()
      .update(orders)
      .set({ expiresAt: new Date(Date.parse(pix.horario) + 1) })
      .where(eq(orders.id, paid.id));
    await runSweep();
    expect(psp.charges.get(unpaid.txid!)?.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR");
    expect((await orderStatus(unpaid.id)).status).toBe("CANCELLED");
    // The PSP refused to remove a charge it had been paid for: the order waits for the payment.
    expect((await orderStatus(paid.id)).status).toBe("PENDING");
    await reconcileReceivedPix();
    expect((await orderStatus(paid.id)).status).toBe("COMPLETED");
    expect(await balanceMatchesLedger(merchant.id)).toBe(400);
  });

  it("authenticates with a PKCS#12 bundle and secrets read from files as well, and the PSP refuses a certificate it did not issue", async () => {
    const { apiKey } = await liveMerchant();
    const dir = mkdtempSync(path.join(tmpdir(), "pix-secrets-"));
    writeFileSync(path.join(dir, "secret"), `${psp.clientSecret}\n`);
    writeFileSync(path.join(dir, "passphrase"), psp.files.pfxPassphrase);
    try {
      delete process.env.PIX_CERT_FILE;
      delete process.env.PIX_KEY_FILE;
      delete process.env.PIX_CLIENT_SECRET;
      liveEnv({
        PIX_PFX_FILE: psp.files.pfx,
        PIX_PFX_PASSPHRASE_FILE: path.join(dir, "passphrase"),
        PIX_CLIENT_SECRET_FILE: path.join(dir, "secret"),
      });
      for (const k of ["PIX_CERT_FILE", "PIX_KEY_FILE", "PIX_CLIENT_SECRET"]) delete process.env[k];
      resetEnvForTests();
      const { order } = await createPix(apiKey, { value: 6 });
      expect(psp.charges.get(order.txid!)?.status).toBe("ATIVA");

      // A certificate the PSP never issued: the handshake fails, and the endpoint answers its 500.
      for (const k of ["PIX_PFX_FILE", "PIX_PFX_PASSPHRASE_FILE"]) delete process.env[k];
      Object.assign(process.env, { PIX_CERT_FILE: psp.files.untrustedCert, PIX_KEY_FILE: psp.files.untrustedKey });
      resetEnvForTests();
      const refused = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 6 } });
      expect(refused.status).toBe(500);
      expect(refused.body.message).toMatch(/^PIX provider unavailable/);
    } finally {
      for (const k of ["PIX_PFX_FILE", "PIX_PFX_PASSPHRASE_FILE", "PIX_CLIENT_SECRET_FILE"]) delete process.env[k];
      liveEnv();
    }
  });

  it("the PSP failing (503 twice) is retried; a token revoked early is replaced; an answer lost after the charge was made finds that charge", async () => {
    const { apiKey } = await liveMerchant();
    psp.faults.failNext = [{ path: /\/cob\//, status: 503, count: 2 }];
    const first = await createPix(apiKey, { value: 1 });
    expect(psp.charges.get(first.order.txid!)?.status).toBe("ATIVA");

    const tokens = psp.tokensIssued;
    psp.faults.expireTokensNow = true;
    await createPix(apiKey, { value: 2 });
    expect(psp.tokensIssued).toBe(tokens + 1);
    psp.faults.expireTokensNow = false;

    // The charge is made, then the answer comes after our timeout: the retry meets the same charge.
    psp.faults.delayNext = [{ path: /\/cob\//, ms: 2500, count: 1 }];
    const slow = await createPix(apiKey, { value: 3 });
    expect(
      [...psp.charges.values()].filter((c) => c.valor.original === "3.00" && c.txid === slow.order.txid),
    ).toHaveLength(1);
  });

  it("a PSP that stays down answers create-PIX with the endpoint's 500, and nothing is written", async () => {
    const { merchant, apiKey } = await liveMerchant();
    psp.faults.failNext = [{ path: /\/cob\//, status: 503, count: 3 }];
    const before = (await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).length;
    const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 5 } });
    expect(res.status).toBe(500);
    expect(specOf(res.body)).toEqual({
      message: expect.stringMatching(/^PIX provider unavailable \(create the charge\): HTTP 503/),
    });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toHaveLength(before);
  });

  it("a charge the PSP refuses is the create-PIX 400 with details, naming the PSP's problem", async () => {
    const { merchant, apiKey } = await liveMerchant();
    psp.faults.failNext = [{ path: /\/cob\//, status: 400, count: 1 }];
    const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 8 } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.stringMatching(/^The PIX provider refused the charge: .*Falha injetada pelo teste \(400\)/),
      details: { pixKey: merchant.pixKey, identifier: merchant.id },
    });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });
});

describe("refunds of live PIX orders: API Pix devoluções", () => {
  async function paidOrder(value: number) {
    const { merchant, apiKey } = await liveMerchant();
    const { order } = await createPix(apiKey, { value });
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(order.txid!);
    psp.faults.dropNotifications = false;
    await reconcileReceivedPix();
    expect((await orderStatus(order.id)).status).toBe("COMPLETED");
    return { merchant, apiKey, order, pix };
  }

  it("a full refund is a devolução of the PIX, with our id; DEVOLVIDO → COMPLETED and the order REFUND", async () => {
    await stopWorker();
    const { merchant, apiKey, order, pix } = await paidOrder(20);
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, {
      apiKey,
      body: { reason: "Produto devolvido" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.refund).toMatchObject({ orderId: order.id, value: 20, status: "COMPLETED" });
    const devolucao = psp.received.get(pix.endToEndId)!.devolucoes![0];
    expect(devolucao).toMatchObject({
      id: res.body.refund.id.replace(/-/g, ""),
      valor: "20.00",
      descricao: "Produto devolvido",
      status: "DEVOLVIDO",
    });
    expect((await orderStatus(order.id)).status).toBe("REFUND");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("EM_PROCESSAMENTO stays PENDING; the PSP's notification when it settles completes it", async () => {
    const { merchant, apiKey, order, pix } = await paidOrder(30);
    await startWorker();
    psp.faults.refundOutcome = () => "EM_PROCESSAMENTO";
    try {
      const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: { value: 30 } });
      expect(res.body.refund.status).toBe("PENDING");
      expect(await balanceMatchesLedger(merchant.id)).toBe(0);
      await psp.settleRefund(pix.endToEndId, res.body.refund.id.replace(/-/g, ""), "DEVOLVIDO");
      await waitFor(
        "REFUND",
        () => orderStatus(order.id),
        (o) => o.status === "REFUND",
      );
    } finally {
      psp.faults.refundOutcome = () => "DEVOLVIDO";
    }
  });

  it("NAO_REALIZADO fails the refund and credits the merchant back; the order stays COMPLETED", async () => {
    await stopWorker();
    const { merchant, apiKey, order } = await paidOrder(15);
    psp.faults.refundOutcome = () => "NAO_REALIZADO";
    try {
      const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
      expect(res.body.refund.status).toBe("FAILED");
      expect((await orderStatus(order.id)).status).toBe("COMPLETED");
      expect(await balanceMatchesLedger(merchant.id)).toBe(1500);
    } finally {
      psp.faults.refundOutcome = () => "DEVOLVIDO";
    }
  });
});

describe("live PIX payouts through Efí", () => {
  it("a pix-out goes out once, even when the PSP's answer is lost after it paid", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant(100_000);
    psp.faults.loseNextPayoutResponse = 1;
    const madeBefore = psp.payoutsMade;
    const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, res.body.id));
    // The answer was lost: nothing is decided, and nothing is paid twice.
    for (let i = 0; i < 3 && (await payoutRow(payout.id)).status !== "completed"; i++)
      await advancePayout(payout.id, { withdrawal: onWithdrawalPayout });
    expect((await payoutRow(payout.id)).status).toBe("completed");
    expect(psp.payoutsMade - madeBefore, JSON.stringify(psp.requests.filter((r) => r.path.includes("/gn/")))).toBe(1);
    expect([...psp.payouts.values()].filter((p) => p.idEnvio === providerPayoutId(payout))).toHaveLength(1);
    const [w] = await db().select().from(withdrawals).where(eq(withdrawals.id, res.body.id));
    expect(w.status).toBe("COMPLETED");
    await balanceMatchesLedger(merchant.id);
  });

  it("a payout the PSP says was not made (NAO_REALIZADO) fails the withdrawal and credits it back", async () => {
    const { merchant, apiKey } = await liveMerchant(100_000);
    psp.faults.payoutOutcome = () => "NAO_REALIZADO";
    try {
      const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 50 } });
      const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, res.body.id));
      for (let i = 0; i < 3 && (await payoutRow(payout.id)).status !== "failed"; i++)
        await advancePayout(payout.id, { withdrawal: onWithdrawalPayout });
      const [w] = await db().select().from(withdrawals).where(eq(withdrawals.id, res.body.id));
      expect(w.status).toBe("FAILED");
      expect(await balanceMatchesLedger(merchant.id)).toBe(100_000);
    } finally {
      psp.faults.payoutOutcome = () => "REALIZADO";
    }
  });
});

async function payoutRow(id: string) {
  const [row] = await db().select().from(pixPayouts).where(eq(pixPayouts.id, id));
  return row;
}

describe("live Crypto-PIX: crypto on a node, the PIX through Efí paying the BR Code", () => {
  let anvil: Anvil;
  let rates: ProviderServer;
  let restore: () => void;
  let token: Hex;
  const payer = account(5);

  beforeAll(async () => {
    await stopWorker();
    anvil = await startAnvil();
    rates = await startProviderServer();
    token = await anvil.deployToken(18, "USDT");
    await anvil.mint(token, payer.address, 10n ** 24n);
    const chain = await useLocalChain(
      anvil,
      ["bsc"],
      { bsc: { USDT: { address: token, decimals: 18 } } },
      { ALLOW_TEST_CHAINS: "true", RATES_URL: `${rates.url}/api/v3` },
    );
    restore = chain.restore;
  });

  afterAll(async () => {
    restore?.();
    liveEnv();
    await anvil?.stop();
    await rates?.close();
  });

  it("the payer's tokens confirmed → the BR Code is paid through PUT /v2/gn/pix/{idEnvio}/qrcode → COMPLETED, once", async () => {
    const { apiKey } = await liveMerchant();
    const qrcode = encodeStaticBrCode({
      pixKey: "padaria@example.com",
      merchantName: "Padaria Pao Quente",
      merchantCity: "Sao Paulo",
      amountCentavos: 5432,
    });
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [payment] = await db()
      .select()
      .from(cryptoPixPayments)
      .where(eq(cryptoPixPayments.address, res.body.data.address));
    await anvil.transfer(token, payer, payment.address as Hex, toBaseUnits(payment.cryptoAmount, 18));
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("bsc");
    const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, payment.id));
    expect(payout).toMatchObject({ purpose: "crypto_pix", brcode: qrcode, valueCentavos: 5432 });
    for (let i = 0; i < 3 && (await payoutRow(payout.id)).status !== "completed"; i++)
      await advancePayout(payout.id, { crypto_pix: onCryptoPixPayout });
    const [after] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, payment.id));
    expect(after.status).toBe("COMPLETED");
    const sent = psp.payouts.get(providerPayoutId(payout))!;
    expect(sent).toMatchObject({
      valor: "54.32",
      chave: PAYOUT_KEY,
      status: "REALIZADO",
      favorecido: { chave: "padaria@example.com" },
    });
    expect(
      psp.requests.some((r) => r.method === "PUT" && r.path === `/v2/gn/pix/${providerPayoutId(payout)}/qrcode`),
    ).toBe(true);
  });
  it("a dynamic BR Code is read through Efí (POST /v2/gn/qrcodes/detalhar): its charge's amount is quoted, its key paid, and the payment closes before the charge does", async () => {
    const { apiKey } = await liveMerchant();
    const charge = psp.issueForeignCharge({ chave: "loja@example.com", valor: "87.65", expiracao: 1800 });
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: { qrcode: charge.pixCopiaECola, network: "bsc" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(psp.requests.some((r) => r.method === "POST" && r.path === "/v2/gn/qrcodes/detalhar")).toBe(true);
    const [payment] = await db()
      .select()
      .from(cryptoPixPayments)
      .where(eq(cryptoPixPayments.address, res.body.data.address));
    expect(payment).toMatchObject({ valueCentavos: 8765, pixKey: "loja@example.com", pixTxid: charge.txid });
    // 30 minutes at the PSP: our payment closes two minutes before the charge does.
    expect(Date.parse(charge.calendario.criacao) + 1800_000 - payment.expiresAt.getTime()).toBeGreaterThanOrEqual(
      119_000,
    );

    await anvil.transfer(token, payer, payment.address as Hex, toBaseUnits(payment.cryptoAmount, 18));
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("bsc");
    const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, payment.id));
    for (let i = 0; i < 3 && (await payoutRow(payout.id)).status !== "completed"; i++)
      await advancePayout(payout.id, { crypto_pix: onCryptoPixPayout });
    expect(psp.payouts.get(providerPayoutId(payout))).toMatchObject({
      valor: "87.65",
      favorecido: { chave: "loja@example.com" },
      status: "REALIZADO",
    });
    expect(charge.status).toBe("CONCLUIDA");
  });

  it("a dynamic BR Code that was paid, has expired or cannot be read is the endpoint's 400, and nothing is written", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const paid = psp.issueForeignCharge({ chave: "loja@example.com", valor: "10.00" });
    paid.status = "CONCLUIDA";
    const expired = psp.issueForeignCharge({ chave: "loja@example.com", valor: "10.00", expiracao: 60 });
    const closing = psp.issueForeignCharge({ chave: "loja@example.com", valor: "10.00", expiracao: 240 });
    const cases: [string, RegExp][] = [
      [paid.pixCopiaECola, /^This PIX QR code can no longer be paid/],
      // A location the PSP cannot resolve: Efí's 400 "A chave do recebedor não foi encontrada".
      [
        dynamicBrCode({ location: "qr.outro-psp.example/v2/9f1c2e", merchantName: "Loja", merchantCity: "Natal" }),
        /^Invalid PIX QR code: the PSP cannot read it/,
      ],
      [closing.pixCopiaECola, /^This PIX QR code expires at .*: too soon to be paid with crypto$/],
    ];
    expired.calendario.criacao = new Date(Date.now() - 120_000).toISOString();
    cases.push([expired.pixCopiaECola, /^This PIX QR code can no longer be paid/]);
    for (const [qrcode, message] of cases) {
      const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.merchantId, merchant.id))).toEqual(
      [],
    );
  });

  it("the PIX's answer lost, the read lagging and the repeat refused 409: the payer's crypto is never sent back, and the payment completes once", async () => {
    const { apiKey } = await liveMerchant();
    const qrcode = encodeStaticBrCode({
      pixKey: "mercado@example.com",
      merchantName: "Mercado Bom Preco",
      merchantCity: "Recife",
      amountCentavos: 3210,
    });
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [payment] = await db()
      .select()
      .from(cryptoPixPayments)
      .where(eq(cryptoPixPayments.address, res.body.data.address));
    psp.faults.loseNextPayoutResponse = 1;
    psp.faults.readLagMs = 1200;
    const made = psp.payoutsMade;
    await anvil.transfer(token, payer, payment.address as Hex, toBaseUnits(payment.cryptoAmount, 18));
    await anvil.mine(CONFIRMATIONS);
    await watchDeposits("bsc");
    const [payout] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, payment.id));
    const owners = { crypto_pix: onCryptoPixPayout };
    for (let i = 0; i < 3; i++) await advancePayout(payout.id, owners);
    const idEnvio = providerPayoutId(payout);
    expect(psp.requests.filter((r) => r.method === "PUT" && r.path.includes(idEnvio)).map((r) => r.status)).toContain(
      409,
    );
    const [waiting] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, payment.id));
    expect(waiting).toMatchObject({ status: payment.status, refundStatus: null });
    await new Promise((r) => setTimeout(r, 1300));
    for (let i = 0; i < 3 && (await payoutRow(payout.id)).status !== "completed"; i++)
      await advancePayout(payout.id, owners);
    const [after] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, payment.id));
    expect(after).toMatchObject({ status: "COMPLETED", refundStatus: null });
    expect(psp.payoutsMade - made).toBe(1);
  });
});

describe("a live server without PIX configured", () => {
  afterAll(() => liveEnv());

  it("answers each PIX rail's endpoint with its 400 naming what to set, in the endpoint's shape, and writes nothing", async () => {
    const { merchant, apiKey } = await liveMerchant(10_000);
    for (const k of [
      "PIX_API_URL",
      "PIX_PAYOUT_PROVIDER",
      "PIX_PAYOUT_KEY",
      "PIX_CLIENT_ID",
      "PIX_CLIENT_SECRET",
      "PIX_CERT_FILE",
      "PIX_KEY_FILE",
    ])
      delete process.env[k];
    resetEnvForTests();
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
    expect(pix.status).toBe(400);
    expect(specOf(pix.body)).toEqual({
      message:
        "PIX collection is not enabled on this server: set PIX_API_URL, PIX_CLIENT_ID, PIX_CLIENT_SECRET and the PSP's certificate (PIX_CERT_FILE + PIX_KEY_FILE, or PIX_PFX_FILE)",
    });
    const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } });
    expect(out.status).toBe(400);
    expect(specOf(out.body)).toEqual({
      message: "PIX withdrawals are not enabled on this server: set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY",
      error: { details: "PIX withdrawals are not enabled on this server: set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY" },
    });
    const exchange = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 10 } });
    expect(exchange.status).toBe(400);
    expect(specOf(exchange.body)).toEqual({
      success: false,
      error:
        "Exchange-wallet payments are not enabled on this server: set BINANCE_PAY_API_KEY and BINANCE_PAY_SECRET_KEY",
    });
    // The receiver does not exist without PIX.
    expect(await postToReceiver(psp, `${receiverBase}/pix`, { pix: [] })).toBe(404);
    expect(await postToReceiver(psp, receiverBase, { evento: "teste_webhook" })).toBe(404);
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
    expect(await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id))).toEqual([]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);
  });
});
