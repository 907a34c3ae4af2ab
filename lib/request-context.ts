import { AsyncLocalStorage } from "node:async_hooks";
import { processSingleton } from "@/lib/singleton";

// Carries the request id through everything a request causes (services, queries, provider calls),
// so every log line it produces names it without passing it by hand. It also carries the
// Idempotency-Key the request holds, if any, down to the transaction that commits what the request
// makes (lib/idempotency-binding.ts), without every service taking it as a parameter.

/** An Idempotency-Key's row (its scope) and the id of this request's claim on it. */
export type HeldIdempotencyKey = { merchantId: string; key: string; method: string; path: string; claimId: string };

/** Where the allowance a request was counted against stands after it: its answer's RateLimit-* headers. */
export type RateLimitStanding = { limit: number; remaining: number; resetSeconds: number };

export type RequestContext = {
  requestId: string;
  /** Set by the endpoint wrapper while the handler of a request with an Idempotency-Key runs, and cleared after. */
  idempotencyKey?: HeldIdempotencyKey;
  /** Set by the rate limiter each time it counts or checks the request; the last one is answered. */
  rateLimit?: RateLimitStanding;
};

const storage = processSingleton("request-context", () => new AsyncLocalStorage<RequestContext>());

export function withRequestContext<T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(ctx, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function currentIdempotencyKey(): HeldIdempotencyKey | undefined {
  return storage.getStore()?.idempotencyKey;
}

/** Records where the request's rate-limit bucket stands, for its answer; outside a request, nothing. */
export function noteRateLimit(standing: RateLimitStanding): void {
  const ctx = storage.getStore();
  if (ctx) ctx.rateLimit = standing;
}
