import { and, asc, eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/db";
import {
  events,
  ledgerEntries,
  orders,
  pixReceipts,
  sandboxRecurringCharges,
  subscriptionCycles,
  subscriptions,
} from "@/db/schema";
import { setClockForTests } from "@/lib/clock";
import { saoPauloDay, saoPauloDayStart } from "@/lib/day-range";
import { addDays } from "@/lib/pix/business-days";
import { overrideProvidersForTests, providers } from "@/lib/providers";
import { sandboxBank } from "@/lib/providers/recurring/sandbox";
import { followCycle, runSubscriptionEngine } from "@/lib/subscriptions/engine";
import { dueDateOf } from "@/lib/subscriptions/schedule";
import { runSweep } from "@/lib/worker";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

// Subscriptions by Pix Automático in the sandbox (docs/api.md#subscriptions), against the real
// handlers, the engine and PostgreSQL, with the engine's clock moved from day to day: authorised and
// paid at once (journey 3), monthly cycles charged inside their send window, a failed attempt retried
// under PERMITE_3R_7D, cancellations by the payer at the bank and by the merchant, and every credit
// made exactly once whoever runs the engine at the same time.

const today = saoPauloDay();

afterEach(() => {
  setClockForTests(undefined);
  overrideProvidersForTests(undefined);
});

/** Noon in São Paulo on `day`, as the engine's clock. */
const at = (day: string) => setClockForTests(new Date(saoPauloDayStart(day).getTime() + 12 * 3600_000));

function body(extra: Record<string, unknown> = {}) {
  return {
    payer: { name: "Maria Souza", cpf: "529.982.247-25" },
    description: "Plano mensal Academia",
    reference: "contrato-77",
    amount: { type: "FIXED", value: 89.9 },
    periodicity: "MENSAL",
    firstDate: addDays(today, 20),
    retryPolicy: "PERMITE_3R_7D",
    journey: "JORNADA_3",
    ...extra,
  };
}

async function create(apiKey: string, extra: Record<string, unknown> = {}) {
  const res = await api("POST", "/api/v1/subscriptions", { apiKey, body: body(extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription;
}

const get = async (apiKey: string, id: string) => {
  const res = await api("GET", `/api/v1/subscriptions/${id}`, { apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.subscription;
};

const sandbox = (apiKey: string, path: string, b?: unknown) =>
  api("POST", `/api/v1/sandbox/subscriptions/${path}`, { apiKey, body: b ?? {} });

async function authorised(apiKey: string, extra: Record<string, unknown> = {}) {
  const sub = await create(apiKey, extra);
  const res = await sandbox(apiKey, `${sub.id}/authorize`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.subscription;
}

const credits = (merchantId: string) =>
  db()
    .select({ amount: ledgerEntries.amountCentavos, refId: ledgerEntries.refId })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.kind, "order_credit")));

const cycleRows = (subscriptionId: string) =>
  db()
    .select()
    .from(subscriptionCycles)
    .where(eq(subscriptionCycles.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionCycles.cycle));

const pspCharges = (idRec: string) =>
  db().select().from(sandboxRecurringCharges).where(eq(sandboxRecurringCharges.idRec, idRec));

const eventsOf = (subjectIds: string[]) =>
  db().select().from(events).where(inArray(events.subjectId, subjectIds)).orderBy(asc(events.seq));

describe("POST /api/v1/subscriptions", () => {
  it("→ 201 AWAITING_AUTHORISATION: the code and the payer's link, and cycle 0 (journey 3) with its PIX order", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await create(apiKey, { metadata: { plan: "gold" } });
    expect(sub).toMatchObject({
      status: "AWAITING_AUTHORISATION",
      journey: "JORNADA_3",
      payer: { name: "Maria Souza", cpf: "52998224725" },
      amount: { type: "FIXED", value: 89.9, minimum: null },
      periodicity: "MENSAL",
      firstDate: addDays(today, 20),
      lastDate: null,
      retryPolicy: "PERMITE_3R_7D",
      nextChargeDate: addDays(today, 20),
      cancelledBy: null,
      metadata: { plan: "gold" },
    });
    expect(sub.recurrenceId).toMatch(/^RR[0-9A-Z]{8}\d{8}[a-zA-Z0-9]{11}$/);
    expect(sub.brcode).toMatch(/^000201/);
    expect(sub.link).toMatch(/\/pay\/.+/);
    expect(sub.cycles).toEqual([
      expect.objectContaining({ cycle: 0, kind: "IMMEDIATE", status: "SCHEDULED", value: 89.9, dueDate: today }),
    ]);
    expect(sub.cycles[0].order).toMatchObject({ status: "PENDING", link: sub.link });
  });

  it("→ 201 journey 2 with a variable amount: no payment now, no cycle yet", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await create(apiKey, {
      journey: "JORNADA_2",
      amount: { type: "VARIABLE", value: 120, minimum: 50 },
      retryPolicy: "NAO_PERMITE",
      periodicity: "SEMANAL",
      lastDate: addDays(today, 60),
    });
    expect(sub).toMatchObject({
      journey: "JORNADA_2",
      amount: { type: "VARIABLE", value: 120, minimum: 50 },
      lastDate: addDays(today, 60),
      cycles: [],
    });
    expect(sub.recurrenceId).toMatch(/^RN/);
  });

  it.each([
    [{ payer: { name: "Maria", cpf: "529.982.247-26" } }, "payer.cpf: is not a valid CPF"],
    [{ payer: { name: "Empresa", cnpj: "11.222.333/0001-82" } }, "payer.cnpj: is not a valid CNPJ"],
    [{ payer: { name: "Maria" } }, "must have a cpf or a cnpj"],
    [{ periodicity: "DIARIA" }, "periodicity: must be one of SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL, ANUAL"],
    [{ retryPolicy: "PERMITE_10R" }, "retryPolicy: must be one of NAO_PERMITE, PERMITE_3R_7D"],
    [{ journey: "JORNADA_1" }, "journey: must be one of JORNADA_2, JORNADA_3"],
    [{ amount: { type: "VARIABLE", value: 10, minimum: 20 } }, "value must not be below minimum"],
    [{ amount: { type: "FIXED", value: 10.001 } }, "at most 2 decimal places"],
    [{ description: "x".repeat(36) }, "description: must be at most 35 characters"],
    [{ firstDate: addDays(today, 1) }, `firstDate must be ${addDays(today, 2)} or later`],
    [{ lastDate: addDays(today, 19) }, "lastDate must not be before firstDate"],
  ])("→ 400 for %j", async (extra, message) => {
    const { apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/subscriptions", { apiKey, body: body(extra) });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it("→ 400 pix_key_required for a merchant without a PIX key", async () => {
    const { apiKey } = await seedMerchant({ pixKey: null });
    const res = await api("POST", "/api/v1/subscriptions", { apiKey, body: body() });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("pix_key_required");
  });

  it("with an Idempotency-Key: a retry answers the same subscription, one recurrence made", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const headers = { "Idempotency-Key": "sub-1" };
    const first = await api("POST", "/api/v1/subscriptions", { apiKey, body: body(), headers });
    const again = await api("POST", "/api/v1/subscriptions", { apiKey, body: body(), headers });
    expect(first.status).toBe(201);
    expect(again.body.subscription.id).toBe(first.body.subscription.id);
    expect(await db().select().from(subscriptions).where(eq(subscriptions.merchantId, merchant.id))).toHaveLength(1);
  });
});

describe("GET /api/v1/subscriptions", () => {
  it("pages newest first and filters by status; a foreign or malformed id is 404", async () => {
    const { apiKey } = await seedMerchant();
    const a = await create(apiKey);
    const b = await create(apiKey);
    const c = await authorised(apiKey);
    const page1 = await api("GET", "/api/v1/subscriptions?limit=2", { apiKey });
    expect(page1.status).toBe(200);
    expect(page1.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([c.id, b.id]);
    const page2 = await api("GET", `/api/v1/subscriptions?limit=2&cursor=${page1.body.nextCursor}`, { apiKey });
    expect(page2.body).toMatchObject({ subscriptions: [{ id: a.id }], nextCursor: null });
    const active = await api("GET", "/api/v1/subscriptions?status=ACTIVE", { apiKey });
    expect(active.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([c.id]);
    const other = await seedMerchant();
    expect((await api("GET", `/api/v1/subscriptions/${a.id}`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await api("GET", "/api/v1/subscriptions/nope", { apiKey })).status).toBe(404);
  });
});

describe("a journey-3 subscription, month by month", () => {
  it("authorised and paid at once, then three monthly cycles charged in their windows and credited once each", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const firstDate = addDays(today, 20);
    const created = await create(apiKey, { firstDate });

    // The payer reads the code: authorisation and the first payment together.
    const sub = await authorised(apiKey, { firstDate });
    expect(sub).toMatchObject({ status: "ACTIVE", nextChargeDate: firstDate });
    expect(sub.cycles[0]).toMatchObject({ cycle: 0, status: "PAID", order: { status: "COMPLETED" } });
    expect(sub.cycles[0].endToEndId).toMatch(/^E\d{8}/);
    expect((await get(apiKey, created.id)).status).toBe("AWAITING_AUTHORISATION");

    const dues = [1, 2, 3].map((n) => dueDateOf(firstDate, "MENSAL", n));
    for (const [i, due] of dues.entries()) {
      // Eleven days before: the window has not opened, nothing is sent.
      at(addDays(due, -11));
      await runSubscriptionEngine();
      expect((await get(apiKey, sub.id)).cycles).toHaveLength(i + 1);
      // Ten days before: the window opens and the charge reaches the PSP.
      at(addDays(due, -10));
      await runSweep();
      const now = await get(apiKey, sub.id);
      expect(now.cycles).toHaveLength(i + 2);
      expect(now.cycles[i + 1]).toMatchObject({
        cycle: i + 1,
        kind: "RECURRING",
        status: "SCHEDULED",
        dueDate: due,
        value: 89.9,
        attempts: [{ date: due, type: "AGND", status: "AGENDADA", failure: null }],
        order: { status: "PENDING" },
      });
      expect(now.nextChargeDate).toBe(dueDateOf(firstDate, "MENSAL", i + 2));
      // Debited on its due date.
      at(due);
      const paid = await sandbox(apiKey, `${sub.id}/cycles/${i + 1}/pay`);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body.subscription.cycles[i + 1]).toMatchObject({ status: "PAID", order: { status: "COMPLETED" } });
      // Paying it again is refused; the engine running again changes nothing.
      expect((await sandbox(apiKey, `${sub.id}/cycles/${i + 1}/pay`)).status).toBe(409);
      await runSubscriptionEngine();
    }

    const charges = await pspCharges(sub.recurrenceId);
    expect(charges.map((c) => c.dueDate).sort()).toEqual(dues);
    const rows = await cycleRows(sub.id);
    // Each charge was sent inside its window: 10 days before its due date.
    for (const r of rows.slice(1)) expect(saoPauloDay(r.sentAt!)).toBe(addDays(r.dueDate, -10));
    const mine = await credits(merchant.id);
    // Cycle 0 and three monthly cycles; `created` was never authorised nor paid.
    expect(mine).toHaveLength(4);
    expect(mine.reduce((n, c) => n + c.amount, 0)).toBe(4 * 8990);
    expect(new Set(mine.map((c) => c.refId)).size).toBe(mine.length);
    await balanceMatchesLedger(merchant.id);

    const evs = await eventsOf([sub.id, ...rows.map((r) => r.id)]);
    expect(
      evs.filter((e) => e.type === "subscription.status_changed").map((e) => (e.data as { status: string }).status),
    ).toEqual(["ACTIVE"]);
    const paidEvents = evs.filter(
      (e) => e.type === "subscription.charge.status_changed" && (e.data as { status: string }).status === "PAID",
    );
    expect(paidEvents).toHaveLength(4);
    // Three rounds of the whole sweep: ~6 s on an idle machine, past 30 s on a loaded one.
  }, 120_000);
});

/** An ACTIVE subscription whose cycle 1 is SCHEDULED at the PSP, the clock on its due date. */
async function scheduled(apiKey: string, extra: Record<string, unknown> = {}) {
  const sub = await authorised(apiKey, extra);
  at(addDays(sub.firstDate, -5));
  await runSubscriptionEngine();
  at(sub.firstDate);
  const now = await get(apiKey, sub.id);
  expect(now.cycles[1]).toMatchObject({ cycle: 1, status: "SCHEDULED" });
  return now;
}

describe("a failed cycle", () => {
  it("PERMITE_3R_7D: retried the next day, twice, then paid; credited once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey);
    const due = sub.firstDate;
    const failed = await sandbox(apiKey, `${sub.id}/cycles/1/fail`);
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.subscription.cycles[1]).toMatchObject({
      status: "RETRYING",
      retries: 1,
      retryDate: addDays(due, 1),
      order: { status: "PENDING" },
    });
    expect(failed.body.subscription.cycles[1].attempts).toEqual([
      { date: due, type: "AGND", status: "REJEITADA", failure: "AM02: Saldo insuficiente" },
      { date: addDays(due, 1), type: "RIFL", status: "AGENDADA", failure: null },
    ]);
    // The engine running again asks for nothing more while the retry is scheduled.
    await runSubscriptionEngine();
    expect((await get(apiKey, sub.id)).cycles[1].retries).toBe(1);

    at(addDays(due, 1));
    const again = await sandbox(apiKey, `${sub.id}/cycles/1/fail`);
    expect(again.body.subscription.cycles[1]).toMatchObject({
      status: "RETRYING",
      retries: 2,
      retryDate: addDays(due, 2),
    });
    at(addDays(due, 2));
    const paid = await sandbox(apiKey, `${sub.id}/cycles/1/pay`);
    expect(paid.body.subscription.cycles[1]).toMatchObject({
      status: "PAID",
      retries: 2,
      order: { status: "COMPLETED" },
    });
    const [charge] = await pspCharges(sub.recurrenceId);
    expect(charge.attempts.map((a) => [a.type, a.status])).toEqual([
      ["AGND", "REJEITADA"],
      ["RIFL", "REJEITADA"],
      ["RIFL", "PAGA"],
    ]);
    expect(await credits(merchant.id)).toHaveLength(2);
    await balanceMatchesLedger(merchant.id);
  });

  it("PERMITE_3R_7D: after three failed retries the cycle FAILS and its order is cancelled", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey);
    for (let n = 0; n < 3; n++) {
      at(addDays(sub.firstDate, n));
      expect((await sandbox(apiKey, `${sub.id}/cycles/1/fail`)).body.subscription.cycles[1].status).toBe("RETRYING");
    }
    at(addDays(sub.firstDate, 3));
    const last = await sandbox(apiKey, `${sub.id}/cycles/1/fail`);
    expect(last.body.subscription.cycles[1]).toMatchObject({
      status: "FAILED",
      retries: 3,
      order: { status: "CANCELLED" },
    });
    expect(last.body.subscription.status).toBe("ACTIVE");
    expect(await credits(merchant.id)).toHaveLength(1);
  });

  it("NAO_PERMITE: the first rejection FAILS the cycle; the subscription goes on to the next one", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey, { retryPolicy: "NAO_PERMITE" });
    const failed = await sandbox(apiKey, `${sub.id}/cycles/1/fail`);
    expect(failed.body.subscription.cycles[1]).toMatchObject({
      status: "FAILED",
      retries: 0,
      failure: expect.stringContaining("AM02"),
      order: { status: "CANCELLED" },
    });
    at(addDays(dueDateOf(sub.firstDate, "MENSAL", 2), -3));
    await runSubscriptionEngine();
    expect((await get(apiKey, sub.id)).cycles[2]).toMatchObject({ cycle: 2, status: "SCHEDULED" });
  });
});

describe("cancellation", () => {
  it("by the payer at the bank: CANCELLED by the payer, the scheduled cycle cancelled, no cycle after", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey);
    at(addDays(sub.firstDate, -3));
    const res = await sandbox(apiKey, `${sub.id}/payer-cancel`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription).toMatchObject({ status: "CANCELLED", cancelledBy: "payer", nextChargeDate: null });
    expect(res.body.subscription.cycles[1]).toMatchObject({ status: "CANCELLED", order: { status: "CANCELLED" } });
    at(addDays(sub.firstDate, 60));
    await runSubscriptionEngine();
    expect((await get(apiKey, sub.id)).cycles).toHaveLength(2);
    expect(await pspCharges(sub.recurrenceId)).toHaveLength(1);
    expect(await credits(merchant.id)).toHaveLength(1);
    const evs = await eventsOf([sub.id]);
    expect(evs.map((e) => (e.data as { status: string }).status)).toEqual(["ACTIVE", "CANCELLED"]);
  });

  it("by the payer, its notice lost: seen when the next cycle's window opens, before any charge is sent", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await authorised(apiKey);
    expect(await sandboxBank.cancel(sub.recurrenceId)).toBe(true);
    at(addDays(sub.firstDate, -10));
    await runSubscriptionEngine();
    const after = await get(apiKey, sub.id);
    expect(after).toMatchObject({ status: "CANCELLED", cancelledBy: "payer" });
    expect(after.cycles).toHaveLength(1);
    expect(await pspCharges(sub.recurrenceId)).toHaveLength(0);
  });

  it("by the merchant: POST …/cancel cancels at the PSP with the scheduled cycle; 409 the second time", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey);
    at(addDays(sub.firstDate, -2));
    const res = await api("POST", `/api/v1/subscriptions/${sub.id}/cancel`, { apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription).toMatchObject({ status: "CANCELLED", cancelledBy: "merchant" });
    expect(res.body.subscription.cycles[1]).toMatchObject({ status: "CANCELLED", order: { status: "CANCELLED" } });
    const [charge] = await pspCharges(sub.recurrenceId);
    expect(charge.status).toBe("CANCELADA");
    const again = await api("POST", `/api/v1/subscriptions/${sub.id}/cancel`, { apiKey });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("subscription_not_cancellable");
  });

  it("by the merchant before authorisation: the first payment's order is cancelled too", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await create(apiKey);
    const res = await api("POST", `/api/v1/subscriptions/${sub.id}/cancel`, { apiKey });
    expect(res.body.subscription).toMatchObject({ status: "CANCELLED", cycles: [{ status: "CANCELLED" }] });
    expect((await sandbox(apiKey, `${sub.id}/authorize`)).status).toBe(409);
  });
});

describe("exactly once", () => {
  it("two engines and a notification's job at once: one cycle per due date, one credit per payment", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const sub = await authorised(apiKey);
    at(addDays(sub.firstDate, -6));
    await Promise.all([runSubscriptionEngine(), runSubscriptionEngine(), runSubscriptionEngine()]);
    const rows = await cycleRows(sub.id);
    expect(rows.map((r) => [r.cycle, r.status])).toEqual([
      [0, "PAID"],
      [1, "SCHEDULED"],
    ]);
    expect(await pspCharges(sub.recurrenceId)).toHaveLength(1);

    at(sub.firstDate);
    // The bank settles; every runner reads it at the same time.
    expect(await sandboxBank.settle(rows[1].txid, "paid")).toBe(true);
    await Promise.all([
      runSubscriptionEngine(),
      runSubscriptionEngine(),
      followCycle(rows[1].id),
      followCycle(rows[1].id),
    ]);
    const mine = await credits(merchant.id);
    expect(mine).toHaveLength(2);
    expect(mine.filter((c) => c.refId === rows[1].orderId)).toHaveLength(1);
    expect(await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, rows[1].orderId))).toHaveLength(1);
    const paid = (await eventsOf([rows[1].id])).filter((e) => (e.data as { status: string }).status === "PAID");
    expect(paid).toHaveLength(1);
    await balanceMatchesLedger(merchant.id);
  });

  it("a send that died (the PSP unreachable) is sent again with the same txid after a restart", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await authorised(apiKey);
    const real = providers().recurring;
    overrideProvidersForTests({
      recurring: { ...real, createCharge: () => Promise.reject(new Error("connect ECONNREFUSED")) },
    });
    at(addDays(sub.firstDate, -9));
    await runSubscriptionEngine();
    const [, stuck] = await cycleRows(sub.id);
    expect(stuck.status).toBe("CREATING");
    expect(await pspCharges(sub.recurrenceId)).toHaveLength(0);
    overrideProvidersForTests(undefined);
    await runSubscriptionEngine();
    await runSubscriptionEngine();
    const [, sent] = await cycleRows(sub.id);
    expect(sent).toMatchObject({ status: "SCHEDULED", txid: stuck.txid });
    expect((await pspCharges(sub.recurrenceId)).map((c) => c.txid)).toEqual([stuck.txid]);
    const order = (await db().select().from(orders).where(eq(orders.id, sent.orderId)))[0];
    expect(order).toMatchObject({ status: "PENDING", txid: stuck.txid, valueCentavos: 8990 });
  });
});

describe("the sandbox PSP's send window", () => {
  it("refuses a cycle's charge sent more than 10 or fewer than 2 days before its due date, as the test PSP does", async () => {
    const m = await seedMerchant();
    const sub = await authorised(m.apiKey, { journey: "JORNADA_2" });
    const send = (dueDate: string) =>
      providers().recurring.createCharge({
        txid: providers().recurring.newTxid(),
        idRec: sub.recurrenceId,
        dueDate,
        valueCentavos: 8990,
        debtor: { name: "Maria Souza", cpf: "52998224725" },
      });
    await expect(send(addDays(today, 11))).rejects.toThrow(/fora da janela de envio/);
    await expect(send(addDays(today, 1))).rejects.toThrow(/fora da janela de envio/);
    await expect(send(addDays(today, 10))).resolves.toMatchObject({ status: expect.any(String) });
    await expect(send(addDays(today, 2))).resolves.toMatchObject({ status: expect.any(String) });
  });
});

describe("POST /api/v1/providers/pix/{token}/rec and /cobr (the PSP's notifications)", () => {
  const token = () => process.env.PIX_WEBHOOK_TOKEN!;

  it("a charge notice is read back: paid at the PSP → PAID; a notice the PSP does not bear out changes nothing", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey);
    const [, cycle] = await cycleRows(sub.id);
    // The notice says CONCLUIDA, the PSP does not: nothing is credited.
    const early = await api("POST", `/api/v1/providers/pix/${token()}/cobr`, {
      body: { cobsr: [{ idRec: sub.recurrenceId, txid: cycle.txid, status: "CONCLUIDA" }] },
    });
    expect(early.status, JSON.stringify(early.body)).toBe(200);
    expect(early.body).toEqual({ received: 1 });
    expect((await get(apiKey, sub.id)).cycles[1].status).toBe("SCHEDULED");
    expect(await sandboxBank.settle(cycle.txid, "paid")).toBe(true);
    // Repeated, the same notice counts once.
    for (let i = 0; i < 2; i++)
      await api("POST", `/api/v1/providers/pix/${token()}/cobr`, {
        body: { cobsr: [{ idRec: sub.recurrenceId, txid: cycle.txid, status: "CONCLUIDA" }] },
      });
    expect((await get(apiKey, sub.id)).cycles[1]).toMatchObject({ status: "PAID", order: { status: "COMPLETED" } });
    expect(await credits(merchant.id)).toHaveLength(2);
  });

  it("a recurrence notice after the payer cancelled at the bank: CANCELLED by the payer", async () => {
    const { apiKey } = await seedMerchant();
    const sub = await scheduled(apiKey);
    await sandboxBank.cancel(sub.recurrenceId);
    const res = await api("POST", `/api/v1/providers/pix/${token()}/rec`, {
      body: { recs: [{ idRec: sub.recurrenceId, status: "CANCELADA" }] },
    });
    expect(res.status).toBe(200);
    expect(await get(apiKey, sub.id)).toMatchObject({ status: "CANCELLED", cancelledBy: "payer" });
  });

  it("→ 404 with a wrong token; malformed items are skipped", async () => {
    const wrong = await api("POST", "/api/v1/providers/pix/not-the-token/rec", { body: { recs: [] } });
    expect(wrong.status).toBe(404);
    const junk = await api("POST", `/api/v1/providers/pix/${token()}/cobr`, {
      body: { cobsr: [{ txid: "../../etc" }, 42, { idRec: "short" }] },
    });
    expect(junk.body).toEqual({ received: 0 });
  });
});
