import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import {
  events,
  ledgerEntries,
  mailOutbox,
  orders,
  pixReturns,
  users,
  webhookDeliveries,
  webhookEndpoints,
  withdrawals,
} from "@/db/schema";
import { attentionList } from "@/lib/attention/attention";
import { resetEnvForTests } from "@/lib/env";
import { reconcile } from "@/lib/reconciliation/daily";
import { saoPauloDay } from "@/lib/money";
import { backgroundMailSettled } from "@/lib/mail/background";
import { confirmNotifiedPix } from "@/lib/pix-collection/confirm";
import { reconcileReceivedPix, scanReturns } from "@/lib/pix-collection/reconcile";
import { registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { startWorker, stopWorker } from "@/lib/worker";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";

// PIX the payer's bank had returned through the Central Bank's MED, against the test PSP that lists
// such a devolução inside its Pix and notifies it as the API Pix document says (docs/providers.md).
// Whichever way it is found first, the merchant whose order the Pix credited is debited once, even
// below zero; a negative balance refuses withdrawals and refunds until credits cover it.

const RECEIVER_KEY = "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
const PAYOUT_KEY = "med@pixcrypto.example";
const WEBHOOK_TOKEN = "med-test-webhook-token-0123456789abcdef";

let psp: PixPsp;
let receiver: HttpsReceiver;
const savedEnv = saveEnv();

/** A live merchant with an owner (who is mailed) and a webhook endpoint (events fan out to it). */
async function merchantWithTeam(balance = 0) {
  const m = await liveMerchant(balance);
  const email = `owner-${randomUUID().slice(0, 8)}@loja.example`;
  await db().insert(users).values({ merchantId: m.merchant.id, email, passwordHash: "x", role: "owner" });
  await db()
    .insert(webhookEndpoints)
    .values({
      merchantId: m.merchant.id,
      url: "https://hooks.loja.example/payments",
      secret: `whsec_${Buffer.alloc(24, 7).toString("base64")}`,
    });
  return { ...m, email };
}

async function paidPixOrder(apiKey: string, value: number) {
  const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.pixOrder._id));
  const pix = await psp.pay(order.txid!);
  await waitFor(
    "the order COMPLETED",
    async () => (await db().select().from(orders).where(eq(orders.id, order.id)))[0],
    (o) => o.status === "COMPLETED",
  );
  return { order, pix };
}

const medDebits = (merchantId: string) =>
  db()
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.kind, "med_debit")));
const disputedEvents = (orderId: string) =>
  db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, orderId), eq(events.type, "order.disputed")));

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  receiver = await startHttpsReceiver(psp, { mtls: "skip" });
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, webhookToken: WEBHOOK_TOKEN }),
  );
  resetEnvForTests();
  await registerPixWebhooks(`${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`);
  await startWorker();
});

afterEach(() => {
  expect(psp.violations).toEqual([]);
  psp.faults.dropNotifications = false;
});

afterAll(async () => {
  await stopWorker();
  await receiver.close();
  await psp.close();
  savedEnv.restore();
});

describe("MED devoluções", () => {
  it("notified: read back from the PSP, the merchant debited once, order.disputed with its webhook, the owners mailed", async () => {
    const { merchant, email, apiKey } = await merchantWithTeam();
    const { order, pix } = await paidPixOrder(apiKey, 40);
    expect(await balanceMatchesLedger(merchant.id)).toBe(4000);

    await psp.returnUnderMed(pix.endToEndId, { natureza: "MED_FRAUDE", valor: "15.00" });
    await waitFor(
      "the MED debit",
      () => medDebits(merchant.id),
      (rows) => rows.length === 1,
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(2500);
    // The notice was only a hint: the Pix was read back.
    expect(
      psp.requests.filter((r) => r.method === "GET" && r.path.endsWith(`/pix/${pix.endToEndId}`)).length,
    ).toBeGreaterThanOrEqual(2);

    // Found again by a repeated notice, a read and the poll: still once.
    await psp.notify([psp.received.get(pix.endToEndId)!]);
    await confirmNotifiedPix(pix.endToEndId, { returns: true });
    await reconcileReceivedPix();
    expect(await medDebits(merchant.id)).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(2500);

    const [ret] = await db().select().from(pixReturns).where(eq(pixReturns.endToEndId, pix.endToEndId));
    expect(ret).toMatchObject({
      natureza: "MED_FRAUDE",
      status: "DEVOLVIDO",
      valueCentavos: 1500,
      orderId: order.id,
      merchantId: merchant.id,
    });
    // Whichever found it first records it: the notice, or the worker's poll when a loaded machine let the
    // poll run first. Either way the merchant was debited once (above).
    expect(["notification", "poll"]).toContain(ret.source);
    const disputed = await disputedEvents(order.id);
    expect(disputed).toHaveLength(1);
    expect(disputed[0].data).toMatchObject({
      id: order.id,
      status: "COMPLETED",
      dispute: { natureza: "MED_FRAUDE", value: 15, status: "DEVOLVIDO", endToEndId: pix.endToEndId },
    });
    expect(
      await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, disputed[0].id)),
    ).toHaveLength(1);
    // The order page and the payer's receipt show it.
    const { getOrderDetail } = await import("@/lib/dashboard/server/order-detail");
    const { publicPayment } = await import("@/lib/checkout/payment");
    expect((await getOrderDetail(merchant.id, order.id))!.disputes).toMatchObject([
      { valueCentavos: 1500, natureza: "MED_FRAUDE", debited: true },
    ]);
    expect(await publicPayment(order.paymentLinkId)).toMatchObject({ status: "COMPLETED", returned: { value: 15 } });
    await backgroundMailSettled();
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, email));
    const med = mails.find((m) => m.subject.includes("MED"))!;
    // In the catalog's words: no English half, no natureza code.
    expect(med.subject).toMatch(/^PIX devolvido pelo MED: R\$\s15,00$/);
    expect(med.body).toContain("(suspeita de fraude)");
    expect(med.body).not.toMatch(/MED_FRAUDE|returned|debited/);
  });

  it("only visible in GET /pix (no notification): the poll finds it, and so does the scan of older Pix with devoluções", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const first = await paidPixOrder(apiKey, 20);
    const second = await paidPixOrder(apiKey, 30);
    psp.faults.dropNotifications = true;
    await psp.returnUnderMed(first.pix.endToEndId, { natureza: "MED_OPERACIONAL" });
    await psp.returnUnderMed(second.pix.endToEndId, { natureza: "MED_FRAUDE", valor: "10.00" });
    const mentions = (e2e: string) =>
      psp.notifications.filter((n) => JSON.stringify(n.body).includes(e2e) && JSON.stringify(n.body).includes("MED_"));
    expect([...mentions(first.pix.endToEndId), ...mentions(second.pix.endToEndId)]).toHaveLength(0);

    await reconcileReceivedPix();
    expect((await medDebits(merchant.id)).map((e) => e.amountCentavos).sort((a, b) => a - b)).toEqual([-2000, -1000]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(2000);
    const [ret] = await db().select().from(pixReturns).where(eq(pixReturns.endToEndId, first.pix.endToEndId));
    expect(ret).toMatchObject({ natureza: "MED_OPERACIONAL", source: "poll" });

    // The hourly scan of the MED window (devolucaoPresente=true) finds them again and changes nothing.
    await scanReturns(new Date(Date.now() - 90 * 86_400_000), new Date());
    expect(psp.requests.some((r) => r.path.includes("devolucaoPresente=true"))).toBe(true);
    expect(await medDebits(merchant.id)).toHaveLength(2);
    expect(await balanceMatchesLedger(merchant.id)).toBe(2000);
  });

  it("in processing, then returned: debited only once the PSP says DEVOLVIDO", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { pix } = await paidPixOrder(apiKey, 12);
    const d = await psp.returnUnderMed(pix.endToEndId, { status: "EM_PROCESSAMENTO" });
    await waitFor(
      "the devolução recorded",
      () => db().select().from(pixReturns).where(eq(pixReturns.endToEndId, pix.endToEndId)),
      (rows) => rows.length === 1,
    );
    expect(await medDebits(merchant.id)).toHaveLength(0);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1200);
    await psp.settleRefund(pix.endToEndId, d.id, "DEVOLVIDO");
    await waitFor(
      "the MED debit",
      () => medDebits(merchant.id),
      (rows) => rows.length === 1,
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("a devolução we did not request, listed with no natureza (as Efí's SDK typings show it) or made from the PSP's portal: the merchant is debited once, the natureza only names it", async () => {
    const { merchant, apiKey } = await merchantWithTeam();
    const bare = await paidPixOrder(apiKey, 25);
    const portal = await paidPixOrder(apiKey, 30);
    expect(await balanceMatchesLedger(merchant.id)).toBe(5500);

    // No natureza at all, notified inside its Pix: read back, then debited.
    const d = await psp.returnUnderMed(bare.pix.endToEndId, { natureza: null, valor: "10.00" });
    expect(psp.received.get(bare.pix.endToEndId)!.devolucoes!.find((x) => x.id === d.id)).not.toHaveProperty(
      "natureza",
    );
    await waitFor(
      "the debit of the devolução without natureza",
      () => medDebits(merchant.id),
      (rows) => rows.length === 1,
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(4500);

    // ORIGINAL (a devolução made in the PSP's portal), never notified: the poll finds it.
    psp.faults.dropNotifications = true;
    await psp.returnUnderMed(portal.pix.endToEndId, { natureza: "ORIGINAL" });
    await reconcileReceivedPix();
    expect(await medDebits(merchant.id)).toHaveLength(2);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1500);

    // Found again by every path: still once each.
    await confirmNotifiedPix(bare.pix.endToEndId, { returns: true });
    await scanReturns(new Date(Date.now() - 86_400_000), new Date());
    await reconcile({ day: saoPauloDay(), only: "pix_received", again: true });
    expect(await medDebits(merchant.id)).toHaveLength(2);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1500);

    // The natureza names it on the order (its event and page) and the statement; no operator is needed.
    const rows = await db().select().from(pixReturns).where(eq(pixReturns.merchantId, merchant.id));
    expect(rows.map((r) => [r.endToEndId, r.natureza, r.status]).sort()).toEqual(
      [
        [bare.pix.endToEndId, "ORIGINAL", "DEVOLVIDO"],
        [portal.pix.endToEndId, "ORIGINAL", "DEVOLVIDO"],
      ].sort(),
    );
    for (const { order } of [bare, portal]) {
      const disputed = await disputedEvents(order.id);
      expect(disputed).toHaveLength(1);
      expect(disputed[0].data).toMatchObject({
        status: "COMPLETED",
        dispute: { natureza: "ORIGINAL", status: "DEVOLVIDO" },
      });
    }
    expect((await medDebits(merchant.id)).every((e) => /natureza ORIGINAL/.test(e.description ?? ""))).toBe(true);
    const { getOrderDetail } = await import("@/lib/dashboard/server/order-detail");
    expect((await getOrderDetail(merchant.id, bare.order.id))!.disputes).toMatchObject([
      { valueCentavos: 1000, natureza: "ORIGINAL", debited: true },
    ]);
    const ids = new Set(rows.map((r) => r.id));
    expect((await attentionList(db(), 100_000)).filter((a) => a.kind === "pix_return" && ids.has(a.id))).toEqual([]);
  });

  it("after the merchant withdrew everything: the balance goes negative, withdrawals and refunds are refused with their 400, a later payment covers it", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order, pix } = await paidPixOrder(apiKey, 50);
    const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 5000 } });
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    await waitFor(
      "the withdrawal COMPLETED",
      async () => (await db().select().from(withdrawals).where(eq(withdrawals.id, out.body.id)))[0],
      (w) => w.status === "COMPLETED",
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);

    await psp.returnUnderMed(pix.endToEndId, { natureza: "MED_FRAUDE" });
    await waitFor(
      "the MED debit",
      () => medDebits(merchant.id),
      (rows) => rows.length === 1,
    );
    expect(await balanceMatchesLedger(merchant.id)).toBe(-5000);

    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.status).toBe(200);
    expect(account.body.merchant.balance).toBe(-5000);

    const refused = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/Negative balance/);
    expect(refused.body.error).toBeDefined();
    const refund = await api("POST", `/api/v1/order/${order.id}/refund`, { apiKey, body: {} });
    expect(refund.status).toBe(400);
    expect(refund.body).toMatchObject({ success: false });
    expect(await balanceMatchesLedger(merchant.id)).toBe(-5000);

    // The next credit covers what is owed first.
    await paidPixOrder(apiKey, 80);
    expect(await balanceMatchesLedger(merchant.id)).toBe(3000);
    expect((await api("GET", "/api/v1/account", { apiKey })).body.merchant.balance).toBe(3000);
    const after = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 1000 } });
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    expect(await balanceMatchesLedger(merchant.id)).toBe(2000);
  });
});
