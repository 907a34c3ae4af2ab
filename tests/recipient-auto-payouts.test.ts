import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import {
  events,
  payoutDestinations,
  pixPayouts,
  recipientPayoutSkips,
  recipientPayouts,
  recipients,
} from "@/db/schema";
import { setClockForTests } from "@/lib/clock";
import { saoPauloDayStart } from "@/lib/day-range";
import { autoPayoutQueue, runAutoPayouts } from "@/lib/recipients/auto-payouts";
import { postRecipientEntry, recipientLedgerSum } from "@/lib/recipients/ledger";
import { startWorker, stopWorker } from "@/lib/worker";
import { api, seedMerchant } from "./helpers";

// Recipients' automatic payouts (docs/api.md#automatic-payouts) against the real handlers and
// PostgreSQL: the schedule set and shown through the API, and the schedule's job (runAutoPayouts, what
// the pg-boss job runs each tick) run at instants inside a slot: a due slot pays the whole balance
// once however often the job runs, a held key or a balance below the minimum pays nothing (and says
// why, once per slot), and the recipient's balance equals its ledger throughout. Last, the job as
// pg-boss runs it, across a restart of the job system.

const CPFS = ["52998224725", "11144477735", "39053344705"];

async function create(apiKey: string, body: Record<string, unknown>) {
  const res = await api("POST", "/api/v1/recipients", {
    apiKey,
    body: { name: "Maria Souza", document: CPFS[0], pixKey: `maria-${randomUUID().slice(0, 8)}@example.com`, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.recipient;
}

const credit = (merchantId: string, recipientId: string, amountCentavos: number) =>
  db().transaction((tx) =>
    postRecipientEntry(tx, {
      merchantId,
      recipientId,
      kind: "split_credit",
      amountCentavos,
      refType: "order_split",
      refId: randomUUID(),
    }),
  );

/** An instant `hours` into a São Paulo day. */
const into = (day: string, hours = 1) => new Date(saoPauloDayStart(day).getTime() + hours * 3_600_000);

const payoutsOf = (recipientId: string) =>
  db().select().from(recipientPayouts).where(eq(recipientPayouts.recipientId, recipientId));

/** Why the recipient's slots paid nothing, as recorded, and the events that said so. */
async function skipsOf(recipientId: string) {
  const rows = await db()
    .select()
    .from(recipientPayoutSkips)
    .where(eq(recipientPayoutSkips.recipientId, recipientId))
    .orderBy(asc(recipientPayoutSkips.createdAt));
  const said = await db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, recipientId), eq(events.type, "recipient.payout.skipped")));
  return { rows: rows.map((r) => [r.scheduleSlot, r.reason, r.balanceCentavos]), events: said.map((e) => e.data) };
}

async function expectBalanceIsLedger(recipientId: string, centavos: number) {
  const [row] = await db().select().from(recipients).where(eq(recipients.id, recipientId));
  expect(row.balanceCentavos).toBe(centavos);
  expect(await recipientLedgerSum(db(), recipientId)).toBe(centavos);
}

describe("payoutSchedule on POST, PATCH and GET /api/v1/recipients", () => {
  it("is shown with the day its next slot begins; null clears it", async () => {
    const { apiKey } = await seedMerchant();
    const r = await create(apiKey, { payoutSchedule: { interval: "weekly", weekday: "friday", minimumValue: 50 } });
    expect(r.payoutSchedule).toMatchObject({ interval: "weekly", weekday: "friday", minimumValue: 50 });
    expect(r.payoutSchedule.monthDay).toBeUndefined();
    expect(new Date(`${r.payoutSchedule.nextSlot}T12:00:00Z`).getUTCDay()).toBe(5);
    const patched = await api("PATCH", `/api/v1/recipients/${r.id}`, {
      apiKey,
      body: { payoutSchedule: { interval: "monthly", monthDay: 31 } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.recipient.payoutSchedule).toMatchObject({
      interval: "monthly",
      monthDay: 31,
      minimumValue: null,
    });
    const cleared = await api("PATCH", `/api/v1/recipients/${r.id}`, { apiKey, body: { payoutSchedule: null } });
    expect(cleared.body.recipient.payoutSchedule).toBeNull();
    const got = await api("GET", `/api/v1/recipients/${r.id}`, { apiKey });
    expect(got.body.recipient.payoutSchedule).toBeNull();
  });

  it("→ 400 validation_failed naming the field for a weekday missing or out of place, and a bad monthDay", async () => {
    const { apiKey } = await seedMerchant();
    const cases: [unknown, string][] = [
      [{ interval: "weekly" }, "payoutSchedule.weekday"],
      [{ interval: "daily", weekday: "monday" }, "payoutSchedule.weekday"],
      [{ interval: "monthly", monthDay: 32 }, "payoutSchedule.monthDay"],
      [{ interval: "monthly" }, "payoutSchedule.monthDay"],
      [{ interval: "hourly" }, "payoutSchedule.interval"],
      [{ interval: "daily", minimumValue: 0.001 }, "payoutSchedule.minimumValue"],
      ["daily", "payoutSchedule"],
    ];
    for (const [payoutSchedule, field] of cases) {
      const res = await api("POST", "/api/v1/recipients", {
        apiKey,
        body: { name: "X", document: CPFS[1], pixKey: "x@example.com", payoutSchedule },
      });
      expect(res.status, JSON.stringify(payoutSchedule)).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
  });
});

describe("the automatic payout job", () => {
  it("pays a due slot's whole balance once, even when the job runs twice (and twice at once)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, { payoutSchedule: { interval: "daily" } });
    await credit(merchant.id, r.id, 12_345);
    // The day it was set on began before it: nothing is due until the next slot.
    await runAutoPayouts();
    expect(await payoutsOf(r.id)).toHaveLength(0);

    const slot = r.payoutSchedule.nextSlot as string;
    await runAutoPayouts(into(slot));
    await runAutoPayouts(into(slot, 2));
    await Promise.all([runAutoPayouts(into(slot, 3)), runAutoPayouts(into(slot, 3))]);
    const paid = await payoutsOf(r.id);
    expect(paid.map((p) => [p.valueCentavos, p.scheduleSlot, p.status])).toEqual([[12_345, slot, "PENDING"]]);
    await expectBalanceIsLedger(r.id, 0);
    const [pix] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, paid[0].id));
    expect(pix).toMatchObject({ purpose: "recipient_payout", valueCentavos: 12_345, pixKey: paid[0].pixKey });

    // The statement and the event name it; the next day's slot pays what came in since.
    const statement = await api("GET", `/api/v1/recipients/${r.id}/statement`, { apiKey });
    expect(statement.body.entries[0]).toMatchObject({ kind: "payout_debit", amount: -123.45, balanceAfter: 0 });
    await credit(merchant.id, r.id, 700);
    const next = new Date(`${slot}T12:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    const nextDay = next.toISOString().slice(0, 10);
    await runAutoPayouts(into(nextDay, 5));
    await runAutoPayouts(into(nextDay, 6));
    expect((await payoutsOf(r.id)).map((p) => [p.valueCentavos, p.scheduleSlot]).sort()).toEqual(
      [
        [12_345, slot],
        [700, nextDay],
      ].sort(),
    );
    await expectBalanceIsLedger(r.id, 0);
  });

  it("does not pay while the key is held; the slot stays due and pays once the hold ends", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, { payoutSchedule: { interval: "daily" } });
    await credit(merchant.id, r.id, 5_000);
    const patched = await api("PATCH", `/api/v1/recipients/${r.id}`, { apiKey, body: { pixKey: "+5511987654321" } });
    expect(patched.body.recipient.pixKeyUsableAt).not.toBeNull();
    const slot = patched.body.recipient.payoutSchedule.nextSlot as string;
    await runAutoPayouts(into(slot));
    await runAutoPayouts(into(slot, 2));
    expect(await payoutsOf(r.id)).toHaveLength(0);
    await expectBalanceIsLedger(r.id, 5_000);
    // Said once, however often the job looked.
    const held = await skipsOf(r.id);
    expect(held.rows).toEqual([[slot, "key_held", 5_000]]);
    expect(held.events).toEqual([
      {
        recipientId: r.id,
        scheduleSlot: slot,
        reason: "key_held",
        balance: 50,
        minimumValue: null,
        createdAt: expect.any(String),
      },
    ]);

    await db()
      .update(payoutDestinations)
      .set({ holdUntil: sql`now() - interval '1 second'` })
      .where(and(eq(payoutDestinations.merchantId, merchant.id), eq(payoutDestinations.value, "+5511987654321")));
    await runAutoPayouts(into(slot, 20));
    const paid = await payoutsOf(r.id);
    expect(paid.map((p) => [p.valueCentavos, p.pixKey, p.scheduleSlot])).toEqual([[5_000, "+5511987654321", slot]]);
    await expectBalanceIsLedger(r.id, 0);
  });

  it("does not pay a balance below the minimum, nor a negative one; pays once it reaches the minimum", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, { payoutSchedule: { interval: "monthly", monthDay: 31, minimumValue: 100 } });
    const low = await create(apiKey, {
      document: CPFS[1],
      payoutSchedule: { interval: "monthly", monthDay: 31 },
    });
    await credit(merchant.id, r.id, 9_999);
    await credit(merchant.id, low.id, -300);
    const slot = r.payoutSchedule.nextSlot as string;
    await runAutoPayouts(into(slot));
    expect(await payoutsOf(r.id)).toHaveLength(0);
    expect(await payoutsOf(low.id)).toHaveLength(0);
    await runAutoPayouts(into(slot, 2));
    await expectBalanceIsLedger(r.id, 9_999);
    await expectBalanceIsLedger(low.id, -300);
    expect((await skipsOf(r.id)).rows).toEqual([[slot, "below_minimum", 9_999]]);
    expect((await skipsOf(r.id)).events).toMatchObject([
      { reason: "below_minimum", balance: 99.99, minimumValue: 100 },
    ]);
    expect((await skipsOf(low.id)).rows).toEqual([[slot, "no_balance", -300]]);

    await credit(merchant.id, r.id, 1);
    await runAutoPayouts(into(slot, 3));
    await runAutoPayouts(into(slot, 4));
    expect((await payoutsOf(r.id)).map((p) => p.valueCentavos)).toEqual([10_000]);
    await expectBalanceIsLedger(r.id, 0);
    // Paid: the balance now empty is not a reason the slot "paid nothing".
    expect((await skipsOf(r.id)).rows).toEqual([[slot, "below_minimum", 9_999]]);
  });

  it("pays nothing to a DISABLED recipient or one whose schedule was cleared", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const off = await create(apiKey, { payoutSchedule: { interval: "daily" } });
    const cleared = await create(apiKey, { document: CPFS[2], payoutSchedule: { interval: "daily" } });
    await credit(merchant.id, off.id, 1_000);
    await credit(merchant.id, cleared.id, 1_000);
    await api("PATCH", `/api/v1/recipients/${off.id}`, { apiKey, body: { status: "DISABLED" } });
    await api("PATCH", `/api/v1/recipients/${cleared.id}`, { apiKey, body: { payoutSchedule: null } });
    await runAutoPayouts(into(off.payoutSchedule.nextSlot));
    expect(await payoutsOf(off.id)).toHaveLength(0);
    expect(await payoutsOf(cleared.id)).toHaveLength(0);
    await expectBalanceIsLedger(off.id, 1_000);
    // The merchant's own choice: nothing recorded for either.
    expect((await skipsOf(off.id)).rows).toEqual([]);
    expect((await skipsOf(cleared.id)).rows).toEqual([]);
  });
});

describe("the schedule's job as pg-boss runs it, across a restart of the job system", () => {
  afterAll(async () => {
    await stopWorker();
    setClockForTests(undefined);
  });

  /** One run of the queue's job that started after now: sent as the instance's timer sends it, and waited for. */
  async function tick() {
    const since = new Date();
    await autoPayoutQueue.send({}, { singletonKey: "tick" });
    for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      const [{ n }] = await db().execute<{ n: number }>(
        sql`select count(*)::int as n from pgboss.job
            where name = ${autoPayoutQueue.name} and state = 'completed' and started_on >= ${since.toISOString()}::timestamptz`,
      );
      if (n > 0) return;
    }
    throw new Error("the automatic payout job did not run within 30 s");
  }

  it("a slot that began while it was stopped is paid once after start; more runs and a second restart pay it no more", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, { payoutSchedule: { interval: "daily" } });
    const short = await create(apiKey, { document: CPFS[1], payoutSchedule: { interval: "daily", minimumValue: 100 } });
    await credit(merchant.id, r.id, 4_321);
    await credit(merchant.id, short.id, 2_500);
    const slot = r.payoutSchedule.nextSlot as string;

    await startWorker();
    await tick();
    expect(await payoutsOf(r.id)).toHaveLength(0);
    await stopWorker();
    // The slot begins while no job system runs.
    setClockForTests(into(slot, 2));
    await startWorker();
    await Promise.all([tick(), tick()]);
    // Paid by the job, at its first run after start.
    expect((await payoutsOf(r.id)).map((p) => [p.valueCentavos, p.scheduleSlot])).toEqual([[4_321, slot]]);
    await tick();
    await stopWorker();
    await startWorker();
    await tick();
    // The job's run beside a direct one at the same time: still one payout.
    await Promise.all([tick(), runAutoPayouts(into(slot, 3))]);

    const paid = await payoutsOf(r.id);
    expect(paid.map((p) => [p.valueCentavos, p.scheduleSlot])).toEqual([[4_321, slot]]);
    await expectBalanceIsLedger(r.id, 0);
    expect(await payoutsOf(short.id)).toHaveLength(0);
    await expectBalanceIsLedger(short.id, 2_500);
    const skipped = await skipsOf(short.id);
    expect(skipped.rows).toEqual([[slot, "below_minimum", 2_500]]);
    expect(skipped.events).toHaveLength(1);
    expect((await skipsOf(r.id)).rows).toEqual([]);
  }, 120_000);
});

describe("GET /api/v1/recipients/{id}/payouts/{payoutId}", () => {
  it("answers the payout with its state; another merchant's, another recipient's or an unknown id → 404 { message }", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, {});
    const other = await create(apiKey, { document: CPFS[1] });
    await credit(merchant.id, r.id, 2_000);
    const made = await api("POST", `/api/v1/recipients/${r.id}/payouts`, { apiKey, body: { value: 15 } });
    expect(made.status).toBe(201);
    const id = made.body.payout.id;
    const got = await api("GET", `/api/v1/recipients/${r.id}/payouts/${id}`, { apiKey });
    expect(got.status).toBe(200);
    expect(got.body.payout).toEqual(made.body.payout);
    expect(got.body.payout.scheduleSlot).toBeUndefined();

    const stranger = await seedMerchant();
    for (const [key, path] of [
      [stranger.apiKey, `/api/v1/recipients/${r.id}/payouts/${id}`],
      [apiKey, `/api/v1/recipients/${other.id}/payouts/${id}`],
      [apiKey, `/api/v1/recipients/${r.id}/payouts/${randomUUID()}`],
      [apiKey, `/api/v1/recipients/${r.id}/payouts/not-a-uuid`],
    ]) {
      const res = await api("GET", path, { apiKey: key });
      expect(res.status, path).toBe(404);
      expect(Object.keys(res.body)).toContain("message");
      expect(res.body.code).toBe("not_found");
    }
  });

  it("shows an automatic payout's slot", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, { payoutSchedule: { interval: "daily" } });
    await credit(merchant.id, r.id, 900);
    await runAutoPayouts(into(r.payoutSchedule.nextSlot));
    const [p] = await payoutsOf(r.id);
    const got = await api("GET", `/api/v1/recipients/${r.id}/payouts/${p.id}`, { apiKey });
    expect(got.body.payout).toMatchObject({ value: 9, scheduleSlot: r.payoutSchedule.nextSlot, status: "PENDING" });
  });
});
