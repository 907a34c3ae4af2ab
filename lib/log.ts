import pino from "pino";
import { env } from "@/lib/env";
import { currentRequestId } from "@/lib/request-context";
import { processSlot } from "@/lib/singleton";
import { serializeError, withSafeErrors } from "./log-errors";

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

/** The service's logger, writing to `destination` (stdout by default). */
export function createLogger(destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: env().LOG_LEVEL,
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

export const log = {
  debug: (msg: string, fields?: Fields) => logger().debug(fields ?? {}, msg),
  info: (msg: string, fields?: Fields) => logger().info(fields ?? {}, msg),
  warn: (msg: string, fields?: Fields) => logger().warn(fields ?? {}, msg),
  error: (msg: string, fields?: Fields) => logger().error(fields ?? {}, msg),
};

/** Tests swap the destination to read what was logged. */
export function setLoggerForTests(l: Logger | undefined): void {
  current.value = l;
}
export { REDACT as LOG_REDACT_PATHS };
