import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { db } from "@/db";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { recordEvent } from "@/lib/events/outbox";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { startWebhookDispatcher, stopWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { UNREADABLE_SECRET } from "@/lib/webhooks/deliver";
import { listEndpointsWithSecretState } from "@/lib/webhooks/registry";
import { openSecret, sealPlainSecrets } from "@/lib/webhooks/secrets";
import { generateSecret } from "@/lib/webhooks/sign";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { api, seedMerchant, specOf } from "./helpers";
import { sleep, startReceiver, type Receiver } from "./webhook-receiver";

// Delivery end to end: the dispatcher runs in this process (as in a jobs-enabled server) and posts to
// real HTTP receivers on 127.0.0.1. setup-env sets WEBHOOK_TIMEOUT_MS=1000 and a 0.01 s retry base.

const receivers: Receiver[] = [];
async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

beforeAll(async () => {
  await startWebhookDispatcher();
});
afterAll(async () => {
  await stopWebhookDispatcher();
  await Promise.all(receivers.map((r) => r.close()));
});

async function hook(apiKey: string, url: string) {
  const res = await api("POST", "/api/v1/webhooks", { apiKey, body: { url } });
  expect(res.status).toBe(201);
  return res.body.webhook as { id: string; secret: string; url: string };
}

async function emit(merchantId: string, subjectId: string, data: Record<string, unknown>) {
  await db().transaction((tx) =>
    recordEvent(tx, { merchantId, type: "order.status_changed", subjectType: "order", subjectId, data }),
  );
}

async function waitUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await sleep(25);
  }
}

const deliveriesOf = (endpointId: string) =>
  db()
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(asc(webhookDeliveries.eventSeq));

const verify = (secret: string, r: { body: string; headers: Record<string, string> }) =>
  new Webhook(secret).verify(r.body, r.headers);

describe("delivery of every event type, signed (Standard Webhooks)", () => {
  it("order, on-chain deposit (status and unapplied funds), Crypto-PIX and both withdrawal kinds reach the receiver, and every signature verifies", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_000 });
    const rx = await receiver();
    const w = await hook(apiKey, rx.url);

    // order.status_changed
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 12.34 } });
    expect((await api("POST", `/api/v1/sandbox/orders/${pix.body.pixOrder._id}/pay`, { apiKey })).status).toBe(200);
    // onchain.deposit.status_changed + onchain.deposit.funds_unapplied (101 USDT for 100 due)
    const dep = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 540, asset: "USDT", network: "polygon" },
    });
    expect(
      (
        await api("POST", `/api/v1/sandbox/onchain/${dep.body.order.paymentLinkId}/transfer`, {
          apiKey,
          body: { amount: "101" },
        })
      ).status,
    ).toBe(200);
    // crypto_pix.status_changed
    const qrcode = encodeStaticBrCode({
      pixKey: "padaria@example.com",
      merchantName: "Padaria",
      merchantCity: "Sao Paulo",
      amountCentavos: 10_000,
    });
    const cp = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });
    expect(cp.status).toBe(201);
    const cpPaid = await api("POST", `/api/v1/sandbox/crypto-pix/${cp.body.data.payCryptoPixId}/transfer`, {
      apiKey,
      body: { amount: String(cp.body.data.cryptoValue) },
    });
    expect(cpPaid.body.payment.status).toBe("COMPLETED");
    // withdrawal.pix_out.status_changed and withdrawal.onchain.status_changed
    const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 1000 } });
    const chain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 100, network: "polygon" },
    });
    for (const id of [out.body.id, chain.body.id]) expect(await processWithdrawal(id)).toBe(true);

    const stored = await db().select().from(events).where(eq(events.merchantId, merchant.id)).orderBy(asc(events.seq));
    expect(new Set(stored.map((e) => e.type))).toEqual(
      new Set([
        "order.status_changed",
        "onchain.deposit.status_changed",
        "onchain.deposit.funds_unapplied",
        "crypto_pix.status_changed",
        "withdrawal.pix_out.status_changed",
        "withdrawal.onchain.status_changed",
      ]),
    );
    await rx.waitFor("every event", () => stored.every((e) => rx.ids().includes(e.id)));

    for (const e of stored) {
      const got = rx.received.filter((r) => r.json.id === e.id);
      expect(got).toHaveLength(1);
      const r = got[0];
      // The body is { id, type, createdAt, data }, the same object GET /api/v1/events lists.
      expect(verify(w.secret, r)).toEqual({
        id: e.id,
        type: e.type,
        createdAt: e.createdAt.toISOString(),
        data: e.data,
      });
      expect(r.headers["webhook-id"]).toBe(e.id);
      expect(Math.abs(Number(r.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
      expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(r.headers["content-type"]).toBe("application/json");
      // Tampering with the body or using another secret fails verification.
      expect(() => verify(generateSecret(), r)).toThrow();
      expect(() => new Webhook(w.secret).verify(r.body.replace(e.type, "x.y"), r.headers)).toThrow();
    }
    const orderEvent = rx.received.find((r) => r.json.type === "order.status_changed")!.json;
    expect(orderEvent.data).toMatchObject({
      id: pix.body.pixOrder._id,
      status: "COMPLETED",
      previousStatus: "PENDING",
      value: 12.34,
    });
    const unapplied = rx.received.find((r) => r.json.type === "onchain.deposit.funds_unapplied")!.json;
    expect(unapplied.data).toMatchObject({ unappliedAmount: 1, reason: "overpayment" });
    const listed = await api("GET", "/api/v1/events?limit=100", { apiKey });
    expect(listed.body.events).toEqual(stored.map((e) => rx.received.find((r) => r.json.id === e.id)!.json));

    const ds = await deliveriesOf(w.id);
    expect(ds.every((d) => d.status === "succeeded" && d.attempts === 1 && d.lastStatusCode === 200)).toBe(true);
  });
});

describe("retries", () => {
  it("a receiver answering 500, 500, then 200 gets the event on the third try; three attempts are stored and shown in the log", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await receiver((r) =>
      r.n <= 2 ? { status: 500, body: `boom ${r.n} ` + "x".repeat(2000) } : { status: 204 },
    );
    const w = await hook(apiKey, rx.url);
    await emit(merchant.id, "order-retry", { n: 1 });
    const [d] = await waitUntil(
      "success",
      () => deliveriesOf(w.id),
      (ds) => ds[0]?.status === "succeeded",
    );
    expect(d).toMatchObject({ attempts: 3, lastStatusCode: 204, lastError: null, nextAttemptAt: null });
    expect(rx.received).toHaveLength(3);
    // Same webhook-id every time; each attempt signed with its own timestamp, each verifiable.
    expect(new Set(rx.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of rx.received) expect(verify(w.secret, r)).toBeTruthy();

    const log = await api("GET", `/api/v1/webhooks/${w.id}/deliveries`, { apiKey });
    expect(log.status).toBe(200);
    const [entry] = log.body.deliveries;
    expect(entry).toMatchObject({
      id: d.id,
      eventId: d.eventId,
      eventType: "order.status_changed",
      status: "succeeded",
      attempts: 3,
      lastStatusCode: 204,
    });
    expect(entry.attemptsLog.map((a: any) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, "HTTP 500"],
      [2, 500, "HTTP 500"],
      [3, 204, null],
    ]);
    // The excerpt is capped at 1 KiB; retries were scheduled (0.01 s, then 0.6 s at the test base).
    expect(entry.attemptsLog[0].responseExcerpt).toMatch(/^boom 1 x+$/);
    expect(Buffer.byteLength(entry.attemptsLog[0].responseExcerpt)).toBe(1024);
    expect(entry.attemptsLog[0].nextAttemptAt).not.toBeNull();
    expect(entry.attemptsLog[2].nextAttemptAt).toBeNull();
    const gap = new Date(entry.attemptsLog[2].startedAt).getTime() - new Date(entry.attemptsLog[1].startedAt).getTime();
    expect(gap).toBeGreaterThanOrEqual(500);
  });

  it("a receiver that hangs is timed out (WEBHOOK_TIMEOUT_MS) and the event is retried", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await receiver(async (r) => {
      if (r.n === 1) await sleep(5000);
      return { status: 200 };
    });
    const w = await hook(apiKey, rx.url);
    await emit(merchant.id, "order-hang", {});
    const [d] = await waitUntil(
      "success",
      () => deliveriesOf(w.id),
      (ds) => ds[0]?.status === "succeeded",
    );
    const attempts = await db()
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, d.id))
      .orderBy(asc(webhookAttempts.attempt));
    expect(attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [null, "timed out after 1000 ms"],
      [200, null],
    ]);
    expect(attempts[0].durationMs).toBeGreaterThanOrEqual(950);
    expect(attempts[0].durationMs).toBeLessThan(3000);
  });

  it("redirects are not followed, and a refused connection is an error: both are retried", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await receiver((r) => (r.n === 1 ? { status: 302 } : { status: 200 }));
    const w = await hook(apiKey, rx.url);
    await emit(merchant.id, "order-redirect", {});
    const [d] = await waitUntil(
      "success",
      () => deliveriesOf(w.id),
      (ds) => ds[0]?.status === "succeeded",
    );
    const [first] = await db()
      .select()
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.deliveryId, d.id), eq(webhookAttempts.attempt, 1)));
    expect(first).toMatchObject({ statusCode: 302, error: expect.stringContaining("redirects are not followed") });

    const closed = await receiver();
    const dead = await hook(apiKey, closed.url);
    await closed.close();
    await emit(merchant.id, "order-refused", {});
    const [r] = await waitUntil(
      "an attempt",
      () => deliveriesOf(dead.id),
      (ds) => ds.some((x) => x.subjectId === "order-refused" && x.attempts >= 1),
    );
    expect(r.lastError).toBe("connection refused");
    expect(r.status).toBe("pending");
  });
});

describe("410 Gone", () => {
  it("disables the endpoint, fails that delivery, cancels the ones waiting, and later events are not fanned out to it", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await receiver(async () => {
      await sleep(300);
      return { status: 410 };
    });
    const w = await hook(apiKey, rx.url);
    await emit(merchant.id, "order-gone", { step: 1 });
    await rx.waitFor("the first request", (r) => r.length === 1);
    // Same subject: waits behind the first attempt of step 1, which is answered 410.
    await emit(merchant.id, "order-gone", { step: 2 });
    const ds = await waitUntil(
      "410 handling",
      () => deliveriesOf(w.id),
      (x) => x.length === 2 && x.every((d) => d.status !== "pending"),
    );
    expect(ds.map((d) => [d.status, d.attempts, d.lastStatusCode])).toEqual([
      ["failed", 1, 410],
      ["cancelled", 0, null],
    ]);
    const [endpoint] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, w.id));
    expect(endpoint.disabledAt).toBeInstanceOf(Date);
    const listed = await api("GET", "/api/v1/webhooks", { apiKey });
    expect(listed.body.webhooks[0]).toMatchObject({
      id: w.id,
      status: "disabled",
      disabledAt: endpoint.disabledAt!.toISOString(),
    });

    await emit(merchant.id, "order-gone", { step: 3 });
    expect(await deliveriesOf(w.id)).toHaveLength(2);
    await sleep(300);
    expect(rx.received).toHaveLength(1);
    const again = await api("POST", `/api/v1/webhooks/${w.id}/deliveries/${ds[0].id}/redeliver`, { apiKey });
    expect(again.status).toBe(409);
    expect(specOf(again.body)).toEqual({ message: expect.stringContaining("disabled") });
  });
});

describe("ordering and isolation", () => {
  it("events of one subject arrive in the order they happened; subjects interleave freely", async () => {
    const { merchant, apiKey } = await seedMerchant();
    // Random delays would reorder concurrent requests; ordering must come from the dispatcher.
    const rx = await receiver(async () => {
      await sleep(Math.floor(Math.random() * 15));
      return { status: 200 };
    });
    await hook(apiKey, rx.url);
    const subjects = ["order-a", "order-b", "order-c"];
    const N = 15;
    // All committed at once, so every delivery is due at the same moment: concurrency, not timing,
    // is what ordering has to withstand.
    await db().transaction(async (tx) => {
      for (let i = 0; i < N; i++) {
        for (const s of subjects) {
          await recordEvent(tx, {
            merchantId: merchant.id,
            type: "order.status_changed",
            subjectType: "order",
            subjectId: s,
            data: { subject: s, i },
          });
        }
      }
    });
    await rx.waitFor("every event", (r) => r.length >= N * subjects.length);
    for (const s of subjects) {
      const seen = rx.received.filter((r) => r.json.data.subject === s).map((r) => r.json.data.i);
      expect(seen).toEqual([...Array(N).keys()]);
    }
  });

  it("a failing event holds its subject back for one attempt only, and a hanging endpoint never holds back another endpoint", async () => {
    // The hanging endpoint's attempts are cut at 8 s here rather than the suite's 1 s, so that "the
    // others were served while it still held its slots" is decided by the database, not by a clock.
    process.env.WEBHOOK_TIMEOUT_MS = "8000";
    resetEnvForTests();
    const { merchant, apiKey } = await seedMerchant();
    const hanging = await receiver(async () => {
      await sleep(10_000);
      return { status: 200 };
    });
    const healthy = await receiver();
    let zeroSeen = 0;
    const flaky = await receiver((r) => (r.json.data.i === 0 && ++zeroSeen <= 2 ? { status: 503 } : { status: 200 }));
    const hangingHook = await hook(apiKey, hanging.url);
    await hook(apiKey, healthy.url);
    await hook(apiKey, flaky.url);
    await db().transaction(async (tx) => {
      for (let i = 0; i < 12; i++) {
        await recordEvent(tx, {
          merchantId: merchant.id,
          type: "order.status_changed",
          subjectType: "order",
          subjectId: `iso-${i % 6}`,
          data: { i },
        });
      }
    });
    await healthy.waitFor("all 12 at the healthy endpoint", (r) => r.length === 12, 7000);
    // While no attempt at the hanging endpoint has ended (none timed out, none written): it held no
    // slot of the others.
    const ended = await db()
      .select({ id: webhookAttempts.id })
      .from(webhookAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(eq(webhookDeliveries.endpointId, hangingHook.id));
    expect(ended).toEqual([]);
    expect(hanging.received.length).toBeLessThanOrEqual(4);
    process.env.WEBHOOK_TIMEOUT_MS = "1000";
    resetEnvForTests();
    // The flaky endpoint failed event 0 twice (its third try comes ≥ 0.6 s later); event 6, same
    // subject, waited for the first attempt only, not for the retries.
    await flaky.waitFor("event 0 delivered on its third try", (r) => r.filter((x) => x.json.data.i === 0).length === 3);
    const order = flaky.received.map((r) => r.json.data.i);
    expect(order.indexOf(6)).toBeLessThan(order.lastIndexOf(0));
  });
});

describe("POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", () => {
  it("→ 201 { delivery }: a new delivery of the same event, pointing at the original, that the receiver gets with the same webhook-id", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await receiver();
    const w = await hook(apiKey, rx.url);
    await emit(merchant.id, "order-redeliver", { v: 1 });
    await rx.waitFor("first delivery", (r) => r.length === 1);
    const [original] = await waitUntil(
      "first delivery stored",
      () => deliveriesOf(w.id),
      (ds) => ds[0]?.status === "succeeded",
    );

    const res = await api("POST", `/api/v1/webhooks/${w.id}/deliveries/${original.id}/redeliver`, { apiKey });
    expect(res.status).toBe(201);
    expect(res.body.delivery).toMatchObject({
      eventId: original.eventId,
      eventType: "order.status_changed",
      status: "pending",
      attempts: 0,
      redeliveryOf: original.id,
      attemptsLog: [],
    });
    expect(res.body.delivery.id).not.toBe(original.id);
    await rx.waitFor("redelivery", (r) => r.length === 2);
    expect(rx.received[1].body).toBe(rx.received[0].body);
    expect(rx.received[1].headers["webhook-id"]).toBe(original.eventId);
    expect(verify(w.secret, rx.received[1])).toBeTruthy();

    // A redelivery of the redelivery still points at the original.
    const again = await api("POST", `/api/v1/webhooks/${w.id}/deliveries/${res.body.delivery.id}/redeliver`, {
      apiKey,
    });
    expect(again.body.delivery.redeliveryOf).toBe(original.id);
    await rx.waitFor("second redelivery", (r) => r.length === 3);
    // The attempt's result is written after the receiver answered: waited for, not raced.
    await waitUntil(
      "every delivery's result stored",
      () => deliveriesOf(w.id),
      (ds) => ds.length === 3 && ds.every((d) => d.status === "succeeded"),
    );
    const log = await api("GET", `/api/v1/webhooks/${w.id}/deliveries`, { apiKey });
    expect(log.body.deliveries.map((d: any) => d.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
  });
});

describe("SSRF guard at connection time", () => {
  const saved = process.env.WEBHOOK_ALLOW_PRIVATE;
  afterEach(() => {
    if (saved === undefined) delete process.env.WEBHOOK_ALLOW_PRIVATE;
    else process.env.WEBHOOK_ALLOW_PRIVATE = saved;
    resetEnvForTests();
  });

  it("refuses a URL whose name now resolves to loopback, or a loopback literal: the attempt is stored with the reason and nothing is sent", async () => {
    const { merchant } = await seedMerchant();
    const rx = await receiver();
    // Registered while allowed (as if its DNS pointed elsewhere then); private targets now refused.
    const [byName] = await db()
      .insert(webhookEndpoints)
      .values({ merchantId: merchant.id, url: `http://localhost:${rx.port}/hooks`, secret: generateSecret() })
      .returning();
    const [byLiteral] = await db()
      .insert(webhookEndpoints)
      .values({ merchantId: merchant.id, url: `http://[::ffff:127.0.0.1]:${rx.port}/hooks`, secret: generateSecret() })
      .returning();
    process.env.WEBHOOK_ALLOW_PRIVATE = "false";
    resetEnvForTests();
    await emit(merchant.id, "order-ssrf", {});
    for (const [endpoint, reason] of [
      [byName, /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
      [byLiteral, /^refused: ::ffff:7f00:1 is a loopback address/],
    ] as const) {
      const [d] = await waitUntil(
        "a refused attempt",
        () => deliveriesOf(endpoint.id),
        (ds) => ds[0]?.attempts >= 1,
      );
      expect(d.status).toBe("pending");
      expect(d.lastStatusCode).toBeNull();
      expect(d.lastError).toMatch(reason);
      // Retried on the schedule (0.01 s, 0.6 s… here), refused every time.
      const attempts = await db()
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, d.id))
        .orderBy(asc(webhookAttempts.attempt));
      expect(attempts[0]).toMatchObject({ attempt: 1, statusCode: null, responseExcerpt: null });
      for (const a of attempts) expect(a.error).toMatch(reason);
    }
    expect(rx.connections()).toBe(0);
    expect(rx.received).toHaveLength(0);
  });
});

describe("signing secrets sealed at rest", () => {
  const insertPlain = async (merchantId: string, url: string) =>
    (await db().insert(webhookEndpoints).values({ merchantId, url, secret: generateSecret() }).returning())[0];

  it("a secret stored in plain text before sealing is sealed by the start-up step, and its signatures still verify", async () => {
    const { merchant } = await seedMerchant();
    const rx = await receiver();
    const plain = await insertPlain(merchant.id, rx.url);
    expect(await sealPlainSecrets()).toBeGreaterThanOrEqual(1);
    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, plain.id));
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(plain.secret.slice(6));
    expect(await sealPlainSecrets()).toBe(0); // once

    await emit(merchant.id, "order-sealed", { n: 1 });
    await rx.waitFor("the event", () => rx.received.length === 1);
    // The receiver still holds the secret it was given before sealing: it verifies with it.
    expect(verify(plain.secret, rx.received[0])).toMatchObject({ type: "order.status_changed", data: { n: 1 } });
  });

  it("a plain secret the start-up step missed (an older instance wrote it) signs its delivery and is sealed on that first read", async () => {
    const { merchant } = await seedMerchant();
    const rx = await receiver();
    const plain = await insertPlain(merchant.id, rx.url);
    await emit(merchant.id, "order-late", { n: 2 });
    await rx.waitFor("the event", () => rx.received.length === 1);
    expect(verify(plain.secret, rx.received[0])).toMatchObject({ data: { n: 2 } });
    const sealed = await waitUntil(
      "the secret sealed",
      async () => (await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, plain.id)))[0].secret,
      (s) => s.startsWith("v1."),
    );
    expect(openSecret(sealed)).toBe(plain.secret);
  });

  it("after AUTH_SECRET changes, a secret sealed under the old one signs nothing: the attempt says why and the dashboard flags the endpoint", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const rx = await receiver();
    const w = await hook(apiKey, rx.url);
    const saved = process.env.AUTH_SECRET;
    try {
      process.env.AUTH_SECRET = "another-auth-secret-0123456789abcdefghijklmnop";
      resetEnvForTests();
      expect((await listEndpointsWithSecretState(merchant.id)).map((e) => [e.id, e.secretReadable])).toEqual([
        [w.id, false],
      ]);
      await emit(merchant.id, "order-rotated", {});
      const [d] = await waitUntil(
        "a failed attempt",
        () => deliveriesOf(w.id),
        (ds) => ds[0]?.attempts >= 1,
      );
      expect(d.lastError).toBe(UNREADABLE_SECRET);
      expect(d.lastStatusCode).toBeNull();
      expect(rx.connections()).toBe(0);
    } finally {
      process.env.AUTH_SECRET = saved;
      resetEnvForTests();
    }
    expect((await listEndpointsWithSecretState(merchant.id))[0].secretReadable).toBe(true);
  });
});
