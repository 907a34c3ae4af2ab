import { afterAll, describe, expect, it } from "vitest";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { db } from "@/db";
import { events, ledgerEntries, orders, withdrawals } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { runSweep, startWorker as startJobs, stopWorker as stopJobs } from "@/lib/worker";
import { ledgerSum } from "@/lib/ledger/ledger";
import { completeOrder, expireOrders } from "@/lib/orders/service";
import { api, seedMerchant, specOf } from "./helpers";
import { waitFor } from "./support/wait";

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

async function orderRow(id: string) {
  const [o] = await db().select().from(orders).where(eq(orders.id, id));
  return o;
}

async function statusEvents(subjectId: string) {
  return db().select().from(events).where(eq(events.subjectId, subjectId)).orderBy(asc(events.seq));
}

/** Moves an order's expiry into the past, as if its time had run out. */
async function backdate(id: string, seconds = 60) {
  await db()
    .update(orders)
    .set({ expiresAt: sql`now() - make_interval(secs => ${seconds})` })
    .where(eq(orders.id, id));
}

async function createLightning(apiKey: string, value = 10) {
  const res = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value } });
  expect(res.status).toBe(201);
  return res.body.order as { id: string; paymentLinkId: string; expiresAt: string; createdAt: string };
}

async function createExchange(apiKey: string, value = 10) {
  const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value } });
  expect(res.status).toBe(201);
  return res.body.order as { id: string; paymentLinkId: string; expiresAt: string; createdAt: string };
}

describe("order expiry", () => {
  it("Lightning and exchange orders past expiresAt become CANCELLED, one order.status_changed event each; a second run changes nothing", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const ln = await createLightning(apiKey);
    const ex = await createExchange(apiKey);
    const untouched = await createExchange(apiKey);
    // Creation expiries: 15 and 30 minutes.
    // The invoice's own expiry is whole seconds (BOLT11 timestamp + 900, the timestamp rounded down: up
    // to 999 ms lost) and createdAt is when the row was written, a moment after the invoice was made.
    const lifetime = new Date(ln.expiresAt).getTime() - new Date(ln.createdAt).getTime();
    expect(lifetime).toBeGreaterThan(898_000);
    expect(lifetime).toBeLessThanOrEqual(900_000);
    expect(new Date(ex.expiresAt).getTime() - new Date(ex.createdAt).getTime()).toBeCloseTo(1_800_000, -3);
    await backdate(ln.id);
    await backdate(ex.id);

    expect(await expireOrders()).toBeGreaterThanOrEqual(2);
    for (const id of [ln.id, ex.id]) {
      const o = await orderRow(id);
      expect(o.status).toBe("CANCELLED");
      expect(o.version).toBe(1);
      const evs = await statusEvents(id);
      expect(evs).toHaveLength(1);
      expect(evs[0]).toMatchObject({ type: "order.status_changed", merchantId: merchant.id, subjectType: "order" });
      expect(evs[0].data).toMatchObject({ id, status: "CANCELLED", previousStatus: "PENDING" });
    }
    expect((await orderRow(untouched.id)).status).toBe("PENDING");
    expect(await statusEvents(untouched.id)).toHaveLength(0);

    // Second run: nothing left to do for these orders.
    expect(await expireOrders([ln.id, ex.id])).toBe(0);
    await expireOrders();
    for (const id of [ln.id, ex.id]) {
      expect((await orderRow(id)).version).toBe(1);
      expect(await statusEvents(id)).toHaveLength(1);
    }

    // The API shows them CANCELLED; the Lightning provider data calls the invoice expired.
    const got = await api("GET", `/api/v1/order/${ln.paymentLinkId}`, { apiKey });
    expect(got.body.order.status).toBe("CANCELLED");
    expect(got.body.providerDetails.data.status).toBe("expired");
    expect(await ledgerSum(db(), merchant.id)).toBe(0);
  });

  it("a reader never sees a PENDING order past its expiry (expire on read), still with exactly one event", async () => {
    const { apiKey } = await seedMerchant();
    const ex = await createExchange(apiKey);
    await backdate(ex.id);
    const got = await api("GET", `/api/v1/order/${ex.id}`, { apiKey });
    expect(got.status).toBe(200);
    expect(got.body.order.status).toBe("CANCELLED");
    await expireOrders([ex.id]);
    expect(await statusEvents(ex.id)).toHaveLength(1);
  });

  it("final states never change: a COMPLETED order past its expiry is not cancelled, a CANCELLED one cannot be paid", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const paid = await createExchange(apiKey, 25.5);
    const pay = await api("POST", `/api/v1/sandbox/orders/${paid.id}/pay`, { apiKey });
    expect(pay.status).toBe(200);
    expect(pay.body.order.status).toBe("COMPLETED");
    await backdate(paid.id);
    // The expiry write (UPDATE … WHERE status = 'PENDING') affects 0 rows.
    expect(await expireOrders([paid.id])).toBe(0);
    expect((await orderRow(paid.id)).status).toBe("COMPLETED");
    expect(await statusEvents(paid.id)).toHaveLength(1);
    expect(await ledgerSum(db(), merchant.id)).toBe(2_550);

    const cancelled = await createLightning(apiKey);
    await backdate(cancelled.id);
    expect(await expireOrders([cancelled.id])).toBe(1);
    const late = await api("POST", `/api/v1/sandbox/orders/${cancelled.id}/pay`, { apiKey });
    expect(late.status).toBe(409);
    expect(specOf(late.body)).toEqual({ message: "Order is CANCELLED, not PENDING" });
    await expect(completeOrder(cancelled.id)).rejects.toThrow("CANCELLED");
    expect((await orderRow(cancelled.id)).status).toBe("CANCELLED");
    expect(await statusEvents(cancelled.id)).toHaveLength(1);
    expect(await ledgerSum(db(), merchant.id)).toBe(2_550);
    const again = await api("POST", `/api/v1/sandbox/orders/${paid.id}/pay`, { apiKey });
    expect(again.status).toBe(409);
    expect(await ledgerSum(db(), merchant.id)).toBe(2_550);
  });

  it("expiry compares the provider's payment time: paid before expiresAt but reported after → COMPLETED; paid after → CANCELLED", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const early = await createLightning(apiKey, 10);
    const lateOne = await createLightning(apiKey, 20);
    await backdate(early.id, 2);
    await backdate(lateOne.id, 2);
    const completed = await completeOrder(early.id, new Date(Date.now() - 60_000));
    expect(completed.status).toBe("COMPLETED");
    await expect(completeOrder(lateOne.id, new Date())).rejects.toThrow("expired");
    expect((await orderRow(lateOne.id)).status).toBe("CANCELLED");
    expect(await ledgerSum(db(), merchant.id)).toBe(1_000);
  });

  it("an order the sweep already cancelled completes when the provider reports a payment made before its expiry (settled at 899 s, reported at 901 s)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const ln = await createLightning(apiKey, 10);
    const [row] = await db()
      .update(orders)
      .set({ expiresAt: new Date(Date.now() - 2000) })
      .where(eq(orders.id, ln.id))
      .returning();
    await runSweep();
    expect((await orderRow(ln.id)).status).toBe("CANCELLED");
    const settledAt = new Date(row.expiresAt!.getTime() - 1000);
    const completed = await completeOrder(ln.id, settledAt);
    expect(completed).toMatchObject({ status: "COMPLETED", paidAt: settledAt });
    expect((await statusEvents(ln.id)).map((e) => [e.data.previousStatus, e.data.status])).toEqual([
      ["PENDING", "CANCELLED"],
      ["CANCELLED", "COMPLETED"],
    ]);
    expect(await ledgerSum(db(), merchant.id)).toBe(1_000);
    // Reported again: nothing changes, nothing is credited twice.
    await expect(completeOrder(ln.id, settledAt)).rejects.toThrow("Order is COMPLETED, not PENDING");
    expect(await ledgerSum(db(), merchant.id)).toBe(1_000);
  });

  it("a PIX order with expiresIn: 60 has expiresAt; one without never expires", async () => {
    const { apiKey } = await seedMerchant();
    const timed = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10, expiresIn: 60 } });
    expect(timed.status).toBe(200);
    const t = timed.body.pixOrder;
    expect(new Date(t.expiresAt).getTime() - new Date(t.createdAt).getTime()).toBeGreaterThanOrEqual(59_000);
    expect(new Date(t.expiresAt).getTime() - new Date(t.createdAt).getTime()).toBeLessThanOrEqual(61_000);
    const lookup = await api("GET", `/api/v1/order/${t._id}`, { apiKey });
    expect(lookup.body.order.expiresAt).toBe(t.expiresAt);

    const forever = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
    const f = forever.body.pixOrder;
    expect(f).not.toHaveProperty("expiresAt");
    expect((await orderRow(f._id)).expiresAt).toBeNull();
    // Even a year later it stays PENDING.
    await db()
      .update(orders)
      .set({ createdAt: sql`now() - interval '1 year'` })
      .where(eq(orders.id, f._id));
    await expireOrders();
    expect((await orderRow(f._id)).status).toBe("PENDING");
    const lookupF = await api("GET", `/api/v1/order/${f._id}`, { apiKey });
    expect(lookupF.body.order.status).toBe("PENDING");
    expect(lookupF.body.order).not.toHaveProperty("expiresAt");

    // The timed one expires once its 60 s are up.
    await backdate(t._id, 1);
    await expireOrders();
    expect((await orderRow(t._id)).status).toBe("CANCELLED");
    expect(await statusEvents(t._id)).toHaveLength(1);
  });

  it("expiresIn must be whole seconds ≥ 60", async () => {
    const { apiKey } = await seedMerchant();
    for (const expiresIn of [59, 0, -1, 60.5, "60"]) {
      const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10, expiresIn } });
      expect(res.status, String(expiresIn)).toBe(400);
      expect(specOf(res.body)).toEqual({ message: expect.stringContaining("expiresIn") });
    }
  });
});

describe("runSweep()", () => {
  it("expires due orders and moves pending withdrawals to their final states", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const ln = await createLightning(apiKey);
    const ex = await createExchange(apiKey);
    await backdate(ln.id);
    await backdate(ex.id);
    const pixOut = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 10_000 } });
    const failing = await api("POST", "/api/v1/order/pix-out", {
      apiKey,
      body: { value: 20_000, pixKey: "payout.fail@example.com" },
    });
    const onchain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { toAddress: TO, value: 100, network: "bsc" },
    });
    expect([pixOut.status, failing.status, onchain.status]).toEqual([201, 201, 200]);
    expect(await ledgerSum(db(), merchant.id)).toBe(100_000 - 10_000 - 20_000 - 10_080);

    const counts = await runSweep();
    expect(counts.orders).toBeGreaterThanOrEqual(2);
    // Two pix-outs' payouts and one on-chain withdrawal's transaction reached their ends.
    expect(counts.payouts).toBeGreaterThanOrEqual(2);
    expect(counts.chainTxs).toBeGreaterThanOrEqual(1);

    expect((await orderRow(ln.id)).status).toBe("CANCELLED");
    expect((await orderRow(ex.id)).status).toBe("CANCELLED");
    const ws = await db()
      .select({ id: withdrawals.id, status: withdrawals.status })
      .from(withdrawals)
      .where(eq(withdrawals.merchantId, merchant.id));
    const statusOf = (id: string) => ws.find((w) => w.id === id)?.status;
    expect(statusOf(pixOut.body.id)).toBe("COMPLETED");
    expect(statusOf(failing.body.id)).toBe("FAILED");
    expect(statusOf(onchain.body.id)).toBe("COMPLETED");
    // The failed pix-out is credited back, once.
    expect(await ledgerSum(db(), merchant.id)).toBe(100_000 - 10_000 - 10_080);

    // A second sweep finds nothing of this merchant's to do.
    await runSweep();
    expect(await ledgerSum(db(), merchant.id)).toBe(100_000 - 10_000 - 10_080);
    const evs = await db()
      .select()
      .from(events)
      .where(
        and(
          eq(events.merchantId, merchant.id),
          inArray(events.subjectId, [ln.id, ex.id, pixOut.body.id, failing.body.id, onchain.body.id]),
        ),
      );
    // 2 order cancellations + 3 withdrawals × (created + final)
    expect(evs).toHaveLength(8);
    const reversals = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchant.id), eq(ledgerEntries.kind, "withdrawal_reversal")));
    expect(reversals.map((r) => r.amountCentavos)).toEqual([20_000]);
  });
});

describe("background jobs on pg-boss", () => {
  const previousSweep = process.env.EXPIRY_SWEEP_SECONDS;

  afterAll(async () => {
    await stopJobs();
    if (previousSweep === undefined) delete process.env.EXPIRY_SWEEP_SECONDS;
    else process.env.EXPIRY_SWEEP_SECONDS = previousSweep;
    resetEnvForTests();
  });

  it("startJobs() cancels an expired Lightning order by itself, and a pix-out enqueued while jobs run completes by itself", async () => {
    process.env.EXPIRY_SWEEP_SECONDS = "1";
    resetEnvForTests();
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const ln = await createLightning(apiKey);
    await backdate(ln.id);

    const boss = await startJobs();
    expect(boss).toBeDefined();
    // startJobs is idempotent: the same queue is returned.
    expect(await startJobs()).toBe(boss);

    const cancelled = (
      await waitFor(
        "the Lightning order to be CANCELLED",
        () => orderRow(ln.id),
        (o) => o.status === "CANCELLED",
        20_000,
        { everyMs: 200 },
      )
    ).value;
    expect(cancelled.status).toBe("CANCELLED");
    expect(await statusEvents(ln.id)).toHaveLength(1);

    const pixOut = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 12_345 } });
    expect(pixOut.status).toBe(201);
    const onchain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { toAddress: TO, value: 50, network: "polygon" },
    });
    expect(onchain.status).toBe(200);

    for (const id of [pixOut.body.id, onchain.body.id]) {
      await waitFor(
        `withdrawal ${id} to be COMPLETED`,
        async () => (await api("GET", `/api/v1/withdrawals/${id}`, { apiKey })).body.withdrawal.status,
        (s) => s === "COMPLETED",
        20_000,
        { everyMs: 200 },
      );
      // It went through the queue: a job for its payout (pix-out) or its transaction (on-chain) exists and finished.
      const jobs = (
        await waitFor(
          `the job of withdrawal ${id} to complete`,
          () =>
            db().execute<{ state: string }>(sql`
            select j.state from pgboss.job j
            where (j.name = 'pix-payout' and j.data->>'id' in (select id::text from pix_payouts where owner_id = ${id}))
               or (j.name = 'chain-tx' and j.data->>'id' in (select id::text from chain_txs where owner_id = ${id}))`),
          (rows) => rows.length > 0 && rows.every((r) => r.state === "completed"),
          20_000,
          { everyMs: 200 },
        )
      ).value;
      expect(jobs.length).toBeGreaterThan(0);
    }
    // 50,000 − 12,345 − (5,000 + 25 + 5)
    expect(await ledgerSum(db(), merchant.id)).toBe(50_000 - 12_345 - 5_030);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBe(50_000 - 12_345 - 5_030);

    // Sweep ticks never pile up behind a slow sweep: at most one waits while one runs.
    const sent = await Promise.all(Array.from({ length: 10 }, () => boss.send("sweep", {}, { singletonKey: "tick" })));
    expect(sent.filter((id) => id !== null).length).toBeLessThanOrEqual(2);
    const [queued] = await db().execute<{ n: number }>(
      sql`select count(*)::int as n from pgboss.job where name = 'sweep' and state = 'created' and singleton_key = 'tick'`,
    );
    expect(queued.n).toBeLessThanOrEqual(1);

    await stopJobs();
    // After stopJobs nothing is enqueued (no error either): the sweep picks such withdrawals up later.
    const later = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } });
    expect(later.status).toBe(201);
    const [row] = await db().select().from(withdrawals).where(eq(withdrawals.id, later.body.id));
    expect(row.status).toBe("PENDING");
  });
});
