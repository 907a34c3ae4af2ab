// How an error is written to a log line. A database error can carry the values it was run with:
// postgres.js attaches `parameters`, `args` and `query` (enumerable in debug mode), drizzle's
// DrizzleQueryError puts every parameter in its message ("Failed query: …\nparams: a,b"), and
// PostgreSQL itself quotes values back in `message` (invalid input syntax for type uuid: "…") and
// `detail` ("Key (email)=(…) already exists", "Failing row contains (…)"). Those values are API
// keys' hashes, CPFs, PIX keys, e-mails. So a database error keeps what locates the failure (SQLSTATE
// code, table, column, constraint, routine, the SQL text with its $n placeholders) and loses every
// value: quoted text in the message is replaced, detail and context are dropped. Other errors are
// serialized as pino would, minus the same parameter-bearing fields, with causes treated alike.

type Serialized = { type: string; message: string; stack?: string; [key: string]: unknown };

/** Fields of a database error (postgres.js, pg, drizzle) that never hold a bound value. */
const SAFE_DB_FIELDS = [
  "code",
  "severity",
  "severity_local",
  "routine",
  "schema_name",
  "table_name",
  "column_name",
  "constraint_name",
  "data_type_name",
];
/** Fields that hold bound values or rows, on any error. */
const VALUE_FIELDS = new Set([
  "parameters",
  "params",
  "args",
  "types",
  "query",
  "detail",
  "where",
  "internal_query",
  "internalQuery",
  "hint",
  "position",
]);
const REDACTED = "[redacted]";
const MAX_DEPTH = 5;

function isErrorLike(v: unknown): v is Error {
  return (
    v instanceof Error ||
    (typeof v === "object" &&
      v !== null &&
      typeof (v as Error).message === "string" &&
      typeof (v as Error).stack === "string")
  );
}

/** An error from PostgreSQL (postgres.js PostgresError, pg DatabaseError): a five-character SQLSTATE and a severity. */
function isPostgresError(err: Error): boolean {
  const e = err as unknown as Record<string, unknown>;
  return typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === "string";
}

/** drizzle's wrapper of a failed query: its message lists the parameters. */
function isQueryWrapper(err: Error): err is Error & { query: string } {
  const e = err as unknown as Record<string, unknown>;
  return typeof e.query === "string" && "params" in e;
}

/** PostgreSQL quotes the offending value in double quotes; identifiers it quotes are in the safe fields too. */
const redactQuoted = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"/g, `"${REDACTED}"`);

function safeMessage(err: Error): string {
  if (isQueryWrapper(err)) return `Failed query: ${err.query}`;
  if (isPostgresError(err)) return redactQuoted(err.message);
  return err.message;
}

/** Marks what serializeError wrote, so pino's `err` serializer, running after the formatter, leaves it alone. */
const SERIALIZED = Symbol("serialized error");

export function serializeError(err: unknown, depth = 0): unknown {
  if (!isErrorLike(err) || SERIALIZED in err) return err;
  const message = safeMessage(err);
  const out: Serialized = { type: err.constructor?.name || err.name, message };
  // A stack begins with "<name>: <message>": the message is swapped for the safe one wherever it appears.
  if (typeof err.stack === "string")
    out.stack = err.message && message !== err.message ? err.stack.split(err.message).join(message) : err.stack;
  const db = isPostgresError(err);
  if (db) {
    for (const k of SAFE_DB_FIELDS) {
      const v = (err as unknown as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = v;
    }
  } else {
    for (const [k, v] of Object.entries(err)) {
      if (VALUE_FIELDS.has(k) || k === "cause" || k in out) continue;
      out[k] = isErrorLike(v) ? (depth < MAX_DEPTH ? serializeError(v, depth + 1) : REDACTED) : v;
    }
  }
  if (err.cause !== undefined && depth < MAX_DEPTH)
    out.cause = isErrorLike(err.cause) ? serializeError(err.cause, depth + 1) : REDACTED;
  if (Array.isArray((err as AggregateError).errors) && depth < MAX_DEPTH)
    out.aggregateErrors = (err as AggregateError).errors.map((e) => serializeError(e, depth + 1));
  Object.defineProperty(out, SERIALIZED, { value: true });
  return out;
}

/** pino's `formatters.log`: every Error among a line's top-level fields, whatever its name, serialized safely. */
export function withSafeErrors(fields: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(fields)) {
    if (isErrorLike(v)) (copy ??= { ...fields })[k] = serializeError(v);
  }
  return copy ?? fields;
}
