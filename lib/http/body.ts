import { RequestRefused } from "@/lib/errors-api";
import { knownRequestBody } from "./body-cache";
import type { ApiRequest } from "./request";

export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () =>
  new RequestRefused(`Request body is larger than ${MAX_BODY_BYTES} bytes`, "payload_too_large", 413);

/**
 * Reads the body as text with a hard size cap, counting bytes as they arrive so a large body is
 * refused without being buffered. Synchronous when the bytes are already here (the fast path), so
 * the request takes no extra trip through the microtask queue.
 */
export function readBodyText(req: ApiRequest): string | Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const known = knownRequestBody(req);
  if (known) {
    if (known.byteLength > MAX_BODY_BYTES) throw tooLarge();
    return Buffer.from(known.buffer, known.byteOffset, known.byteLength).toString("utf8");
  }
  if (!req.body) return "";
  return readStream(req.body);
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
  return Buffer.concat(chunks).toString("utf8");
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
