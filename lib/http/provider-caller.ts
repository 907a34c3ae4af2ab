import { env } from "@/lib/env";
import { addressBucket, clientAddress } from "./client-address";
import type { Caller } from "./endpoint";

// The caller of every provider receiver (Binance Pay's notifications, OpenNode's callbacks, the PSP's
// PIX notifications): nobody is authenticated before the handler checks a signature or a token, and
// what a handler does for a post (verify it, fetch a certificate, read a payment back from the
// provider) costs us, and the provider, more than the post costs its sender. So each client address
// gets PROVIDER_CALLBACK_LIMIT_PER_MINUTE posts per receiver and minute, counted by the shared limiter
// (lib/http/rate-limit.ts) before anything is read; past it, 429 with Retry-After, which every one of
// these providers treats as "not delivered" and retries (docs/api.md, "Rate limits"). The default is
// generous for a real provider's bursts from its few addresses: a PSP catching up after an outage, or
// Binance's retries (the polls reconcile anything a 429 delays).

const NOBODY = Object.freeze({});

/** Buckets are per receiver (its path), so one provider's burst never spends another's allowance. */
export function providerCallback(receiver: string): Caller<object> {
  const prefix = `cb:${receiver}:`;
  return {
    authenticate: () => NOBODY,
    rateLimitBucket: (_p, req) => prefix + addressBucket(clientAddress(req.headers)),
    rateLimitPerMinute: () => env().PROVIDER_CALLBACK_LIMIT_PER_MINUTE,
    docs: { security: [], schemes: {}, statuses: [429] },
  };
}
