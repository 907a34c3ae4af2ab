import { lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { rateLimits } from "@/db/schema";
import { env } from "@/lib/env";
import { DomainError } from "@/lib/errors";
import type { ApiRequest } from "./request";

// Fixed one-minute windows counted in PostgreSQL, so the limit holds across every instance. Each
// request costs one upsert on its (key, minute) row (CONTRACT §9).

export class RateLimited extends DomainError {
  override readonly status: number = 429;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Nothing to wait for (undefined) when limits are off; otherwise the upsert that counts this request. */
export function enforceRateLimit(bucket: string): Promise<void> | undefined {
  const limit = env().RATE_LIMIT_PER_MINUTE;
  if (limit === 0) return undefined;
  return countAndCheck(bucket, limit);
}

async function countAndCheck(bucket: string, limit: number): Promise<void> {
  const [row] = await db().execute<{ count: number; retry_after: number }>(sql`
    insert into rate_limits (key, window_start, count) values (${bucket}, date_trunc('minute', now()), 1)
    on conflict (key, window_start) do update set count = rate_limits.count + 1
    returning count, ceil(extract(epoch from date_trunc('minute', now()) + interval '1 minute' - now()))::int as retry_after`);
  if (Number(row.count) > limit) {
    const retryAfter = Math.max(1, Number(row.retry_after));
    throw new RateLimited(`Rate limit exceeded: at most ${limit} requests per minute; retry in ${retryAfter} s`, retryAfter);
  }
}

/** The client's address as the proxy in front reports it; one bucket per address for public routes. */
export function clientIp(req: ApiRequest): string {
  const forwarded = req.headers.get("x-forwarded-for");
  if (forwarded) return forwarded.split(",")[0].trim().slice(0, 64);
  return req.headers.get("x-real-ip")?.trim().slice(0, 64) || "unknown";
}

export async function purgeOldRateLimitWindows(): Promise<void> {
  await db()
    .delete(rateLimits)
    .where(lt(rateLimits.windowStart, sql`now() - interval '5 minutes'`));
}
