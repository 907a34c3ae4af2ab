import { DomainError } from "@/lib/errors";

// When the service cannot answer for a while, a client is told so, and when to try again (503 with
// Retry-After), rather than a 500 that reads like a bug or an answer after minutes: the database
// unreachable or restarting, a statement or lock that timed out, a request past its deadline
// (docs/operations.md, "Deadlines").

/** A 503 the endpoint answers in its own error body, with Retry-After. */
export class ServiceUnavailable extends DomainError {
  override readonly status: number = 503;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

// postgres.js's own connection errors, and Node's for a server that cannot be reached.
const CONNECTION_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

export const UNREACHABLE = "the database cannot be reached";
export const RESTARTING = "the database is restarting";

/**
 * The database error behind `err` that says "not now" rather than "wrong": connection exceptions
 * (SQLSTATE class 08), the server shutting down or starting (57P01–57P03), too many connections
 * (53300), a read-only server after a failover (25006, or no host taking writes), a statement or lock that timed out (57014,
 * 55P03). Null for anything else.
 */
export function databaseUnavailable(err: unknown, depth = 0): string | null {
  if (!err || typeof err !== "object") return null;
  // Drizzle wraps the driver's error (DrizzleQueryError): the code is on its cause.
  const cause = (err as { cause?: unknown }).cause;
  if (cause && depth < 3) {
    const inner = databaseUnavailable(cause, depth + 1);
    if (inner) return inner;
  }
  const code = (err as { code?: unknown }).code;
  if (typeof code !== "string") return null;
  if (CONNECTION_CODES.has(code) || code.startsWith("08")) return UNREACHABLE;
  if (code === "57P01" || code === "57P02" || code === "57P03") return RESTARTING;
  // 53300: the server's connections are all taken; the driver's own, a query that waited DB_POOL_WAIT_MS
  // for one of the pool's (patches/postgres+3.4.9.patch).
  if (code === "53300" || code === "CONNECTION_QUEUE_TIMEOUT") return "the database has no free connection";
  if (code === "25006") return "the database is read-only (a failover is under way)";
  // The driver's own, when no host of DATABASE_URL takes writes (patches/postgres+3.4.9.patch).
  if (code === "TARGET_SESSION_ATTRS_UNMET") return "no database server takes writes (a failover is under way)";
  if (code === "57014") return "the request's database work took too long";
  if (code === "55P03") return "the data it needs is locked by other work";
  return null;
}
