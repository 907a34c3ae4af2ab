import pino from "pino";
import { env } from "@/lib/env";
import { currentRequestId } from "@/lib/request-context";
import { processSlot } from "@/lib/singleton";
import { serializeError, withSafeErrors } from "./log-errors";
import { wallClockIso } from "@/lib/wall-clock";

// Structured JSON logs (pino), one line each, carrying the request id of whatever request caused
// them. Secrets never reach a log line: the redaction list covers every field name that could hold
// an API key, a webhook secret, a password or a full PIX key, wherever it appears; and errors go
// through ./log-errors.ts, which keeps a database error's bound parameters (and the values
// PostgreSQL quotes back in its messages) out of the line.

const REDACT = [
  "apiKey",
  "*.apiKey",
  "key",
  "*.key",
  "secret",
  "*.secret",
  "password",
  "*.password",
  "passwordHash",
  "*.passwordHash",
  "pixKey",
  "*.pixKey",
  "*.*.pixKey",
  "authorization",
  "*.authorization",
  "*.headers.authorization",
  "*.headers.bearer",
  "headers.authorization",
  "headers.bearer",
];

type Logger = pino.Logger;
const current = processSlot<Logger>("logger");

/** Lines are written once this many bytes wait, or every FLUSH_MS, whichever comes first. */
const BUFFER_BYTES = 4096;
const FLUSH_MS = 1000;

/**
 * stdout, written asynchronously and in batches. pino's default, one synchronous write per line, cost
 * 7–17% of the API's throughput at the default level (a line per request); a write per line even
 * asynchronous still cost ~3%. A line waits at most FLUSH_MS. pino flushes what is buffered when the
 * process exits, crashes included; only a SIGKILL loses the last second's lines.
 */
function stdoutDestination(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => stream.flush(), FLUSH_MS).unref();
  return stream;
}

/** The service's logger, writing to `destination` (stdout by default). */
export function createLogger(destination: pino.DestinationStream = stdoutDestination()): Logger {
  return pino(
    {
      level: env().LOG_LEVEL,
      // Lines start {"level":"info","time":"<ISO>", (the request line, written by hand below, too).
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every Error among a line's fields, under whatever name, is serialized safely.
      formatters: { level: (label) => ({ level: label }), log: withSafeErrors },
      redact: { paths: REDACT, censor: "[redacted]" },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      serializers: { err: serializeError },
    },
    destination,
  );
}

function logger(): Logger {
  return (current.value ??= createLogger());
}

type Fields = Record<string, unknown>;

/** One API request's line: fields of known shape, none of them a secret (the caller masks secret path parameters). */
export type RequestLine = {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  merchantId: string | undefined;
};

// The request line is the one written for every request, so it is written by hand, in the shape
// pino gives every line ({"level":"info","time":…, fields…, "msg":"request"}), straight to the
// service logger's stream: through pino (even a second, lean pino without redaction, error formatting
// or the request-context lookup) it cost ~6% of a GET /order/{id} under load, for fields of known
// types, none of them a secret. Strings a client can choose (the path, a request id it sent) go
// through JSON.stringify; the rest are ours.
function requestLineText(line: RequestLine): string {
  const merchant = line.merchantId === undefined ? "" : `,"merchantId":"${line.merchantId}"`;
  return (
    `{"level":"info","time":"${wallClockIso()}","requestId":${JSON.stringify(line.requestId)},"method":"${line.method}",` +
    `"path":${JSON.stringify(line.path)},"status":${line.status},"ms":${line.ms}${merchant},"msg":"request"}\n`
  );
}

const streamOf = (l: Logger) => (l as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];

export const log = {
  debug: (msg: string, fields?: Fields) => logger().debug(fields ?? {}, msg),
  info: (msg: string, fields?: Fields) => logger().info(fields ?? {}, msg),
  warn: (msg: string, fields?: Fields) => logger().warn(fields ?? {}, msg),
  error: (msg: string, fields?: Fields) => logger().error(fields ?? {}, msg),
  /** The line every API request ends with, at info. */
  request: (line: RequestLine) => {
    const service = logger();
    if (service.isLevelEnabled("info")) streamOf(service).write(requestLineText(line));
  },
};

/** Tests swap the destination to read what was logged. */
export function setLoggerForTests(l: Logger | undefined): void {
  current.value = l;
}
