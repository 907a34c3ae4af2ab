import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { auditEvents, mailOutbox, orders, pixPayouts, pixReceipts, reconMismatches, reconRuns } from "@/db/schema";
import { attentionList } from "@/lib/attention/attention";
import { resetEnvForTests } from "@/lib/env";
import { saoPauloDay } from "@/lib/money";
import { advancePayout, providerPayoutId } from "@/lib/payouts/machine";
import { confirmNotifiedPix } from "@/lib/pix-collection/notifications";
import { registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { reconcile } from "@/lib/reconciliation/daily";
import { listMismatches, resolveMismatch } from "@/lib/reconciliation/mismatches";
import { onWithdrawalPayout } from "@/lib/withdrawals/service";
import { resolveMoneyOut } from "@/lib/worker/operator";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api, balanceMatchesLedger, liveMerchant } from "./helpers";

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
const saved = { ...process.env };
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
  Object.assign(process.env, pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, webhookToken: WEBHOOK_TOKEN }), {
    OPERATOR_ALERT_EMAIL: OPERATOR,
  });
  resetEnvForTests();
  await registerPixWebhooks(`${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`);
});

afterEach(() => {
  expect(psp.violations).toEqual([]);
});

afterAll(async () => {
  await receiver.close();
  await psp.close();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
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
    const ours = <T extends { merchantId: string | null; ref: string }>(rows: T[]) => rows.filter((m) => m.merchantId === merchant.id || m.ref === elsewhere.idEnvio);
    const found = ours((await listMismatches()).filter((m) => m.day === day));
    const byKind = Object.fromEntries(found.map((m) => [m.kind, m]));
    expect(found.map((m) => m.kind).sort()).toEqual(["amount_differs", "missing_here", "missing_there", "state_differs"]);
    expect(byKind.amount_differs).toMatchObject({ source: "pix_received", ref: paid.endToEndId, merchantId: merchant.id });
    expect(byKind.missing_here).toMatchObject({ source: "pix_sent", ref: elsewhere.idEnvio, merchantId: null });
    expect(byKind.missing_there).toMatchObject({ source: "pix_sent", ref: providerPayoutId(never), merchantId: merchant.id });
    expect(byKind.state_differs).toMatchObject({ source: "pix_sent", ref: providerPayoutId(made), detail: "ours is failed, the provider's COMPLETED" });
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
    const listed = (await attentionList()).filter((a) => a.kind === "recon_mismatch");
    for (const m of found) expect(listed.some((a) => a.id === m.id)).toBe(true);
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, OPERATOR));
    for (const m of found) expect(mails.filter((x) => x.subject.includes(m.id))).toHaveLength(1);

    // Resolved with a note: audited, off the open list and the attention list.
    await resolveMismatch(byKind.missing_here.id, "Efí portal payment by finance, ticket 123");
    expect((await listMismatches()).some((m) => m.id === byKind.missing_here.id)).toBe(false);
    expect((await attentionList()).some((a) => a.id === byKind.missing_here.id)).toBe(false);
    const [trail] = await db().select().from(auditEvents).where(eq(auditEvents.target, byKind.missing_here.id));
    expect(trail).toMatchObject({ action: "recon.mismatchResolved", details: { note: "Efí portal payment by finance, ticket 123", kind: "missing_here" } });
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
    expect(m).toMatchObject({ kind: "missing_here", detail: "we had no record of it: applied now by reconciliation", merchantId: merchant.id });
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
