import { and, eq, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { cancelPendingDeliveries } from "./queries";
import { allowPrivateTargets } from "./registry";
import { eventPayload, type EventRow } from "./payload";
import { retryDelaySeconds } from "./schedule";
import { isPlainSecret, openSecret, sealStoredSecret } from "./secrets";
import { signatureHeaders } from "./sign";
import { postJson, type PostResult } from "./transport";

// One attempt of one claimed delivery: build the body once, sign exactly those bytes, send them, and
// write down what happened — the attempt row always, the delivery's new state only while we still
// hold its lease (a worker that lost its lease must not overwrite the worker that took over).

export type ClaimedDelivery = {
  id: string;
  endpointId: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The lease as PostgreSQL wrote it; passed back verbatim so the comparison is exact. */
  leaseUntil: string;
  url: string;
  /** As stored: sealed (./secrets.ts), or plain from before sealing. */
  secret: string;
  endpointActive: boolean;
  event: EventRow;
  /** Sent again by hand (the dashboard's redeliver), long after its event. */
  redelivery: boolean;
};

export type AttemptOutcome = "succeeded" | "retry" | "failed" | "gone" | "cancelled";

const USER_AGENT = "PixCrypto-Webhooks/1.0 (+https://www.standardwebhooks.com)";
export const UNREADABLE_SECRET =
  "Not sent: this endpoint's signing secret can no longer be read (AUTH_SECRET changed since it was registered); delete the endpoint and register it again";

function failureReason(r: PostResult): string | null {
  if (r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300) return null;
  if (r.error && r.statusCode === null) return r.error;
  const code = r.statusCode!;
  if (code === 410) return "HTTP 410 Gone: the endpoint was disabled";
  if (code >= 300 && code < 400) return `HTTP ${code}: redirects are not followed; register the final URL`;
  return r.error ? `HTTP ${code}; ${r.error}` : `HTTP ${code}`;
}

const stillOurs = (c: ClaimedDelivery) =>
  and(
    eq(webhookDeliveries.id, c.id),
    eq(webhookDeliveries.status, "pending"),
    sql`${webhookDeliveries.nextAttemptAt} = ${c.leaseUntil}::timestamptz`,
  );

export async function deliverClaimed(c: ClaimedDelivery): Promise<AttemptOutcome> {
  if (!c.endpointActive) {
    // Deleted or disabled after this delivery was fanned out.
    await db()
      .update(webhookDeliveries)
      .set({ status: "cancelled", nextAttemptAt: null, completedAt: sql`now()` })
      .where(stillOurs(c));
    return "cancelled";
  }
  const e = env();
  // webhook-id is the event id, also on retries and redeliveries: Standard Webhooks defines it as the
  // message id, the same when a message is re-sent, so receivers deduplicate on it.
  const body = Buffer.from(JSON.stringify(eventPayload(c.event)));
  const startedAt = new Date();
  const secret = openSecret(c.secret);
  if (secret !== null && isPlainSecret(c.secret)) {
    // Stored before secrets were sealed, and missed by the start-up step: sealed now, off this path.
    sealStoredSecret(c.endpointId, c.secret).catch((err: unknown) =>
      log.warn("webhook secret not sealed", { endpointId: c.endpointId, err }),
    );
  }
  // A secret that no longer unseals (AUTH_SECRET changed) signs nothing: the attempt fails without
  // sending, and retries on the usual schedule (restoring the old AUTH_SECRET would let it through).
  const result: PostResult =
    secret === null
      ? { statusCode: null, error: UNREADABLE_SECRET, responseExcerpt: null, durationMs: 0 }
      : await postJson(
          c.url,
          { "user-agent": USER_AGENT, ...signatureHeaders(secret, c.event.id, body, startedAt) },
          body,
          {
            timeoutMs: e.WEBHOOK_TIMEOUT_MS,
            allowPrivate: allowPrivateTargets(),
          },
        );

  const attempt = c.attempts + 1;
  const lastError = failureReason(result);
  const gone = result.statusCode === 410;
  const delay = lastError === null || gone ? null : retryDelaySeconds(attempt, e.WEBHOOK_RETRY_BASE_SECONDS);
  const outcome: AttemptOutcome =
    lastError === null ? "succeeded" : gone ? "gone" : delay === null ? "failed" : "retry";
  const nextAttemptAt = delay === null ? null : sql`now() + make_interval(secs => ${delay})`;

  const status = outcome === "succeeded" ? "succeeded" : outcome === "retry" ? "pending" : "failed";
  const startedIso = startedAt.toISOString();
  // The attempt row always; the delivery's new state only while the lease is still ours. One
  // statement, one round trip: at a burst's rate the pool's connections are the scarce thing.
  const record = (ex: Executor) =>
    ex.execute(sql`
      with attempt as (
        insert into ${webhookAttempts}
          (delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt, next_attempt_at)
        values (${c.id}, ${attempt}, ${startedIso}::timestamptz, ${result.durationMs}, ${result.statusCode}, ${lastError},
                ${result.responseExcerpt}, ${nextAttemptAt})
      )
      update ${webhookDeliveries}
      set status = ${status}, attempts = attempts + 1, last_attempt_at = ${startedIso}::timestamptz,
          last_status_code = ${result.statusCode}, last_error = ${lastError}, next_attempt_at = ${nextAttemptAt},
          completed_at = ${outcome === "retry" ? null : sql`now()`}
      where id = ${c.id} and status = 'pending' and next_attempt_at = ${c.leaseUntil}::timestamptz`);
  if (!gone) await record(db());
  else {
    // 410 Gone is the receiver saying "stop": disable the endpoint and drop what was queued for it.
    await db().transaction(async (tx) => {
      await record(tx);
      await tx
        .update(webhookEndpoints)
        .set({ disabledAt: sql`now()` })
        .where(and(eq(webhookEndpoints.id, c.endpointId), isNull(webhookEndpoints.disabledAt)));
      await cancelPendingDeliveries(tx, c.endpointId);
    });
  }
  return outcome;
}
