import { listenerOf, openPool, type Pool } from "@/db";
import type { MerchantProfile } from "@/db/schema";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import { wallClockMs } from "@/lib/wall-clock";
import type { ApiScope } from "./scopes";

// The API key lookup was one of the two database round trips of every API request. Valid keys are
// kept in memory with their merchant's profile (never the balance). Entries are dropped
//  - at once in this process by the code that revokes a key or edits a merchant (forgetMerchant),
//  - in every other instance by the api_auth_changed notification the database's triggers send for
//    any such change (migration 0002), whoever made it,
//  - and after TTL_MS in any case, which bounds staleness if a notification is ever lost.
// A key in use is read again in the background during the last REFRESH_AHEAD_MS of its entry, so a
// busy key never meets an expired entry: without it every key cached in one burst (a restart, a
// benchmark's 2,000 keys) expired in one burst too, and those requests each waited for a lookup.
// Until this process is listening nothing is served from memory. If the listening connection drops,
// postgres.js reconnects and listens again, and that empties the cache, since notifications may have
// been missed meanwhile; during the gap an entry lives no longer than its TTL.

export const AUTH_CHANGED_CHANNEL = "api_auth_changed";
const TTL_MS = 30_000;
const REFRESH_AHEAD_MS = 10_000;
const MAX_ENTRIES = 10_000;

type Entry = {
  keyId: string;
  scopes: readonly ApiScope[];
  merchant: MerchantProfile;
  expiresAt: number;
  refreshing?: boolean;
};
type State = {
  pool: Pool;
  listening: boolean;
  /** Bumped by every invalidation: a lookup that began before one must not store what it read. */
  generation: number;
  entries: Map<string, Entry>;
};

// One per process: the dashboard (Next's bundle) and the API fast path (the server's copy of lib/)
// must share it, so a revocation in one reaches the other's cache.
const current = processSlot<State>("api-key-cache");

function state(): State {
  const pool = openPool();
  let s = current.value;
  if (!s || s.pool !== pool) {
    s = current.value = { pool, listening: false, generation: 0, entries: new Map() };
    listen(s, pool);
  }
  return s;
}

/** Once per pool; if LISTEN cannot start, the cache stays off for that pool (every lookup reads the database). */
function listen(s: State, pool: Pool) {
  listenerOf(pool)
    .listen(
      AUTH_CHANGED_CHANNEL,
      (merchantId) => forgetIn(s, merchantId),
      // Runs on the first LISTEN and after every reconnect.
      () => {
        s.entries.clear();
        s.generation++;
        s.listening = true;
      },
    )
    .catch((err: unknown) => {
      log.warn("API key cache disabled: cannot LISTEN for auth changes", { err });
    });
}

function forgetIn(s: State, merchantId: string) {
  s.generation++;
  for (const [hash, entry] of s.entries) if (entry.merchant.id === merchantId) s.entries.delete(hash);
}

/** Taken before reading a key from the database, and handed back to rememberKey. */
export function cacheGeneration(): number {
  return state().generation;
}

export function cachedKey(hash: string): Entry | undefined {
  const s = state();
  if (!s.listening) return undefined;
  const entry = s.entries.get(hash);
  if (!entry) return undefined;
  if (entry.expiresAt <= wallClockMs()) {
    s.entries.delete(hash);
    return undefined;
  }
  return entry;
}

/** True once per entry, when it is in use within REFRESH_AHEAD_MS of its expiry: the caller reads the key again. */
export function dueForRefresh(entry: Entry, now = wallClockMs()): boolean {
  if (entry.refreshing || entry.expiresAt - now > REFRESH_AHEAD_MS) return false;
  entry.refreshing = true;
  return true;
}

/** The key is no longer valid (revoked or deleted, found on a refresh). */
export function forgetKey(hash: string): void {
  current.value?.entries.delete(hash);
}

export function rememberKey(
  hash: string,
  keyId: string,
  scopes: readonly ApiScope[],
  merchant: MerchantProfile,
  generation: number,
): void {
  const s = state();
  if (!s.listening || s.generation !== generation) return;
  if (s.entries.size >= MAX_ENTRIES) s.entries.delete(s.entries.keys().next().value!);
  s.entries.set(hash, { keyId, scopes, merchant, expiresAt: wallClockMs() + TTL_MS });
}

/** Called after a committed change to a merchant's keys or profile: this process must not wait for the notification. */
export function forgetMerchant(merchantId: string): void {
  const s = current.value;
  if (s) forgetIn(s, merchantId);
}
