import type { IdempotentResource } from "@/lib/idempotency-binding";
import { log } from "@/lib/log";
import type { RequestContext } from "@/lib/request-context";
import { bodyHash } from "./canonical-json";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  keepIdempotencyClaim,
  letGoOfClaimLater,
  readIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyClaim,
  type IdempotencyScope,
} from "./idempotency";
import { jsonResponseText } from "./json-response";
import type { ApiRequest } from "./request";
import { jsonText } from "./respond";
import { databaseUnavailable } from "./unavailable";

// One request's Idempotency-Key, from its claim to its outcome (docs/api.md#idempotency-and-rate-limits):
// the wrapper (./endpoint.ts) opens the key before the handler, lets the handler's services bind it,
// and ends it with the response or the error. How a claim is stored, renewed, taken over and given up
// is ./idempotency.ts; what is decided here is what each outcome does to the key.

/**
 * Statuses whose outcome is not kept for Idempotency-Key replays: every refusal and failure. A 4xx
 * committed nothing (a service refuses before its transaction commits, or the throw rolls it back),
 * whichever layer refused it, so a corrected retry with the same key must be able to run; and a
 * request that did commit its resource before failing is answered from that resource, not its error.
 */
const NOT_REPLAYED = (status: number) => status >= 400;

/** A key this request holds, its lease renewed until the request ends it. */
export type HeldKey = {
  readonly claim: IdempotencyClaim;
  /** Runs the handler with the key where its services find it, to bind it to what they commit. */
  holdDuring<T>(context: RequestContext, handle: () => Promise<T>): Promise<T>;
  /** Stores the response for replays (the handler's, or one rebuilt from a committed resource), or gives the key up when its status is not kept. */
  answered(res: Response): Promise<void>;
  /** After an error (a refusal or a failure): gives the key up so the client can retry. Never rejects. */
  failed(): Promise<void>;
};

export type OpenedKey =
  /** No Idempotency-Key: the handler runs as it is. */
  | { kind: "none" }
  /** A retry of a request that finished: its stored response. */
  | { kind: "replay"; response: Response }
  /** The key is this request's: run the handler. */
  | { kind: "held"; key: HeldKey }
  /** Taken over from a request that died after committing `resource`: answer from it, run nothing. */
  | { kind: "committed"; key: HeldKey; resource: IdempotentResource };

const NONE: OpenedKey = { kind: "none" };

/**
 * Reads and claims the request's Idempotency-Key, if it has one (a POST by a caller with a key
 * namespace, `owner`). `raw`: the body as sent, whose hash a retry's must match. Synchronous without
 * a key: most requests then await nothing.
 */
export function openIdempotencyKey(
  req: ApiRequest,
  owner: string | undefined,
  path: string,
  raw: unknown,
): OpenedKey | Promise<OpenedKey> {
  const key = req.method === "POST" && owner !== undefined ? readIdempotencyKey(req) : null;
  if (!key || owner === undefined) return NONE;
  return claimKey({ merchantId: owner, key, method: req.method, path, bodyHash: bodyHash(raw ?? {}) });
}

async function claimKey(scope: IdempotencyScope): Promise<OpenedKey> {
  const claimed = await claimIdempotencyKey(scope);
  if (claimed.kind === "replay")
    return { kind: "replay", response: jsonText(claimed.status, claimed.body, { "idempotent-replayed": "true" }) };
  const held = holding(claimed.claim);
  return claimed.kind === "committed"
    ? { kind: "committed", key: held, resource: claimed.resource }
    : { kind: "held", key: held };
}

function holding(claim: IdempotencyClaim): HeldKey {
  const stopRenewing = keepIdempotencyClaim(claim);
  return {
    claim,
    async holdDuring(context, handle) {
      // Nothing that outlives the handler (a timer, a background promise it started) may bind it.
      context.idempotencyKey = claim;
      try {
        return await handle();
      } finally {
        context.idempotencyKey = undefined;
      }
    },
    async answered(res) {
      stopRenewing();
      if (NOT_REPLAYED(res.status)) {
        await releaseIdempotencyKey(claim);
      } else {
        const text = jsonResponseText(res) ?? (await res.clone().text());
        await completeIdempotencyKey(claim, res.status, text);
      }
    },
    async failed() {
      stopRenewing();
      try {
        await releaseIdempotencyKey(claim);
      } catch (storeErr) {
        // Not stored: a retry runs the request again, and a refusal is given again.
        if (databaseUnavailable(storeErr)) letGoOfClaimLater(claim);
        else log.error("idempotency bookkeeping failed", { err: storeErr });
      }
    },
  };
}
