import { randomFillSync, randomUUID } from "node:crypto";
import { wallClockMs } from "@/lib/wall-clock";

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

// Identifiers that are unique indexes of the orders table start with the second they were made, then
// are random. An index of purely random keys puts every new key on a random leaf page: each insert
// reads and dirties a page no other recent insert touched, and after every checkpoint each such page
// goes to the WAL whole (an 8-row INSERT of orders wrote 31-36 full pages, ~200 kB of WAL; with these
// prefixes 8-11 pages, ~60 kB). Keys made in the same second share the few right-most pages instead.
// The random part alone keeps each one unguessable; the prefix says only when it was made.

const SECOND_DIGITS = 6; // 62^6 seconds: until the year 3769

/**
 * `length` base62 characters: the second `nowMs` falls in (6 digits, which sort as their ASCII codes
 * do, so later ids sort after earlier ones), then at least 16 random ones.
 */
export function timeOrderedBase62(length: number, nowMs: number = wallClockMs()): string {
  if (length - SECOND_DIGITS < 16)
    throw new Error(`timeOrderedBase62: ${length} characters leave fewer than 16 random`);
  let n = Math.floor(nowMs / 1000);
  let second = "";
  for (let i = 0; i < SECOND_DIGITS; i++) {
    second = BASE62[n % 62] + second;
    n = Math.floor(n / 62);
  }
  return second + randomBase62(length - SECOND_DIGITS);
}

/** URL-safe, 22 characters: the second and 16 random (~95 bits; docs/api.md#identifiers). */
export function newPaymentLinkId(): string {
  return timeOrderedBase62(22);
}

/** 32 hex digits: the second (8) and 96 random bits. */
export function newOrderHash(nowMs: number = wallClockMs()): string {
  return Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, "0")
    .concat(randomChunk(12).toString("hex"));
}

/** PIX txid: [A-Za-z0-9], at most 25 characters, unique per order: the second and 19 random (~113 bits). */
export function newPixTxid(): string {
  return timeOrderedBase62(25);
}

export function newRequestId(): string {
  return `req_${randomBase62(16)}`;
}

export const newId = randomUUID;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** payCryptoPixId: base64url (no padding) of the payment's internal id (docs/api.md#identifiers). */
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
