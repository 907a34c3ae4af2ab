import { openPool, type Pool } from "@/db";
import { listen as listenFor } from "@/db/notifications";
import type { MerchantProfile } from "@/db/schema";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import type { ApiScope } from "./scopes";

// The API key lookup was one of the two database round trips of every API request. Valid keys are
// kept in memory with their merchant's profile (never the balance), with no expiry: the database
// says when one changes. Entries are dropped
//  - at once in this process by the code that revokes a key or edits a merchant (forgetMerchant),
//  - in every instance by the api_auth_changed notification the database's triggers send for any
//    change to a key or a merchant's profile, whoever made it (migrations 0002 and 0034),
//  - all of them the moment the listening connection is lost, since notifications sent meanwhile are
//    gone: nothing is served from memory until LISTEN is back (db/notifications.ts).
// So a cached key costs nothing while it is unchanged; a timer re-reading each one (the former 30 s
// expiry) cost ~100 lookups a second with 2,000 keys whatever the traffic.

export const AUTH_CHANGED_CHANNEL = "api_auth_changed";
const MAX_ENTRIES = 10_000;

type Entry = {
  keyId: string;
  scopes: readonly ApiScope[];
  merchant: MerchantProfile;
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
  const forgetAll = (listening: boolean) => {
    s.entries.clear();
    s.generation++;
    s.listening = listening;
  };
  listenFor(pool, AUTH_CHANGED_CHANNEL, {
    notify: (merchantId) => forgetIn(s, merchantId),
    // After a lost connection what was cached is read again, since a change may have gone unheard.
    listening: () => forgetAll(true),
    lost: () => forgetAll(false),
  }).catch((err: unknown) => {
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
  return s.entries.get(hash);
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
  s.entries.set(hash, { keyId, scopes, merchant });
}

/** Called after a committed change to a merchant's keys or profile: this process must not wait for the notification. */
export function forgetMerchant(merchantId: string): void {
  const s = current.value;
  if (s) forgetIn(s, merchantId);
}
