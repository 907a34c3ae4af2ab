import { and, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import {
  auditEvents,
  events,
  ledgerEntries,
  mailOutbox,
  orderRefunds,
  orders,
  pixPayouts,
  withdrawals,
} from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { setLoggerForTests } from "@/lib/log";
import { attentionCounts, attentionList } from "@/lib/attention/attention";
import { resendMoneyOut, resolveMoneyOut } from "@/lib/worker/operator";
import { advancePayout, providerPayoutId } from "@/lib/pix-payouts/machine";
import { confirmNotifiedPix } from "@/lib/pix-collection/confirm";
import { reconcileReceivedPix } from "@/lib/pix-collection/reconcile";
import { registerPixWebhook, registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { advanceRefund } from "@/lib/refunds/machine";
import { startWorker, stopWorker } from "@/lib/worker";
import { onWithdrawalPayout } from "@/lib/withdrawals/service";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { postToReceiver, startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api, captureLogs } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";

// Money that leaves, against a PSP that answers as the Central Bank's API Pix document and Efí's
// documentation say, no kinder (docs/providers.md, "Documented behaviours"): a repeated devolução id is
// a 400, a reused idEnvio a 409, reads lag the writes, 5xx come after the work was done, 429s carry
// Retry-After, webhooks are registered through Efí's handshake and payout outcomes come back as
// SOLICITACAO notifications. Whatever the order of those, money goes back only when the PSP says the
// payment was not made, and the balance always equals the ledger.

const RECEIVER_KEY = "0f3b8e0e-7a64-4f5e-9d0b-4a8a3c1e2f55";
const PAYOUT_KEY = "saidas@pixcrypto.example";
const WEBHOOK_TOKEN = "live-money-out-webhook-token-0123456789";
const LAG_MS = 1200;

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

const owners = { withdrawal: onWithdrawalPayout };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function payoutOf(withdrawalId: string) {
  const [row] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, withdrawalId));
  return row;
}
async function withdrawalStatus(id: string) {
  const [w] = await db().select().from(withdrawals).where(eq(withdrawals.id, id));
  return w.status;
}
async function ledgerKinds(merchantId: string) {
  return (
    await db().select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.merchantId, merchantId))
  ).map((r) => r.kind);
}
/** Moves a payout forward until it is final (Efí answers a send EM_PROCESSAMENTO; a read tells the rest). */
async function untilFinal(payoutId: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await advancePayout(payoutId, owners)) return true;
  return false;
}
const puts = (idEnvio: string) =>
  psp.requests.filter((r) => r.method === "PUT" && r.path.includes(`/gn/pix/${idEnvio}`));

/** A pix-out, recorded and not sent yet (its job sends it; with the worker stopped, the test does). */
async function pixOut(balance: number, value: number) {
  const { merchant, apiKey } = await liveMerchant(balance);
  const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const payout = await payoutOf(res.body.id);
  return { merchant, withdrawalId: res.body.id as string, payout, idEnvio: providerPayoutId(payout) };
}

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  receiver = await startHttpsReceiver(psp, { mtls: "skip" });
  receiverBase = `${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`;
  liveEnv();
  await registerPixWebhooks(receiverBase);
});

afterEach(() => {
  expect(psp.violations).toEqual([]);
  Object.assign(psp.faults, {
    dropNotifications: false,
    failNext: [],
    rateLimitNext: [],
    loseNext: [],
    readLagMs: 0,
    loseNextPayoutResponse: 0,
    payoutOutcome: () => "REALIZADO",
    refundOutcome: () => "DEVOLVIDO",
  });
});

afterAll(async () => {
  await stopWorker();
  await receiver.close();
  await psp.close();
  savedEnv.restore();
});

describe("a devolução whose answer was lost (API Pix)", () => {
  it("is asked again with its id; the PSP's 400 'id já utilizado' leaves it PENDING, never FAILED; once the read catches up: COMPLETED, debited once", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 20 } });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(order.txid!);
    await reconcileReceivedPix();

    psp.faults.loseNext = [{ path: /\/devolucao\//, count: 1 }];
    psp.faults.readLagMs = LAG_MS;
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The devolução was made at the PSP; its answer never came.
    expect(res.body.refund.status).toBe("PENDING");
    const refundId = res.body.refund.id as string;
    expect(psp.received.get(pix.endToEndId)!.devolucoes![0]).toMatchObject({
      id: refundId.replace(/-/g, ""),
      status: "DEVOLVIDO",
    });

    // Read back: not there yet (the read lags), so it is asked again with the same id: the document's 400.
    expect(await advanceRefund(refundId)).toBe(false);
    const repeats = psp.requests.filter((r) => r.method === "PUT" && r.path.includes("/devolucao/"));
    expect(repeats.map((r) => r.status)).toEqual([0, 400]);
    const [pending] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
    expect(pending.status).toBe("PENDING");
    expect(await ledgerKinds(merchant.id)).not.toContain("refund_reversal");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);

    await sleep(LAG_MS + 100);
    expect(await advanceRefund(refundId)).toBe(true);
    const [done] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
    expect(done.status).toBe("COMPLETED");
    const [after] = await db().select().from(orders).where(eq(orders.id, order.id));
    expect(after.status).toBe("REFUND");
    expect(await ledgerKinds(merchant.id)).not.toContain("refund_reversal");
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    const changes = await db()
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.subjectId, order.id), eq(events.type, "refund.status_changed")));
    expect(changes.map((c) => (c.data as { status: string }).status)).toEqual(["PENDING", "COMPLETED"]);
  });

  it("a refusal of the first request is the PSP's 'not made': FAILED and credited back", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 9 } });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    psp.faults.dropNotifications = true;
    await psp.pay(order.txid!);
    await reconcileReceivedPix();
    psp.faults.failNext = [{ path: /\/devolucao\//, status: 400, count: 1 }];
    const res = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
    expect(res.body.refund.status).toBe("FAILED");
    expect(await ledgerKinds(merchant.id)).toContain("refund_reversal");
    expect(await balanceMatchesLedger(merchant.id)).toBe(900);
  });
});

describe("a pix-out through Efí", () => {
  it("sends on PUT /v3/gn/pix/{idEnvio}, as Efí's current SDK; PIX_PAYOUT_SEND_VERSION=v2 sends on v2", async () => {
    await stopWorker();
    const v3 = await pixOut(10_000, 500);
    expect(await untilFinal(v3.payout.id)).toBe(true);
    expect(puts(v3.idEnvio).map((r) => r.path)).toEqual([`/v3/gn/pix/${v3.idEnvio}`]);
    expect(await withdrawalStatus(v3.withdrawalId)).toBe("COMPLETED");
    liveEnv({ PIX_PAYOUT_SEND_VERSION: "v2" });
    try {
      const v2 = await pixOut(10_000, 500);
      expect(await untilFinal(v2.payout.id)).toBe(true);
      expect(puts(v2.idEnvio).map((r) => r.path)).toEqual([`/v2/gn/pix/${v2.idEnvio}`]);
    } finally {
      delete process.env.PIX_PAYOUT_SEND_VERSION;
      liveEnv();
    }
  });

  it("answer lost, read lagging (404), the repeat refused 409 id_envio_duplicado: PENDING, never credited back; COMPLETED once the read catches up; paid once", async () => {
    await stopWorker();
    psp.faults.loseNextPayoutResponse = 1;
    psp.faults.readLagMs = LAG_MS;
    const made = psp.payoutsMade;
    const { merchant, withdrawalId, payout, idEnvio } = await pixOut(100_000, 100);
    // Sent; the PIX is made at Efí; the answer never comes.
    expect(await advancePayout(payout.id, owners)).toBe(false);
    expect(await withdrawalStatus(withdrawalId)).toBe("PENDING");
    // Read back: not there yet; sent again with the same idEnvio: 409.
    expect(await advancePayout(payout.id, owners)).toBe(false);
    expect(puts(idEnvio).map((r) => r.status)).toEqual([0, 409]);
    expect(await withdrawalStatus(withdrawalId)).toBe("PENDING");
    expect(await ledgerKinds(merchant.id)).not.toContain("withdrawal_reversal");

    await sleep(LAG_MS + 100);
    expect(await advancePayout(payout.id, owners)).toBe(true);
    expect(await withdrawalStatus(withdrawalId)).toBe("COMPLETED");
    expect(psp.payoutsMade - made).toBe(1);
    expect(await ledgerKinds(merchant.id)).not.toContain("withdrawal_reversal");
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000 - 100);
  });

  it("Efí's 500 erro_aplicacao after the PIX went out decides nothing: read back → COMPLETED, paid once", async () => {
    await stopWorker();
    psp.faults.failNext = [{ path: /\/gn\/pix\/[a-zA-Z0-9]+$/, status: 500, count: 1, afterWork: true }];
    const made = psp.payoutsMade;
    const { merchant, withdrawalId, payout } = await pixOut(50_000, 250);
    expect(await advancePayout(payout.id, owners)).toBe(false);
    expect(await withdrawalStatus(withdrawalId)).toBe("PENDING");
    expect(await advancePayout(payout.id, owners)).toBe(true);
    expect(await withdrawalStatus(withdrawalId)).toBe("COMPLETED");
    expect(psp.payoutsMade - made).toBe(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(50_000 - 250);
  });

  it("500 erro_aplicacao on every send, nothing made: sent MONEY_OUT_MAX_SENDS times, then read only; PENDING (never credited back) and an operator alerted", async () => {
    await stopWorker();
    liveEnv({ MONEY_OUT_MAX_SENDS: "3", OPERATOR_ALERT_EMAIL: "ops@pixcrypto.example" });
    try {
      psp.faults.failNext = [{ path: /\/gn\/pix\/[a-zA-Z0-9]+$/, status: 500, count: 100 }];
      const { merchant, withdrawalId, payout, idEnvio } = await pixOut(50_000, 300);
      for (let i = 0; i < 6; i++) {
        await advancePayout(payout.id, owners);
        // The next try may come at once (a test's clock, not the job's backoff).
        await db().update(pixPayouts).set({ leaseUntil: null }).where(eq(pixPayouts.id, payout.id));
      }
      expect(puts(idEnvio)).toHaveLength(3);
      expect(await withdrawalStatus(withdrawalId)).toBe("PENDING");
      expect(await ledgerKinds(merchant.id)).not.toContain("withdrawal_reversal");
      const row = await payoutOf(withdrawalId);
      expect(row.attention).toMatch(/sent 3 times/);
      expect((await attentionCounts()).pix_payout).toBeGreaterThanOrEqual(1);
      const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "ops@pixcrypto.example"));
      expect(mails.filter((m) => m.subject.includes(payout.id))).toHaveLength(1);
      expect((await attentionList(db(), 100_000)).map((a) => a.id)).toContain(payout.id);
      expect(await balanceMatchesLedger(merchant.id)).toBe(50_000 - 300);

      // The operator asks Efí, then lets it be sent once more: one more PUT, same idEnvio.
      await resendMoneyOut("payout", payout.id, "Efí support: no record of this idEnvio");
      await advancePayout(payout.id, owners);
      expect(puts(idEnvio)).toHaveLength(4);
      expect(await withdrawalStatus(withdrawalId)).toBe("PENDING");
      // Efí confirms in writing that it was never made: the money goes back, audited, nothing left to look at.
      await resolveMoneyOut("payout", payout.id, "not-made", "Efí ticket 4711: not made");
      expect(await withdrawalStatus(withdrawalId)).toBe("FAILED");
      expect((await payoutOf(withdrawalId)).attention).toBeNull();
      const trail = await db().select().from(auditEvents).where(eq(auditEvents.target, payout.id));
      expect(trail.map((t) => t.action).sort()).toEqual(["payout.resentByOperator", "payout.resolvedByOperator"]);
      expect(await balanceMatchesLedger(merchant.id)).toBe(50_000);
    } finally {
      for (const k of ["MONEY_OUT_MAX_SENDS", "OPERATOR_ALERT_EMAIL"]) delete process.env[k];
      liveEnv();
    }
  });

  it("a 429 with Retry-After: the payout is not sent again before it; then it goes out once", async () => {
    await stopWorker();
    psp.faults.rateLimitNext = [{ path: /\/gn\/pix\/[a-zA-Z0-9]+$/, count: 1, retryAfterSeconds: 30 }];
    const { withdrawalId, payout, idEnvio } = await pixOut(20_000, 100);
    expect(await advancePayout(payout.id, owners)).toBe(false);
    const held = await payoutOf(withdrawalId);
    expect(held.leaseUntil!.getTime() - Date.now()).toBeGreaterThan(25_000);
    expect(await advancePayout(payout.id, owners)).toBe(false);
    expect(puts(idEnvio).map((r) => r.status)).toEqual([429]);
    // Thirty seconds later (the lease is what holds it):
    await db()
      .update(pixPayouts)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(pixPayouts.id, payout.id));
    expect(await untilFinal(payout.id)).toBe(true);
    expect(await withdrawalStatus(withdrawalId)).toBe("COMPLETED");
    expect(puts(idEnvio).map((r) => r.status)).toEqual([429, 201]);
  });

  it("its outcome, notified as SOLICITACAO at the payer key's webhook, wakes the payout to be read back; never read as a PIX received", async () => {
    const lines = captureLogs();
    try {
      await startWorker();
      psp.faults.payoutOutcome = () => "EM_PROCESSAMENTO";
      const { merchant, withdrawalId, idEnvio } = await pixOut(30_000, 700);
      await waitFor(
        "processing",
        async () => (await payoutOf(withdrawalId)).status,
        (s) => s === "processing",
      );
      psp.settlePayout(idEnvio, "NAO_REALIZADO");
      await psp.idle();
      const { ms } = await waitFor(
        "FAILED",
        () => withdrawalStatus(withdrawalId),
        (s) => s === "FAILED",
      );
      console.log(`SOLICITACAO notification → withdrawal FAILED: ${Math.round(ms)} ms`);
      const notice = psp.payoutNotifications.at(-1)!;
      expect(notice.status).toBe(200);
      const e2e = psp.payouts.get(idEnvio)!.endToEndId;
      expect((notice.body.pix[0] as { tipo: string; gnExtras: { idEnvio: string } }).gnExtras.idEnvio).toBe(idEnvio);
      // Not a payment to us: no read of it as a received PIX, nothing logged as forged.
      expect(psp.requests.some((r) => r.method === "GET" && r.path.endsWith(`/pix/${e2e}`))).toBe(false);
      expect(lines.some((l) => l.includes("unknown to the PSP"))).toBe(false);
      expect(await ledgerKinds(merchant.id)).toContain("withdrawal_reversal");
      expect(await balanceMatchesLedger(merchant.id)).toBe(30_000);
    } finally {
      setLoggerForTests(undefined);
      await stopWorker();
    }
  });
});

describe("Efí's webhook registration", () => {
  it("answers Efí's test POST at the URL as registered, and registers the payout key's webhook too", () => {
    expect(psp.webhooks.get(RECEIVER_KEY)).toBe(receiverBase);
    expect(psp.webhooks.get(PAYOUT_KEY)).toBe(receiverBase);
    // x-skip-mtls-checking: true (PIX_WEBHOOK_MTLS=skip, the default): no probe, the test POST answered 2xx.
    expect(psp.handshakes.filter((h) => h.url === receiverBase)).toEqual([
      { url: receiverBase, withCertificate: true, status: 200 },
      { url: receiverBase, withCertificate: true, status: 200 },
    ]);
  });

  it("PIX_WEBHOOK_MTLS=proxy: Efí's call without a client certificate must be refused in front of us", async () => {
    const mtls = await startHttpsReceiver(psp, { mtls: "proxy" });
    liveEnv({ PIX_WEBHOOK_MTLS: "proxy" });
    try {
      const url = `${mtls.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`;
      await registerPixWebhook(url, RECEIVER_KEY);
      expect(psp.handshakes.filter((h) => h.url === url)).toEqual([
        { url, withCertificate: false, status: 0 },
        { url, withCertificate: true, status: 200 },
      ]);
      // A URL that takes anyone is refused by Efí when it is asked to check.
      await expect(registerPixWebhook(receiverBase, RECEIVER_KEY)).rejects.toThrow(
        /A autenticação de TLS mútuo não está configurada/,
      );
    } finally {
      delete process.env.PIX_WEBHOOK_MTLS;
      liveEnv();
      await registerPixWebhooks(receiverBase);
      await mtls.close();
    }
  });
});

describe("the PIX receiver", () => {
  it("one item it cannot read does not hold back the others in the batch", async () => {
    await stopWorker();
    const { merchant, apiKey } = await liveMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 4.5 } });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(order.txid!);
    // Efí's own examples carry 26-character end-to-end ids.
    expect(
      await postToReceiver(psp, `${receiverBase}/pix`, {
        pix: [{ endToEndId: "E1803615022211340s08793XPJ", valor: "1.00" }, 42, pix],
      }),
    ).toBe(200);
    await waitFor(
      "COMPLETED",
      async () => (await db().select().from(orders).where(eq(orders.id, order.id)))[0].status,
      (s) => s === "COMPLETED",
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(450);
  });

  it("a 429 from the PSP is retried after its Retry-After, not sooner", async () => {
    const { apiKey } = await liveMerchant();
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 3 } });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    psp.faults.dropNotifications = true;
    const pix = await psp.pay(order.txid!);
    psp.faults.rateLimitNext = [{ path: new RegExp(`/pix/${pix.endToEndId}$`), count: 1, retryAfterSeconds: 1 }];
    const start = performance.now();
    expect(await confirmNotifiedPix(pix.endToEndId)).toMatchObject({ applied: true });
    expect(performance.now() - start).toBeGreaterThanOrEqual(950);
    const reads = psp.requests.filter((r) => r.path.endsWith(`/pix/${pix.endToEndId}`));
    expect(reads.map((r) => r.status)).toEqual([429, 200]);
    expect(reads[1].at - reads[0].at).toBeGreaterThanOrEqual(950);
    const [after] = await db()
      .select()
      .from(orders)
      .where(and(eq(orders.id, order.id), inArray(orders.status, ["COMPLETED"])));
    expect(after).toBeDefined();
  });
});
