import { randomFillSync, randomUUID } from "node:crypto";

// Random bytes are drawn from the CSPRNG 4 KiB at a time and each byte is handed out once: one
// getrandom call per request for the request id alone was ~3% of the API's CPU under load.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

function refill(): void {
  pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
  used = 0;
}

function randomChunk(n: number): Buffer {
  if (n > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(n));
  if (used + n > pool.length) refill();
  const out = pool.subarray(used, used + n);
  used += n;
  return out;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 string (rejection sampling: no modulo bias), straight from the pool's bytes. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    if (used >= pool.length) refill();
    const byte = pool[used++];
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** URL-safe, ~131 bits: unguessable and short enough for a QR code. */
export function newPaymentLinkId(): string {
  return randomBase62(22);
}

export function newOrderHash(): string {
  return randomChunk(16).toString("hex");
}

/** PIX txid: [A-Za-z0-9], at most 25 characters, unique per order. */
export function newPixTxid(): string {
  return randomBase62(25);
}

export function newRequestId(): string {
  return `req_${randomBase62(16)}`;
}

export const newId = randomUUID;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** payCryptoPixId: base64url (no padding) of the payment's internal id (CONTRACT §4). */
export function encodeCryptoPixId(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

/** Accepts base64url or standard base64 with padding; null when it does not decode to a UUID. */
export function decodeCryptoPixId(encoded: string): string | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) || encoded.length > 128) return null;
  const normalised = encoded.replace(/-/g, "+").replace(/_/g, "/");
  const decoded = Buffer.from(normalised, "base64").toString("utf8");
  return isUuid(decoded) ? decoded.toLowerCase() : null;
}
