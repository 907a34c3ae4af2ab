import type { Db } from "./index";

// Hot-path queries are built once per pool and kept as named prepared statements: Drizzle then
// skips re-assembling the SQL on every request, and PostgreSQL skips re-planning it. Profiling the
// API under load showed query building as one of the largest per-request costs.

const cache = new WeakMap<Db, Map<string, unknown>>();

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let byName = cache.get(db);
  if (!byName) cache.set(db, (byName = new Map()));
  let q = byName.get(name) as T | undefined;
  if (!q) {
    q = build(db);
    byName.set(name, q);
  }
  return q;
}
