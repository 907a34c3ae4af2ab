import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { idempotencyKeys } from "@/db/schema";
import { bodyHash } from "@/lib/http/canonical-json";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  IDEMPOTENCY_LEASE_SECONDS,
  keepIdempotencyClaim,
  releaseClaimsOfPredecessor,
  releaseIdempotencyKey,
  type IdempotencyScope,
} from "@/lib/http/idempotency";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { withRequestContext } from "@/lib/request-context";
import { setLoggerForTests } from "@/lib/log";
import { api, captureLogs, seedMerchant } from "./helpers";
import { idempotencyKeyOf, ONCHAIN_WITHDRAW, onchainWithdrawBody as body, withdrawalsOf } from "./idempotency-helpers";

// docs/api.md#idempotency-and-rate-limits after a crash: a request that died while holding an Idempotency-Key left its claim "in
// flight". The claim is a lease: once it runs out, a retry takes the key over and runs, once; while the
// holder is alive (renewing), retries get 409. A dead holder is simulated by writing its claim row
// with a lease that has run out, as a process killed mid-request leaves it before committing anything
// (one killed after its business transaction committed: tests/idempotency-commit.test.ts).

/** The row a request leaves behind when its process dies after claiming the key. */
async function orphanClaim(
  merchantId: string,
  key: string,
  lease: "ran out" | "running" | "none, old" | "none, new",
  holder?: string,
) {
  const leaseUntil =
    lease === "ran out"
      ? sql`now() - interval '1 second'`
      : lease === "running"
        ? sql`now() + interval '50 seconds'`
        : null;
  const createdAt =
    lease === "none, old" ? sql`now() - make_interval(secs => ${IDEMPOTENCY_LEASE_SECONDS + 5})` : sql`now()`;
  await db()
    .insert(idempotencyKeys)
    .values({
      merchantId,
      key,
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      bodyHash: bodyHash(body),
      state: "in_flight",
      claimId: lease.startsWith("none") ? null : randomUUID(),
      leaseUntil,
      holder,
      createdAt,
      expiresAt: sql`now() + interval '24 hours'`,
    });
}

type Answer = Awaited<ReturnType<typeof api>>;

/**
 * Sends `attempt` again every 100 ms while it answers 409, for at most 15 s: the answer that ended it,
 * and when the last refused attempt was sent (-Infinity: none was).
 */
async function retryWhileBusy(attempt: () => Promise<Answer>): Promise<{ res: Answer; lastBusyAt: number }> {
  let lastBusyAt = -Infinity;
  const until = Date.now() + 15_000;
  for (;;) {
    const sentAt = Date.now();
    const res = await attempt();
    if (res.status !== 409 || Date.now() > until) return { res, lastBusyAt };
    lastBusyAt = sentAt;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("Idempotency-Key after a crash", () => {
  it("a retry after the dead request's lease ran out is processed, once, and its response stored", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    await orphanClaim(merchant.id, "crashed-1", "ran out");
    const headers = { "idempotency-key": "crashed-1" };
    const retry = await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
    expect(await idempotencyKeyOf(merchant.id, "crashed-1")).toMatchObject({
      state: "done",
      responseStatus: 200,
      leaseUntil: null,
    });
    const again = await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(retry.body);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
  });

  it("a retry while the holder's lease is running is a 409 in the endpoint's body, and runs nothing", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    await orphanClaim(merchant.id, "alive-1", "running");
    const res = await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers: { "idempotency-key": "alive-1" } });
    expect(res.status).toBe(409);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.body).toMatchObject({ message: expect.stringContaining("still being processed") });
    expect(await withdrawalsOf(merchant.id)).toHaveLength(0);
  });

  it("a holder that stops renewing (its instance died for good) frees its key within 5 s", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const scope = {
      merchantId: merchant.id,
      key: "died-for-good",
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      bodyHash: bodyHash(body),
    };
    const held = await claimIdempotencyKey(scope);
    if (held.kind !== "claimed") throw new Error("expected a claim");
    const stop = keepIdempotencyClaim(held.claim);
    // Alive: renewed past the lease's length, and retries are 409s.
    await new Promise((r) => setTimeout(r, (IDEMPOTENCY_LEASE_SECONDS + 1) * 1000));
    const headers = { "idempotency-key": "died-for-good" };
    expect((await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers })).status).toBe(409);
    stop();
    const diedAt = Date.now();
    // A renewal sent just before stop() may still land: the lease is read once it has.
    await new Promise((r) => setTimeout(r, 200));
    const leaseEnd = (await idempotencyKeyOf(merchant.id, "died-for-good")).leaseUntil!.getTime();
    // The promise (docs/operations.md, "Keys of an instance that dies"): the last lease ends within the
    // lease's length of the last renewal, so within 5 s of the death, whatever the machine's load.
    expect(leaseEnd - diedAt).toBeLessThanOrEqual(IDEMPOTENCY_LEASE_SECONDS * 1000 + 1000);
    const { res: retry, lastBusyAt } = await retryWhileBusy(() =>
      api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers }),
    );
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    // Refused only while the lease ran: the first attempt sent after its end took the key over.
    expect(lastBusyAt).toBeLessThan(leaseEnd + 1);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
    console.log(
      `a dead holder's lease ended ${leaseEnd - diedAt} ms after it stopped renewing; taken over ${Date.now() - diedAt} ms after it stopped`,
    );
  }, 20_000);

  it("a holder whose handler hangs past REQUEST_DEADLINE_MS stops renewing: a retry takes the key over within the lease after the deadline", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const scope = {
      merchantId: merchant.id,
      key: "hung",
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      bodyHash: bodyHash(body),
    };
    const held = await claimIdempotencyKey(scope);
    if (held.kind !== "claimed") throw new Error("expected a claim");
    const deadlineMs = 1000;
    const logs = captureLogs();
    // Renewed every 100 ms until the deadline, then never again, though nobody calls stop(): the handler hangs.
    const stop = keepIdempotencyClaim(held.claim, 100, deadlineMs);
    const claimedAt = Date.now();
    const headers = { "idempotency-key": "hung" };
    try {
      await new Promise((r) => setTimeout(r, deadlineMs - 200));
      const row = await idempotencyKeyOf(merchant.id, "hung");
      const [{ now }] = await db().execute<{ now: string }>(sql`select now()::text as now`);
      // Still renewed before the deadline: the lease reaches well past the moment of the claim's own.
      expect(row.leaseUntil!.getTime() - new Date(now).getTime()).toBeGreaterThan(
        (IDEMPOTENCY_LEASE_SECONDS - 1) * 1000,
      );
      expect((await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers })).status).toBe(409);
      // Past the deadline, and past a renewal that was on its way then: the lease it left is the last.
      await new Promise((r) => setTimeout(r, Math.max(0, claimedAt + deadlineMs + 300 - Date.now())));
      const leaseEnd = (await idempotencyKeyOf(merchant.id, "hung")).leaseUntil!.getTime();
      // Renewals end at the deadline; the last lease runs out at most IDEMPOTENCY_LEASE_SECONDS after it.
      expect(leaseEnd - claimedAt).toBeLessThanOrEqual(deadlineMs + IDEMPOTENCY_LEASE_SECONDS * 1000 + 1000);
      const { res: retry, lastBusyAt } = await retryWhileBusy(() =>
        api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers }),
      );
      const takenOverMs = Date.now() - claimedAt;
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      // Every retry sent before the lease's end was refused; the first one after it took the key over.
      expect(takenOverMs).toBeGreaterThan(deadlineMs);
      expect(lastBusyAt).toBeLessThan(leaseEnd + 1);
      expect(logs.join("")).toMatch(/lease no longer renewed: its request is past its deadline/);
      expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
      console.log(`a hung holder's key was taken over ${takenOverMs} ms after its claim (deadline ${deadlineMs} ms)`);
    } finally {
      stop();
      setLoggerForTests(undefined);
    }
  }, 20_000);

  it("a killed instance, restarted under its name, ends its predecessor's leases at start-up: the retry runs at once, once", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    await orphanClaim(merchant.id, "restarted-1", "running", "pay-1:3000");
    await orphanClaim(merchant.id, "other-instance-1", "running", "pay-2:3000");
    const headers = { "idempotency-key": "restarted-1" };
    expect((await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers })).status).toBe(409);
    // pay-1 starts again (scripts/start.ts), before it serves anything.
    expect(await releaseClaimsOfPredecessor("pay-1:3000")).toBeGreaterThanOrEqual(1);
    const retry = await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers });
    expect(retry.status).toBe(200);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
    // Another instance's claim is not its to end.
    expect(
      (await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers: { "idempotency-key": "other-instance-1" } }))
        .status,
    ).toBe(409);
  });

  it("a claim the database lost (a failover before it replicated) is not reported as a retry's takeover", async () => {
    const { merchant } = await seedMerchant();
    const held = {
      merchantId: merchant.id,
      key: "lost-1",
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      claimId: randomUUID(),
    };
    const bind = () =>
      withRequestContext({ requestId: "req_test", idempotencyKey: held }, () =>
        db().transaction((tx) => bindIdempotencyKey(tx, { type: "withdrawal", id: randomUUID() })),
      );
    await expect(bind()).rejects.toThrow(/claim was lost by the database \(a failover or restore\)/);
    // Its row there under another claim: that is a takeover.
    await orphanClaim(merchant.id, "lost-1", "running");
    await expect(bind()).rejects.toThrow(/taken over by a retry/);
  });

  it("an outcome that cannot be stored says whether a retry took the claim over or the database lost it", async () => {
    const { merchant } = await seedMerchant();
    const lost = {
      merchantId: merchant.id,
      key: "lost-2",
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      bodyHash: bodyHash(body),
      claimId: randomUUID(),
    };
    const logs = captureLogs();
    try {
      await completeIdempotencyKey(lost, 200, "{}");
      expect(logs.join("")).toMatch(/the database lost the claim \(a failover or restore\)/);
      expect(logs.join("")).not.toMatch(/taken over/);
      logs.length = 0;
      await orphanClaim(merchant.id, "lost-2", "running");
      await completeIdempotencyKey(lost, 200, "{}");
      expect(logs.join("")).toMatch(/the claim was taken over meanwhile/);
    } finally {
      setLoggerForTests(undefined);
    }
    expect(await idempotencyKeyOf(merchant.id, "lost-2")).toMatchObject({ state: "in_flight" });
  });

  it("the same key with another body is still a 422, lease or not", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    await orphanClaim(merchant.id, "crashed-422", "ran out");
    const res = await api("POST", ONCHAIN_WITHDRAW, {
      apiKey,
      body: { ...body, value: 101 },
      headers: { "idempotency-key": "crashed-422" },
    });
    expect(res.status).toBe(422);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(0);
  });

  it("claims written before leases existed: counted from their creation", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    await orphanClaim(merchant.id, "legacy-old", "none, old");
    await orphanClaim(merchant.id, "legacy-new", "none, new");
    expect(
      (await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers: { "idempotency-key": "legacy-old" } })).status,
    ).toBe(200);
    expect(
      (await api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers: { "idempotency-key": "legacy-new" } })).status,
    ).toBe(409);
  });

  it("retries racing to take over a dead request's key: exactly one runs", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    await orphanClaim(merchant.id, "crashed-race", "ran out");
    const headers = { "idempotency-key": "crashed-race" };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api("POST", ONCHAIN_WITHDRAW, { apiKey, body, headers })),
    );
    const ran = results.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null);
    expect(ran).toHaveLength(1);
    for (const r of results)
      expect(r.status === 409 || (r.status === 200 && r.body.id === ran[0].body.id), JSON.stringify(r.body)).toBe(true);
    expect(await withdrawalsOf(merchant.id)).toHaveLength(1);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBe(1_000_00 - (100_00 + 50 + 5));
  });

  it("the dead request coming back late changes nothing: its outcome and release name a claim it no longer holds", async () => {
    const { merchant } = await seedMerchant();
    const scope: IdempotencyScope = {
      merchantId: merchant.id,
      key: "zombie",
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      bodyHash: bodyHash(body),
    };
    const first = await claimIdempotencyKey(scope);
    if (first.kind !== "claimed") throw new Error("expected a claim");
    await db()
      .update(idempotencyKeys)
      .set({ leaseUntil: sql`now() - interval '1 second'` })
      .where(eq(idempotencyKeys.key, "zombie"));
    const second = await claimIdempotencyKey(scope);
    if (second.kind !== "claimed") throw new Error("expected the key to be taken over");
    expect(second.claim.claimId).not.toBe(first.claim.claimId);

    await completeIdempotencyKey(first.claim, 200, '{"zombie":true}');
    await releaseIdempotencyKey(first.claim);
    expect(await idempotencyKeyOf(merchant.id, "zombie")).toMatchObject({
      state: "in_flight",
      claimId: second.claim.claimId,
    });
    await expect(claimIdempotencyKey(scope)).rejects.toMatchObject({ status: 409 });

    await completeIdempotencyKey(second.claim, 200, '{"ok":true}');
    expect(await claimIdempotencyKey(scope)).toEqual({ kind: "replay", status: 200, body: '{"ok":true}' });
  });

  it("a long-running holder renews its lease, so it is never taken over while it runs", async () => {
    const { merchant } = await seedMerchant();
    const scope: IdempotencyScope = {
      merchantId: merchant.id,
      key: "slow",
      method: "POST",
      path: ONCHAIN_WITHDRAW,
      bodyHash: bodyHash(body),
    };
    const held = await claimIdempotencyKey(scope);
    if (held.kind !== "claimed") throw new Error("expected a claim");
    // As if the lease had almost run out; renewal every 20 ms instead of every second.
    await db()
      .update(idempotencyKeys)
      .set({ leaseUntil: sql`now() + interval '100 milliseconds'` })
      .where(eq(idempotencyKeys.key, "slow"));
    const stop = keepIdempotencyClaim(held.claim, 20);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const row = await idempotencyKeyOf(merchant.id, "slow");
      const [{ now }] = await db().execute<{ now: string }>(sql`select now()::text as now`);
      expect(row.leaseUntil!.getTime() - new Date(now).getTime()).toBeGreaterThan(
        (IDEMPOTENCY_LEASE_SECONDS - 1) * 1000,
      );
      await expect(claimIdempotencyKey(scope)).rejects.toMatchObject({ status: 409 });
    } finally {
      stop();
    }
    // Stopped: the lease is no longer renewed, and once it runs out the key can be taken over.
    await db()
      .update(idempotencyKeys)
      .set({ leaseUntil: sql`now() - interval '1 second'` })
      .where(eq(idempotencyKeys.key, "slow"));
    await new Promise((r) => setTimeout(r, 100));
    expect((await claimIdempotencyKey(scope)).kind).toBe("claimed");
  });
});
