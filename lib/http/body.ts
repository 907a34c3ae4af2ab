import { env } from "@/lib/env";
import { RequestRefused } from "@/lib/errors-api";
import { INCOMPLETE_BODY, knownRequestBody } from "./body-cache";
import type { ApiRequest } from "./request";

export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () =>
  new RequestRefused(`Request body is larger than ${MAX_BODY_BYTES} bytes`, "payload_too_large", 413);

/**
 * Reads the body as text with a hard size cap, counting bytes as they arrive so a large body is
 * refused without being buffered. Synchronous when the bytes are already here (the fast path), so
 * the request takes no extra trip through the microtask queue. Bytes that are not UTF-8 are refused,
 * never stored as U+FFFD.
 */
export function readBodyText(req: ApiRequest): string | Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const known = knownRequestBody(req);
  if (known === INCOMPLETE_BODY) throw bodyTimedOut();
  if (known) {
    if (known.byteLength > MAX_BODY_BYTES) throw tooLarge();
    return utf8(known);
  }
  if (!req.body) return "";
  return readStream(req.body);
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function utf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new RequestRefused("Request body is not valid UTF-8", "invalid_utf8");
  }
}

/** The 408 of a body that stopped arriving (shorter than its Content-Length) within the request's deadline. */
export function bodyTimedOut(): RequestRefused {
  return new RequestRefused(
    `The request body did not arrive in full within the request deadline (REQUEST_DEADLINE_MS, ${env().REQUEST_DEADLINE_MS} ms)`,
    "request_timeout",
    408,
  );
}

/**
 * A present Content-Type must be JSON (application/json or any type/…+json), in UTF-8 if it names a
 * charset; an absent one is read as JSON. Else a 415, before the body is read.
 */
export function refuseNonJsonContentType(req: ApiRequest): void {
  const given = req.headers.get("content-type");
  if (given === null || given.trim() === "") return;
  const [type, ...params] = given.split(";").map((p) => p.trim().toLowerCase());
  const json = type === "application/json" || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type);
  const charset = params
    .find((p) => p.startsWith("charset="))
    ?.slice(8)
    .replace(/^"|"$/g, "");
  if (json && (charset === undefined || charset === "utf-8" || charset === "utf8")) return;
  throw new RequestRefused(
    `Unsupported Content-Type ${JSON.stringify(given.slice(0, 100))}: send the body as application/json (UTF-8)`,
    "unsupported_media_type",
    415,
  );
}

async function readStream(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return utf8(Buffer.concat(chunks));
}

/**
 * No request needs more than a few levels of nesting, but 64 KiB holds some 32,000: enough to overflow
 * the stack of any recursive code that later walks the body (the canonical JSON behind
 * Idempotency-Key did, answering 500). So depth is capped where the body is read, for every endpoint.
 */
export const MAX_JSON_DEPTH = 32;

/** True when arrays and objects nest deeper than `max`; strings are skipped, so brackets inside them do not count. */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** An empty body reads as {} so the schema can name the missing fields. */
export function parseJsonBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  if (nestedDeeperThan(trimmed, MAX_JSON_DEPTH))
    throw new RequestRefused(`Request body is nested more than ${MAX_JSON_DEPTH} levels deep`, "json_too_deep");
  try {
    return JSON.parse(trimmed);
  } catch {
    throw new RequestRefused("Malformed JSON body", "malformed_json");
  }
}
