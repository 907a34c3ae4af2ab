import { Column, is, Param, Placeholder, SQL } from "drizzle-orm";
import type postgres from "postgres";
import { openPool, type Db, type Pool } from "./index";

// Hot-path queries are written with Drizzle, built once per pool, and run straight on postgres.js.
//
// Drizzle's prepared query already skips re-assembling the SQL, but its execute() still costs, per
// call, four nested async layers (tracing spans, the query cache hook) and a generic row mapper that
// re-inspects every field's type for every row: a profile of GET /order/{id} under load put it at
// about a tenth of the request's CPU. Here the SQL text, the parameter slots and the per-column
// decoders are taken from Drizzle once, and each call is one postgres.js query (a named prepared
// statement, so PostgreSQL skips re-planning too) and one tight loop over the row. The statement and
// its result types stay Drizzle's: rows are decoded by the very columns Drizzle would use, and
// tests/prepared-queries.test.ts holds both executions equal.

/** What this module reads of a Drizzle prepared query: public at runtime, marked internal in its types. */
type DrizzlePrepared = {
  queryString: string;
  params: unknown[];
  fields?: { path: string[]; field: unknown }[];
  customResultMapper?: unknown;
  joinsNotNullableMap?: Record<string, boolean>;
  prepare: boolean;
};

type Decoder = { mapFromDriverValue(value: unknown): unknown };
type Slot =
  | { kind: "value"; value: unknown }
  | { kind: "placeholder"; name: string; encoder?: { mapToDriverValue(v: unknown): unknown } };
type Execute = (values?: Record<string, unknown>) => Promise<unknown>;

function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field;
  // An SQL expression's decoder (`sql<T>` or `.mapWith()`) is internal in Drizzle's types.
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Decoder }).decoder;
  throw new Error("prepared(): only columns and SQL expressions can be selected on the fast path");
}

function slotOf(p: unknown): Slot {
  if (is(p, Placeholder)) return { kind: "placeholder", name: p.name };
  if (is(p, Param) && is(p.value, Placeholder)) return { kind: "placeholder", name: p.value.name, encoder: p.encoder };
  return { kind: "value", value: p };
}

/** Exported for tests: turns a Drizzle prepared query into one postgres.js call and a row decoder. */
export function compile<T extends { execute: Execute }>(client: postgres.Sql, query: T): Pick<T, "execute"> {
  const q = query as unknown as DrizzlePrepared;
  if (typeof q.queryString !== "string" || !Array.isArray(q.params)) {
    throw new Error("prepared(): not a Drizzle prepared query");
  }
  if (q.customResultMapper) throw new Error("prepared(): relational queries are not supported on the fast path");
  // A left join can turn a joined table's columns into one null object; Drizzle's mapper does that,
  // this one does not, so such queries stay on Drizzle.
  if (q.joinsNotNullableMap && Object.values(q.joinsNotNullableMap).some((notNull) => !notNull)) {
    throw new Error("prepared(): outer joins are not supported on the fast path");
  }
  const text = q.queryString;
  const slots = q.params.map(slotOf);
  const options = { prepare: q.prepare };

  const bind = (values: Record<string, unknown>): unknown[] =>
    slots.map((s) => {
      if (s.kind === "value") return s.value;
      const v = values[s.name];
      // One property lookup on the common path; `in` only tells a missing key from an undefined one.
      if (v === undefined && !(s.name in values)) throw new Error(`No value for placeholder "${s.name}" was provided`);
      return s.encoder ? s.encoder.mapToDriverValue(v) : v;
    });

  const fields = q.fields;
  if (!fields) {
    const execute = (values: Record<string, unknown> = {}) =>
      client.unsafe(text, bind(values) as never[], options).then((rows) => [...rows]);
    return { execute } as unknown as Pick<T, "execute">;
  }

  const columns = fields.map(({ path, field }) => {
    if (path.length < 1 || path.length > 2)
      throw new Error("prepared(): selections nest at most one level on the fast path");
    return { outer: path[0], inner: path.length === 2 ? path[1] : undefined, decoder: decoderOf(field) };
  });
  const decode = (raw: unknown[]) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const { outer, inner, decoder } = columns[i];
      const v = raw[i];
      const value = v === null ? null : decoder.mapFromDriverValue(v);
      if (inner === undefined) row[outer] = value;
      else ((row[outer] ??= {}) as Record<string, unknown>)[inner] = value;
    }
    return row;
  };
  const execute = (values: Record<string, unknown> = {}) =>
    client
      .unsafe(text, bind(values) as never[], options)
      .values()
      .then((rows) => rows.map((r) => decode(r as unknown[])));
  return { execute } as unknown as Pick<T, "execute">;
}

/**
 * A value a hand-written statement writes: given with the statement, a placeholder filled in at each
 * call, or an expression over the statement's own rows (a column of the rows it writes for).
 */
export type SqlValue<T> = T | Placeholder | SQL;

const cache = new WeakMap<Pool, Map<string, unknown>>();

/** What `make` builds for the open pool, once per pool and name. */
function oncePerPool<T>(name: string, make: (pool: Pool) => T): T {
  const pool = openPool();
  let byName = cache.get(pool);
  if (!byName) cache.set(pool, (byName = new Map()));
  let q = byName.get(name) as T | undefined;
  if (!q) {
    q = make(pool);
    byName.set(name, q);
  }
  return q;
}

/**
 * A hot-path query, built once per pool by `build` (which must end in Drizzle's `.prepare(name)`),
 * and executed as described above. The result has Drizzle's `execute` signature.
 */
export function prepared<T extends { execute: Execute }>(name: string, build: (db: Db) => T): Pick<T, "execute"> {
  return oncePerPool(name, (pool) => compile(pool.sql, build(pool.db)));
}
