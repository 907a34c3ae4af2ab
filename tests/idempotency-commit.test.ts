import { and, eq, isNotNull, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "@/db";
import {
  chainTransfers,
  chainTxs,
  cryptoPixPayments,
  idempotencyKeys,
  ledgerEntries,
  onchainOrders,
  orderRefunds,
  orders,
  webhookDeliveries,
  webhookEndpoints,
  type MerchantProfile,
} from "@/db/schema";
import { API_ENDPOINTS } from "@/lib/api/endpoints";
import { takesIdempotencyKey } from "@/lib/api/openapi";
import { QRCODE_EXAMPLE } from "@/lib/crypto-pix/examples";
import { bodyHash } from "@/lib/http/canonical-json";
import { claimIdempotencyKey, type IdempotencyClaim } from "@/lib/http/idempotency";
import { createPixOrder } from "@/lib/orders/service";
import { withRequestContext } from "@/lib/request-context";
import { api, seedMerchant } from "./helpers";
import { idempotencyKeyOf, ONCHAIN_WITHDRAW, onchainWithdrawBody, withdrawalsOf } from "./idempotency-helpers";
import { balanceMatchesLedger } from "./support/ledger";

// docs/api.md#idempotency-and-rate-limits when a request dies after moving money: its business transaction committed (a withdrawal
// and its debit, an order, a refund) but its response was never stored on its Idempotency-Key. Once its
// lease runs out, the retry must answer with what the dead request made, never make it again. And a
// request that stalled past its lease while a retry ran in its place must write nothing when it wakes.
//
// The process "dies" where it would hurt: a request is held at the point its commit is done and its
// response not yet stored (before completeIdempotencyKey), or inside its business transaction (in
// recordEvent, after the debit). Its lease is then made to run out, as a dead holder's does.

type Gate = { arrive: () => void; proceed: Promise<void> };
const hooks = vi.hoisted(() => ({
  beforeStoring: null as Gate | null,
  inTransaction: null as Gate | null,
  failAfterCommit: false,
}));

/** Holds the next request that reaches `at` there until released. */
function holdAt(at: "beforeStoring" | "inTransaction") {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (arrive = r));
  const proceed = new Promise<void>((r) => (release = r));
  hooks[at] = { arrive, proceed };
  return { reached, release };
}

async function passGate(at: "beforeStoring" | "inTransaction") {
  const gate = hooks[at];
  if (!gate) return;
  hooks[at] = null;
  gate.arrive();
  await gate.proceed;
}

vi.mock("@/lib/http/idempotency", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/http/idempotency")>();
  return {
    ...real,
    completeIdempotencyKey: async (...args: Parameters<typeof real.completeIdempotencyKey>) => {
      await passGate("beforeStoring");
      return real.completeIdempotencyKey(...args);
    },
  };
});
vi.mock("@/lib/events/outbox", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/events/outbox")>();
  return {
    ...real,
    recordEvent: async (...args: Parameters<typeof real.recordEvent>) => {
      await passGate("inTransaction");
      return real.recordEvent(...args);
    },
  };
});
// What a withdrawal does after its transaction commits (the audit row and the mails are written inside
// it): waking the mail sender. Failing there is a failure after the commit.
vi.mock("@/lib/mail/mailer", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/mail/mailer")>();
  return {
    ...real,
    deliverQueuedSoon: () => {
      if (hooks.failAfterCommit) {
        hooks.failAfterCommit = false;
        throw new Error("mail sender unavailable");
      }
      return real.deliverQueuedSoon();
    },
  };
});

afterEach(() => {
  hooks.beforeStoring = null;
  hooks.inTransaction = null;
  hooks.failAfterCommit = false;
  vi.restoreAllMocks();
});

const PIX_OUT = "/api/v1/order/pix-out";

/** What a dead holder leaves: a lease no one renews any more, run out. */
async function leaseRunsOut(merchantId: string, key: string) {
  await db()
    .update(idempotencyKeys)
    .set({ leaseUntil: sql`now() - interval '1 second'` })
    .where(and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.key, key)));
}

const ledgerOf = (merchantId: string, kind: "withdrawal_debit" | "refund_debit") =>
  db()
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.kind, kind)));

async function paidPixOrder(apiKey: string, value: number): Promise<string> {
  const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id: string = created.body.pixOrder._id;
  expect((await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey })).status).toBe(200);
  return id;
}

/**
 * Sends a request with `key` that commits and dies before its response is stored; then, once its
 * lease ran out, the client's retry. Returns both answers: the dead request's own (never sent, as
 * it died) once released, and the retry's.
 */
async function diesAfterCommit(merchantId: string, key: string, send: () => ReturnType<typeof api>) {
  const held = holdAt("beforeStoring");
  const dead = send();
  await Promise.race([
    held.reached,
    dead.then((r) => Promise.reject(new Error(`answered before storing: ${r.status} ${JSON.stringify(r.body)}`))),
  ]);
  // Until its lease runs out the holder may still be alive: a retry is a 409, and runs nothing.
  const early = await send();
  expect(early.status, JSON.stringify(early.body)).toBe(409);
  await leaseRunsOut(merchantId, key);
  const retry = await send();
  held.release();
  return { dead: await dead, retry };
}

describe("Idempotency-Key when the request died after its business transaction committed", () => {
  it("POST /api/v1/order/pix-out: the retry answers with the withdrawal it made; one withdrawal, one debit", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const body = { value: 50_00, pixKey: "maria@example.com" };
    const headers = { "idempotency-key": "pix-out-crash" };
    const { dead, retry } = await diesAfterCommit(merchant.id, "pix-out-crash", () =>
      api("POST", PIX_OUT, { apiKey, body, headers }),
    );

    const [w] = await withdrawalsOf(merchant.id);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toMatchObject({ message: "PIX withdrawal created", id: w.id, amount: 50_00 });
    expect(retry.body.id).toBe(dead.body.id);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
    expect((await ledgerOf(merchant.id, "withdrawal_debit")).map((e) => [e.refId, e.amountCentavos])).toEqual([
      [w.id, -50_00],
    ]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1_000_00 - 50_00);

    // The rebuilt answer is the one stored: every later retry gets it, byte for byte.
    expect(await idempotencyKeyOf(merchant.id, "pix-out-crash")).toMatchObject({
      state: "done",
      responseStatus: 201,
      resourceType: "withdrawal",
      resourceId: w.id,
    });
    const again = await api("POST", PIX_OUT, { apiKey, body, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(retry.body);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
  });

  it("POST /api/v1/onchain/withdraw/initiate: same withdrawal and transaction hash, one chain transaction, one debit", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const headers = { "idempotency-key": "onchain-crash" };
    const { dead, retry } = await diesAfterCommit(merchant.id, "onchain-crash", () =>
      api("POST", ONCHAIN_WITHDRAW, { apiKey, body: onchainWithdrawBody, headers }),
    );

    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toMatchObject({ success: true, id: dead.body.id, transactionHash: dead.body.transactionHash });
    const rows = await withdrawalsOf(merchant.id);
    expect(rows.map((w) => w.id)).toEqual([dead.body.id]);
    expect(await db().select().from(chainTxs).where(eq(chainTxs.ownerId, dead.body.id))).toHaveLength(1);
    expect(await ledgerOf(merchant.id, "withdrawal_debit")).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1_000_00 - rows[0].debitCentavos);
  });

  it("POST /api/v1/order/{id}/refund: the retry answers with the refund it made; the order refunded and debited once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const orderId = await paidPixOrder(apiKey, 100);
    const path = `/api/v1/order/${orderId}/refund`;
    const headers = { "idempotency-key": "refund-crash" };
    const { dead, retry } = await diesAfterCommit(merchant.id, "refund-crash", () =>
      api("POST", path, { apiKey, body: { value: 40 }, headers }),
    );

    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(dead.body);
    const refunds = await db().select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId));
    expect(refunds.map((r) => r.id)).toEqual([dead.body.refund.id]);
    expect((await ledgerOf(merchant.id, "refund_debit")).map((e) => e.amountCentavos)).toEqual([-40_00]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_00 - 40_00);
  });

  const creations = [
    {
      path: "/api/v1/order/create/pix",
      body: { value: 25.9, orderId: "pedido-1042" },
      status: 200,
      id: (b: any) => b.pixOrder._id,
      table: orders,
    },
    {
      path: "/api/v1/order/create",
      body: { value: 150, payerId: "cliente-77" },
      status: 201,
      id: (b: any) => b.order.id,
      table: orders,
    },
    {
      path: "/api/v1/order/create/lightning",
      body: { value: 35, email: "maria@example.com" },
      status: 201,
      id: (b: any) => b.order.id,
      table: orders,
    },
    {
      path: "/api/v1/onchain/deposit",
      body: { value: 100.5, asset: "USDT", network: "polygon" },
      status: 201,
      id: (b: any) => b.order.id,
      table: onchainOrders,
    },
    {
      path: "/api/v1/crypto-pix/onchain/pay",
      body: { qrcode: QRCODE_EXAMPLE, network: "bsc" },
      status: 201,
      id: (b: any) => b.data.payCryptoPixId,
      table: cryptoPixPayments,
    },
    {
      path: "/api/v1/webhooks",
      body: { url: "https://shop.example.com/hooks/payments" },
      status: 201,
      id: (b: any) => b.webhook.id,
      table: webhookEndpoints,
    },
  ] as const;

  for (const c of creations) {
    it(`POST ${c.path}: the retry answers exactly what the dead request would have, and nothing is made twice`, async () => {
      const { merchant, apiKey } = await seedMerchant();
      const key = `create-crash-${c.path}`;
      const { dead, retry } = await diesAfterCommit(merchant.id, key, () =>
        api("POST", c.path, { apiKey, body: c.body, headers: { "idempotency-key": key } }),
      );
      expect(dead.status, JSON.stringify(dead.body)).toBe(c.status);
      expect(retry.status, JSON.stringify(retry.body)).toBe(c.status);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.body).toEqual(dead.body);
      expect(c.id(retry.body)).toEqual(expect.any(String));
      expect(await db().select().from(c.table).where(eq(c.table.merchantId, merchant.id))).toHaveLength(1);
    });
  }

  // Helpers that change something rather than create it: the key is bound to what they changed or recorded.
  const changes = [
    {
      name: "POST /api/v1/sandbox/orders/{id}/pay",
      prepare: async (apiKey: string) => {
        const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 20 } });
        return { path: `/api/v1/sandbox/orders/${created.body.pixOrder._id}/pay`, body: undefined };
      },
      status: 200,
      once: async (merchantId: string) =>
        db()
          .select()
          .from(ledgerEntries)
          .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.kind, "order_credit"))),
    },
    {
      name: "POST /api/v1/sandbox/onchain/{paymentLinkId}/transfer",
      prepare: async (apiKey: string) => {
        const created = await api("POST", "/api/v1/onchain/deposit", {
          apiKey,
          body: { value: 100, asset: "USDT", network: "polygon" },
        });
        return { path: `/api/v1/sandbox/onchain/${created.body.order.paymentLinkId}/transfer`, body: { amount: "5" } };
      },
      status: 200,
      once: async (merchantId: string) => {
        const [order] = await db().select().from(onchainOrders).where(eq(onchainOrders.merchantId, merchantId));
        return db().select().from(chainTransfers).where(eq(chainTransfers.ownerId, order.id));
      },
    },
    {
      name: "POST /api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer",
      prepare: async (apiKey: string) => {
        const created = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
          apiKey,
          body: { qrcode: QRCODE_EXAMPLE, network: "bsc" },
        });
        return {
          path: `/api/v1/sandbox/crypto-pix/${created.body.data.payCryptoPixId}/transfer`,
          body: { amount: String(created.body.data.cryptoValue) },
        };
      },
      status: 200,
      once: async (merchantId: string) => {
        const [payment] = await db()
          .select()
          .from(cryptoPixPayments)
          .where(eq(cryptoPixPayments.merchantId, merchantId));
        return db().select().from(chainTransfers).where(eq(chainTransfers.ownerId, payment.id));
      },
    },
    {
      name: "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
      prepare: async (apiKey: string) => {
        const hook = await api("POST", "/api/v1/webhooks", {
          apiKey,
          body: { url: "https://shop.example.com/hooks/payments" },
        });
        await paidPixOrder(apiKey, 15);
        const [delivery] = await db()
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.endpointId, hook.body.webhook.id));
        return {
          path: `/api/v1/webhooks/${hook.body.webhook.id}/deliveries/${delivery.id}/redeliver`,
          body: undefined,
        };
      },
      status: 201,
      once: async (merchantId: string) =>
        db()
          .select()
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.merchantId, merchantId), isNotNull(webhookDeliveries.redeliveryOf))),
    },
  ];

  for (const c of changes) {
    it(`${c.name}: the retry answers what the dead request would have, and nothing is done twice`, async () => {
      const { merchant, apiKey } = await seedMerchant();
      const { path, body } = await c.prepare(apiKey);
      const key = `change-crash-${c.name.replace(/\W+/g, "-")}`;
      const { dead, retry } = await diesAfterCommit(merchant.id, key, () =>
        api("POST", path, { apiKey, body, headers: { "idempotency-key": key } }),
      );
      expect(dead.status, JSON.stringify(dead.body)).toBe(c.status);
      expect(retry.status, JSON.stringify(retry.body)).toBe(c.status);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.body).toEqual(dead.body);
      expect(await c.once(merchant.id)).toHaveLength(1);
    });
  }

  it("a failure after the commit (a 5xx) is not stored, yet the key stays bound: the next retry gets the withdrawal at once", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const headers = { "idempotency-key": "fails-after-commit" };
    hooks.failAfterCommit = true;
    const failed = await api("POST", PIX_OUT, { apiKey, body: { value: 10_00 }, headers });
    expect(failed.status).toBe(500);
    const [w] = await withdrawalsOf(merchant.id);
    // No waiting for the lease: the failed request gave it up, its resource still bound.
    const retry = await api("POST", PIX_OUT, { apiKey, body: { value: 10_00 }, headers });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.id).toBe(w.id);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1_000_00 - 10_00);
  });

  it("a committed key is still a 422 for another body", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const headers = { "idempotency-key": "committed-422" };
    await diesAfterCommit(merchant.id, "committed-422", () =>
      api("POST", PIX_OUT, { apiKey, body: { value: 10_00 }, headers }),
    );
    const other = await api("POST", PIX_OUT, { apiKey, body: { value: 11_00 }, headers });
    expect(other.status).toBe(422);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
  });
});

describe("Idempotency-Key: a request that lost its key to a retry writes nothing", () => {
  const stalls = [
    {
      name: "POST /api/v1/order/pix-out",
      prepare: async () => {
        const seeded = await seedMerchant({ balanceCentavos: 1_000_00 });
        return { ...seeded, path: PIX_OUT, body: { value: 70_00 } };
      },
      made: async (merchantId: string) => (await withdrawalsOf(merchantId)).map((w) => w.id),
      debits: (merchantId: string) => ledgerOf(merchantId, "withdrawal_debit"),
      id: (b: any) => b.id,
      status: 201,
      balanceAfter: 1_000_00 - 70_00,
    },
    {
      name: "POST /api/v1/order/{id}/refund",
      prepare: async () => {
        const seeded = await seedMerchant();
        const orderId = await paidPixOrder(seeded.apiKey, 100);
        return { ...seeded, path: `/api/v1/order/${orderId}/refund`, body: { value: 30 } };
      },
      made: async (merchantId: string) =>
        (await db().select().from(orderRefunds).where(eq(orderRefunds.merchantId, merchantId))).map((r) => r.id),
      debits: (merchantId: string) => ledgerOf(merchantId, "refund_debit"),
      id: (b: any) => b.refund.id,
      status: 201,
      balanceAfter: 100_00 - 30_00,
    },
  ];

  for (const s of stalls) {
    it(`${s.name}: stalled inside its transaction past its lease, it is rolled back when it wakes; the retry's is the only one`, async () => {
      const { merchant, apiKey, path, body } = await s.prepare();
      const key = `stalled-${s.name.replace(/\W+/g, "-")}`;
      const headers = { "idempotency-key": key };
      const held = holdAt("inTransaction");
      const stalled = api("POST", path, { apiKey, body, headers });
      // Debited, its transaction open, its commit not yet made.
      await Promise.race([
        held.reached,
        stalled.then((r) =>
          Promise.reject(new Error(`answered without stalling: ${r.status} ${JSON.stringify(r.body)}`)),
        ),
      ]);
      const stalledClaim = (await idempotencyKeyOf(merchant.id, key)).claimId;
      await leaseRunsOut(merchant.id, key);
      const retry = api("POST", path, { apiKey, body, headers });
      // Woken only once the retry has taken the key over (it then waits for the stalled request's row locks).
      for (let i = 0; (await idempotencyKeyOf(merchant.id, key)).claimId === stalledClaim; i++) {
        if (i > 200) throw new Error("the retry never took the key over");
        await new Promise((r) => setTimeout(r, 10));
      }
      held.release();
      const [late, ran] = await Promise.all([stalled, retry]);

      expect(late.status, JSON.stringify(late.body)).toBe(409);
      expect(late.body.message ?? late.body.error).toMatch(/taken over/);
      expect(ran.status, JSON.stringify(ran.body)).toBe(s.status);
      expect(ran.headers.get("idempotent-replayed")).toBeNull();
      expect(await s.made(merchant.id)).toEqual([s.id(ran.body)]);
      expect(await s.debits(merchant.id)).toHaveLength(1);
      expect(await balanceMatchesLedger(merchant.id)).toBe(s.balanceAfter);
      const again = await api("POST", path, { apiKey, body, headers });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.body).toEqual(ran.body);
    });
  }

  it("an order-creating service called for a claim that was taken over rolls back: no order", async () => {
    const { merchant } = await seedMerchant();
    const path = "/api/v1/order/create/pix";
    const scope = {
      merchantId: merchant.id,
      key: "zombie-order",
      method: "POST",
      path,
      bodyHash: bodyHash({ value: 12 }),
    };
    const first = await claimIdempotencyKey(scope);
    if (first.kind !== "claimed") throw new Error("expected a claim");
    await leaseRunsOut(merchant.id, "zombie-order");
    expect((await claimIdempotencyKey(scope)).kind).toBe("claimed");

    const stale: IdempotencyClaim = first.claim;
    const late = withRequestContext({ requestId: "req_zombie", idempotencyKey: stale }, () =>
      createPixOrder(merchant as MerchantProfile, { value: 12_00 } as never),
    );
    await expect(late).rejects.toMatchObject({ status: 409 });
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toHaveLength(0);
  });
});

describe("Idempotency-Key binding: where it applies and what it costs", () => {
  it("every POST that takes an Idempotency-Key can answer from what it committed", () => {
    const keyed = API_ENDPOINTS.filter(takesIdempotencyKey);
    expect(keyed.length).toBeGreaterThanOrEqual(13);
    expect(keyed.filter((e) => !e.replays).map((e) => `${e.method} ${e.path}`)).toEqual([]);
  });

  it("POST /api/v1/order/create/pix without a key: one statement, no transaction, no key row", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const transaction = vi.spyOn(db(), "transaction");
    const plain = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
    expect(plain.status).toBe(200);
    expect(transaction).not.toHaveBeenCalled();
    expect(await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.merchantId, merchant.id))).toHaveLength(
      0,
    );

    const keyed = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 10 },
      headers: { "idempotency-key": "with-key" },
    });
    expect(keyed.status).toBe(200);
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(await idempotencyKeyOf(merchant.id, "with-key")).toMatchObject({
      state: "done",
      resourceType: "order",
      resourceId: keyed.body.pixOrder._id,
    });
  });
});
