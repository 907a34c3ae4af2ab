import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import {
  events,
  onchainOrders,
  orderSplits,
  orders,
  pixReceipts,
  recipientLedgerEntries,
  recipients,
} from "@/db/schema";
import { env } from "@/lib/env";
import { applyPixReturns } from "@/lib/med/returns";
import { expireDeposits } from "@/lib/onchain/service";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { applyProviderPayment } from "@/lib/orders/provider-payments";
import { completeOrder, expireOrders } from "@/lib/orders/service";
import { markCancelled } from "@/lib/orders/queries";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { recipientBalanceMatchesLedger, seedRecipient } from "./support/recipients";

// Splits credited when the payment is confirmed (docs/api.md#splits), on every rail, against the real
// handlers and PostgreSQL: each part once however often (and from however many places) the payment
// is confirmed, the merchant its remainder, every account's balance equal to its ledger, and refunds
// and MED devoluções taken back pro rata.

type Seller = Awaited<ReturnType<typeof seedMerchant>>;

async function sellerWithRecipients(n = 2) {
  const seller = await seedMerchant();
  const rs = [];
  for (let i = 0; i < n; i++) rs.push(await seedRecipient(seller.merchant.id, `Recebedor ${i}`));
  return { ...seller, recipients: rs };
}

const create = (apiKey: string, path: string, body: Record<string, unknown>) => api("POST", path, { apiKey, body });
const pay = (apiKey: string, id: string) => api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey });

async function creditEvents(subjectId: string) {
  return db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, subjectId), eq(events.type, "order.split.credited")));
}

async function partsOf(column: "orderId" | "onchainOrderId", id: string) {
  return db()
    .select()
    .from(orderSplits)
    .where(eq(column === "orderId" ? orderSplits.orderId : orderSplits.onchainOrderId, id))
    .orderBy(asc(orderSplits.position));
}

/** Every account balances with its ledger, and the parts plus the merchant's credit are what was credited. */
async function expectBooks(s: Seller & { recipients: { id: string }[] }, merchantExpected: number, parts: number[]) {
  expect(await balanceMatchesLedger(s.merchant.id)).toBe(merchantExpected);
  for (let i = 0; i < parts.length; i++)
    expect(await recipientBalanceMatchesLedger(s.merchant.id, s.recipients[i].id)).toBe(parts[i]);
}

describe("POST /api/v1/order/create/pix with splits", () => {
  it("shows the planned parts, then credits each once and the merchant its remainder", async () => {
    const s = await sellerWithRecipients();
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/order/create/pix", {
      value: 100,
      splits: [
        { recipientId: a.id, value: 10 },
        { recipientId: b.id, percentage: 25.55, chargeFees: false },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.pixOrder.splits).toEqual([
      { recipientId: a.id, value: 10, refundedValue: 0, status: "PENDING" },
      { recipientId: b.id, value: 25.55, percentage: 25.55, refundedValue: 0, status: "PENDING" },
    ]);
    const id = created.body.pixOrder._id;

    const paid = await pay(s.apiKey, id);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.order.splits.map((p: { status: string }) => p.status)).toEqual(["CREDITED", "CREDITED"]);
    // Twice: the second is refused and moves nothing.
    expect((await pay(s.apiKey, id)).status).toBe(409);
    await expectBooks(s, 10_000 - 1000 - 2555, [1000, 2555]);

    const looked = await api("GET", `/api/v1/order/${id}`, { apiKey: s.apiKey });
    expect(looked.body.order.splits).toEqual([
      { recipientId: a.id, value: 10, refundedValue: 0, status: "CREDITED" },
      { recipientId: b.id, value: 25.55, percentage: 25.55, refundedValue: 0, status: "CREDITED" },
    ]);
    const listed = await api("GET", "/api/v1/orders?type=pix", { apiKey: s.apiKey });
    expect(listed.body.orders[0].splits).toEqual(looked.body.order.splits);

    const [event] = await creditEvents(id);
    expect(event.data).toMatchObject({ orderId: id, orderType: "pix", creditedValue: 100, merchantValue: 64.45 });
    expect(await creditEvents(id)).toHaveLength(1);
    // The order's status_changed event carries the parts as credited.
    const [changed] = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, id), eq(events.type, "order.status_changed")));
    expect((changed.data as { splits: unknown[] }).splits).toHaveLength(2);
  });

  it("credits once when the same PIX is confirmed concurrently from several places", async () => {
    const s = await sellerWithRecipients();
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/order/create/pix", {
      value: 33.33,
      splits: [
        { recipientId: a.id, percentage: 33.33 },
        { recipientId: b.id, percentage: 33.33 },
      ],
    });
    const id = created.body.pixOrder._id;
    const [row] = await db().select().from(orders).where(eq(orders.id, id));
    const pix = {
      endToEndId: `E${randomUUID().replace(/-/g, "").slice(0, 31)}`,
      txid: row.txid,
      valueCentavos: 3333,
      paidAt: new Date(),
      chave: env().PIX_RECEIVER_KEY,
    };
    await Promise.allSettled([
      applyReceivedPix(pix, "notification"),
      applyReceivedPix(pix, "poll"),
      applyReceivedPix({ ...pix, endToEndId: `${pix.endToEndId.slice(0, 31)}X` }, "poll"),
      completeOrder(id),
      pay(s.apiKey, id),
    ]);
    // floor(3333 × 33.33%) = 1110 each; the merchant keeps 3333 − 2220.
    await expectBooks(s, 1113, [1110, 1110]);
    expect(await creditEvents(id)).toHaveLength(1);
    const entries = await db()
      .select()
      .from(recipientLedgerEntries)
      .where(eq(recipientLedgerEntries.merchantId, s.merchant.id));
    expect(entries).toHaveLength(2);
  });
});

describe("a split order paid after it was cancelled", () => {
  async function splitOrder(s: Awaited<ReturnType<typeof sellerWithRecipients>>) {
    const created = await create(s.apiKey, "/api/v1/order/create/pix", {
      value: 50,
      expiresIn: 600,
      splits: [{ recipientId: s.recipients[0].id, value: 10 }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const [row] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
    return row;
  }
  const pixFor = (row: { txid: string | null }, paidAt: Date) => ({
    endToEndId: `E${randomUUID().replace(/-/g, "").slice(0, 31)}`,
    txid: row.txid,
    valueCentavos: 5000,
    paidAt,
    chave: env().PIX_RECEIVER_KEY,
  });

  it("paid before its expiry, reported after the sweep cancelled it: the parts are credited once", async () => {
    const s = await sellerWithRecipients(1);
    const row = await splitOrder(s);
    await markCancelled(db(), [row.id]);
    const pix = pixFor(row, new Date());
    await Promise.all([applyReceivedPix(pix, "notification"), applyReceivedPix(pix, "poll")]);
    await expectBooks(s, 4000, [1000]);
    expect(await creditEvents(row.id)).toHaveLength(1);
    expect((await partsOf("orderId", row.id)).map((p) => p.status)).toEqual(["CREDITED"]);
  });

  it("paid after its expiry: the PIX is kept unapplied and no part is credited", async () => {
    const s = await sellerWithRecipients(1);
    const row = await splitOrder(s);
    await db().execute(sql`update orders set expires_at = now() - interval '1 minute' where id = ${row.id}`);
    await expireOrders([row.id]);
    const outcome = await applyReceivedPix(pixFor(row, new Date()), "notification");
    expect(outcome).toMatchObject({ duplicate: false, applied: false });
    await expectBooks(s, 0, [0]);
    expect(await creditEvents(row.id)).toHaveLength(0);
    const looked = await api("GET", `/api/v1/order/${row.id}`, { apiKey: s.apiKey });
    expect(looked.body.order.status).toBe("CANCELLED");
    expect(looked.body.order.splits.map((p: { status: string }) => p.status)).not.toContain("CREDITED");
  });
});

describe("splits on exchange-wallet and Lightning orders", () => {
  it("POST /api/v1/order/create → credited once when the provider's payment is applied twice and concurrently", async () => {
    const s = await sellerWithRecipients();
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/order/create", {
      value: 150,
      splits: [
        { recipientId: a.id, value: 50 },
        { recipientId: b.id, percentage: 10 },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.order.splits).toHaveLength(2);
    const id = created.body.order.id;
    const payment = {
      provider: "sandbox",
      paymentRef: `pay-${id}`,
      orderId: id,
      paidAt: new Date(),
      source: "notification" as const,
    };
    await Promise.all([
      applyProviderPayment(payment),
      applyProviderPayment(payment),
      applyProviderPayment({ ...payment, paymentRef: `pay2-${id}`, source: "poll" }),
    ]);
    await applyProviderPayment(payment);
    await expectBooks(s, 15_000 - 5000 - 1500, [5000, 1500]);
    expect(await creditEvents(id)).toHaveLength(1);
  });

  it("POST /api/v1/order/create/lightning → a whole split credited once, the merchant nothing", async () => {
    const s = await sellerWithRecipients();
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/order/create/lightning", {
      value: 35,
      splits: [
        { recipientId: a.id, percentage: 60 },
        { recipientId: b.id, value: 14 },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.order.splits).toEqual([
      { recipientId: a.id, value: 21, percentage: 60, refundedValue: 0, status: "PENDING" },
      { recipientId: b.id, value: 14, refundedValue: 0, status: "PENDING" },
    ]);
    const id = created.body.order.id;
    await Promise.allSettled([completeOrder(id), completeOrder(id), pay(s.apiKey, id)]);
    await expectBooks(s, 0, [2100, 1400]);
    expect(await creditEvents(id)).toHaveLength(1);
  });
});

describe("splits on on-chain deposits", () => {
  const transfer = (apiKey: string, link: string, body: Record<string, unknown>) =>
    api("POST", `/api/v1/sandbox/onchain/${link}/transfer`, { apiKey, body });

  it("credits the parts of the order's value once; an overpayment's excess is the merchant's unapplied funds", async () => {
    const s = await sellerWithRecipients();
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/onchain/deposit", {
      value: 200,
      network: "polygon",
      asset: "USDT",
      splits: [
        { recipientId: a.id, percentage: 12.5 },
        { recipientId: b.id, value: 20.01 },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.order.splits).toHaveLength(2);
    const { paymentLinkId, amount } = created.body.order;
    const txHash = `0x${randomUUID().replace(/-/g, "")}${randomUUID().replace(/-/g, "")}`;
    const body = { amount: String(amount * 2), txHash };
    const results = await Promise.all([
      transfer(s.apiKey, paymentLinkId, body),
      transfer(s.apiKey, paymentLinkId, body),
    ]);
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    await expectBooks(s, 20_000 - 2500 - 2001, [2500, 2001]);
    const looked = await api("GET", `/api/v1/onchain/order/${paymentLinkId}`, { apiKey: s.apiKey });
    expect(looked.body.order.splits.map((p: { value: number }) => p.value)).toEqual([25, 20.01]);
    expect(await creditEvents(created.body.order.id)).toHaveLength(1);
  });

  it("a partial payment closed at expiry: the parts are shares of what was accepted", async () => {
    const s = await sellerWithRecipients();
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/onchain/deposit", {
      value: 100,
      network: "polygon",
      asset: "USDT",
      splits: [
        { recipientId: a.id, percentage: 50 },
        { recipientId: b.id, value: 30 },
      ],
    });
    const { paymentLinkId, amount, id } = created.body.order;
    const half = await transfer(s.apiKey, paymentLinkId, { amount: (Math.floor((amount * 1e6) / 2) / 1e6).toFixed(6) });
    expect(half.status, JSON.stringify(half.body)).toBe(200);
    await db()
      .update(onchainOrders)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(onchainOrders.id, id));
    await Promise.all([expireDeposits([id]), expireDeposits([id])]);
    const [row] = await db().select().from(onchainOrders).where(eq(onchainOrders.id, id));
    const credited = row.creditedCentavos;
    expect(credited).toBeGreaterThan(0);
    const parts = await partsOf("onchainOrderId", id);
    // 50% of what was accepted; a fixed value pro rata: floor(3000 × credited / 10000).
    expect(parts.map((p) => p.valueCentavos)).toEqual([
      Math.floor(credited / 2),
      Math.floor((3000 * credited) / 10_000),
    ]);
    const merchant = credited - parts[0].valueCentavos - parts[1].valueCentavos;
    await expectBooks(s, merchant, [parts[0].valueCentavos, parts[1].valueCentavos]);
    expect(await creditEvents(id)).toHaveLength(1);
  });
});

/**
 * Runs `start`'s work while another transaction holds the order's split rows, and lets go once
 * `waiters` sessions are waiting on a lock: what each read before it waited is then what it acts on.
 */
async function whileSplitsLocked<T extends unknown[]>(
  orderId: string,
  waiters: number,
  start: () => [...{ [K in keyof T]: Promise<T[K]> }],
) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let holding!: () => void;
  const held = new Promise<void>((r) => (holding = r));
  const blocker = db().transaction(async (tx) => {
    await tx.execute(sql`select id from order_splits where order_id = ${orderId} for update`);
    holding();
    await released;
  });
  await held;
  const work = Promise.all(start());
  try {
    for (let waited = 0; ; waited += 50) {
      const [row] = await db().execute<{ n: number }>(
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (row.n >= waiters) break;
      if (waited > 30_000) throw new Error(`only ${row.n} of ${waiters} sessions came to wait on a lock`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    release();
    await blocker;
  }
  return work as Promise<T>;
}

describe("refunds and MED returns of a split order", () => {
  async function paidSplitPix(s: Awaited<ReturnType<typeof sellerWithRecipients>>) {
    const [a, b] = s.recipients;
    const created = await create(s.apiKey, "/api/v1/order/create/pix", {
      value: 100,
      splits: [
        { recipientId: a.id, percentage: 30 },
        { recipientId: b.id, value: 20 },
      ],
    });
    const id = created.body.pixOrder._id as string;
    expect((await pay(s.apiKey, id)).status).toBe(200);
    await expectBooks(s, 5000, [3000, 2000]);
    return id;
  }

  /** The order's PIX as the PSP reports it with one devolução of `valueCentavos`, DEVOLVIDO. */
  async function pixReturning(orderId: string, valueCentavos: number) {
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, orderId));
    const devolucao = {
      id: `D${randomUUID().replace(/-/g, "").slice(0, 20)}`,
      rtrId: `D${randomUUID().replace(/-/g, "").slice(0, 31)}`,
      valueCentavos,
      natureza: "MED_FRAUDE" as const,
      status: "DEVOLVIDO" as "DEVOLVIDO" | "EM_PROCESSAMENTO",
      requestedAt: new Date(),
      returnedAt: new Date() as Date | null,
      description: null,
    };
    return {
      endToEndId: receipt.endToEndId,
      txid: receipt.txid,
      valueCentavos: 10_000,
      paidAt: receipt.paidAt,
      chave: env().PIX_RECEIVER_KEY,
      returns: [devolucao],
    };
  }

  it("POST /api/v1/order/{id}/refund takes back from each part pro rata; a FAILED one gives it back", async () => {
    const s = await sellerWithRecipients();
    const id = await paidSplitPix(s);
    const first = await api("POST", `/api/v1/order/${id}/refund`, { apiKey: s.apiKey, body: { value: 33.33 } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // floor(3000 × 3333 / 10000) = 999, floor(2000 × 3333 / 10000) = 666; the merchant the rest, 1668.
    await expectBooks(s, 5000 - 1668, [3000 - 999, 2000 - 666]);

    const failed = await api("POST", `/api/v1/order/${id}/refund`, {
      apiKey: s.apiKey,
      body: { value: 10, reason: "sandbox-fail" },
    });
    expect(failed.body.refund.status).toBe("FAILED");
    await expectBooks(s, 5000 - 1668, [3000 - 999, 2000 - 666]);

    const rest = await api("POST", `/api/v1/order/${id}/refund`, { apiKey: s.apiKey, body: {} });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    const looked = await api("GET", `/api/v1/order/${id}`, { apiKey: s.apiKey });
    expect(looked.body.order.status).toBe("REFUND");
    // The rest (66.67) completes each part's share of the whole: every part is taken back exactly, and
    // the merchant pays back exactly its own 50.00 over both refunds.
    expect(looked.body.order.splits).toEqual([
      { recipientId: s.recipients[0].id, value: 30, percentage: 30, refundedValue: 30, status: "REFUNDED" },
      { recipientId: s.recipients[1].id, value: 20, refundedValue: 20, status: "REFUNDED" },
    ]);
    await expectBooks(s, 0, [0, 0]);
  });

  it("a MED devolução takes back from each part pro rata, and may leave a recipient below zero", async () => {
    const s = await sellerWithRecipients();
    const id = await paidSplitPix(s);
    // The recipient's balance was paid out meanwhile (an adjustment stands for the payout here).
    await db().execute(
      sql`update recipients set balance_centavos = balance_centavos - 3000 where id = ${s.recipients[0].id}`,
    );
    await db().insert(recipientLedgerEntries).values({
      merchantId: s.merchant.id,
      recipientId: s.recipients[0].id,
      kind: "payout",
      amountCentavos: -3000,
      refType: "test",
      refId: randomUUID(),
    });
    const pix = await pixReturning(id, 8000);
    await Promise.all([applyPixReturns(pix, "poll"), applyPixReturns(pix, "notification")]);
    // 80% back: 2400 from the first part, 1600 from the second, 4000 from the merchant.
    await expectBooks(s, 1000, [-2400, 400]);
  });

  it("a refund and a MED devolução racing on one order take back each part's share of their sum", async () => {
    // Each takes back pro rata on what refunds and returns took together, so the second must count the
    // first: a new devolução's row locks its order (its foreign key) against the refund's lock, and one
    // first seen in progress is already counted by the refund. 60.00 + 40.00 leave every account at zero.
    for (let round = 0; round < 4; round++) {
      const s = await sellerWithRecipients();
      const id = await paidSplitPix(s);
      const pix = await pixReturning(id, 4000);
      // A devolução the PSP first reported in progress reaches DEVOLVIDO by an update of its row.
      const progressed = round % 2 === 1;
      if (progressed)
        await applyPixReturns(
          { ...pix, returns: [{ ...pix.returns[0], status: "EM_PROCESSAMENTO", returnedAt: null }] },
          "poll",
        );
      // Both are held at the parts' lock until each has read what it will read, then let go together.
      const [refund] = await whileSplitsLocked(id, 2, () => [
        api("POST", `/api/v1/order/${id}/refund`, { apiKey: s.apiKey, body: { value: 60 } }),
        applyPixReturns(pix, "notification"),
      ]);
      expect(refund.status, JSON.stringify(refund.body)).toBe(201);
      await expectBooks(s, 0, [0, 0]);
      const parts = await partsOf("orderId", id);
      expect(parts.map((p) => [p.refundedCentavos, p.status])).toEqual([
        [3000, "REFUNDED"],
        [2000, "REFUNDED"],
      ]);
    }
  });
});

describe("splits refused at creation, in each endpoint's own error body", () => {
  const endpoints = [
    { path: "/api/v1/order/create/pix", extra: {}, shape: "message" },
    { path: "/api/v1/order/create", extra: {}, shape: "success" },
    { path: "/api/v1/order/create/lightning", extra: {}, shape: "success" },
    { path: "/api/v1/onchain/deposit", extra: { network: "polygon", asset: "USDT" }, shape: "message" },
  ] as const;

  for (const e of endpoints) {
    it(`POST ${e.path} → 400 for another merchant's recipient, an unknown one, and bad parts; nothing written`, async () => {
      const s = await sellerWithRecipients(2);
      const other = await sellerWithRecipients(1);
      const mine = s.recipients[0].id;
      const disabled = s.recipients[1].id;
      await db().update(recipients).set({ status: "DISABLED" }).where(eq(recipients.id, disabled));
      const cases: [unknown, string][] = [
        [[{ recipientId: other.recipients[0].id, value: 1 }], "split_recipient_unknown"],
        [[{ recipientId: disabled, value: 1 }], "split_recipient_disabled"],
        [[{ recipientId: randomUUID(), percentage: 5 }], "split_recipient_unknown"],
        [
          [
            { recipientId: mine, value: 1 },
            { recipientId: mine, value: 2 },
          ],
          "split_duplicate_recipient",
        ],
        [[{ recipientId: mine, percentage: 0 }], "split_percentage_out_of_range"],
        [[{ recipientId: mine, percentage: 100.01 }], "split_percentage_out_of_range"],
        [[{ recipientId: mine, value: 0 }], "split_value_not_positive"],
        [[{ recipientId: mine, value: 50.01 }], "split_sum_above_value"],
        [Array.from({ length: 21 }, () => ({ recipientId: randomUUID(), value: 1 })), "split_too_many"],
        [[{ recipientId: mine, value: 1, percentage: 1 }], "validation_failed"],
        [[{ recipientId: mine, value: 1.001 }], "validation_failed"],
        [[{ recipientId: "not-a-uuid", value: 1 }], "validation_failed"],
        [[{ recipientId: mine, value: 1, chargeFees: true }], "validation_failed"],
      ];
      for (const [splits, code] of cases) {
        const res = await create(s.apiKey, e.path, { value: 50, ...e.extra, splits });
        expect(res.status, `${code}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.code).toBe(code);
        if (e.shape === "message") expect(typeof res.body.message).toBe("string");
        else expect(res.body).toMatchObject({ success: false, error: expect.any(String) });
      }
      const made = await db().select().from(orders).where(eq(orders.merchantId, s.merchant.id));
      const deposits = await db().select().from(onchainOrders).where(eq(onchainOrders.merchantId, s.merchant.id));
      expect([...made, ...deposits]).toHaveLength(0);
    });
  }
});

describe("the payer's side", () => {
  it("GET /api/v1/public/payments/{paymentLinkId} shows nothing of the split", async () => {
    const s = await sellerWithRecipients(1);
    const created = await create(s.apiKey, "/api/v1/order/create/pix", {
      value: 20,
      splits: [{ recipientId: s.recipients[0].id, percentage: 50 }],
    });
    const link = created.body.pixOrder.paymentLinkId;
    const res = await api("GET", `/api/v1/public/payments/${link}`);
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain("splits");
    expect(text).not.toContain(s.recipients[0].id);
    await pay(s.apiKey, created.body.pixOrder._id);
    const after = JSON.stringify((await api("GET", `/api/v1/public/payments/${link}`)).body);
    expect(after).not.toContain("splits");
    expect(after).not.toContain(s.recipients[0].id);
  });
});
