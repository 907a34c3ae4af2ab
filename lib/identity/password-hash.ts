import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

// Dashboard passwords are chosen by people, so unlike API keys they need a slow, memory-hard hash:
// scrypt with N=2^15, r=8, p=1 costs ~32 MiB and tens of milliseconds per guess. The parameters are
// stored with the hash so they can be raised later without invalidating existing passwords.

const N = 2 ** 15;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
// Upper bounds for parameters read back from storage, so a corrupted row cannot make one login
// allocate gigabytes.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

// scrypt needs 128·N·r·p bytes; Node's default maxmem (32 MiB) is exactly N=2^15·r=8 and is refused
// because of bookkeeping overhead, so allow twice the requirement.
function maxmemFor(n: number, r: number, p: number): number {
  return 2 * 128 * n * r * p;
}

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$saltB64$hashB64` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(password, salt, KEY_BYTES, { N, r: R, p: P, maxmem: maxmemFor(N, R, P) });
  return ["scrypt", N, R, P, salt.toString("base64"), hash.toString("base64")].join("$");
}

function parseParam(value: string, max: number): number | null {
  if (!/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= max ? n : null;
}

/** False for a wrong password and for anything that is not a hash this module wrote. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const n = parseParam(parts[1], MAX_N);
  const r = parseParam(parts[2], MAX_R);
  const p = parseParam(parts[3], MAX_P);
  // scrypt requires N to be a power of two.
  if (n === null || r === null || p === null || n < 2 || (n & (n - 1)) !== 0) return false;
  const salt = Buffer.from(parts[4], "base64");
  const expected = Buffer.from(parts[5], "base64");
  if (salt.length === 0 || expected.length < 16) return false;
  const actual = await scryptAsync(password, salt, expected.length, { N: n, r, p, maxmem: maxmemFor(n, r, p) });
  return timingSafeEqual(actual, expected);
}
