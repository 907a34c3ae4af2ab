import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, log, setLoggerForTests } from "./log";
import { withRequestContext } from "./request-context";

/** The service's own logger configuration, writing to memory. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, logger: createLogger(stream) };
}

describe("log", () => {
  afterEach(() => setLoggerForTests(undefined));

  it("never writes API keys, secrets, passwords or PIX keys", () => {
    const { lines, logger } = capture();
    setLoggerForTests(logger);
    log.info("merchant created", {
      apiKey: "sk_test_SECRETSECRETSECRETSECRETSECRETSECRET",
      merchant: { pixKey: "52998224725", secret: "whsec_abc" },
      password: "hunter22",
      headers: { authorization: "Bearer sk_test_XYZ", bearer: "sk_test_XYZ" },
    });
    const text = lines.join("");
    for (const secret of ["SECRETSECRET", "52998224725", "whsec_abc", "hunter22", "sk_test_XYZ"])
      expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
  });

  it("carries the request id of the request that caused the line", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const { currentRequestId } = await import("./request-context");
    setLoggerForTests(pino({ base: undefined, mixin: () => ({ requestId: currentRequestId() }) }, stream));
    await withRequestContext({ requestId: "req_test123" }, async () => {
      await Promise.resolve();
      log.warn("deep inside a service");
    });
    expect(JSON.parse(lines[0])).toMatchObject({ requestId: "req_test123", msg: "deep inside a service" });
  });

  it("writes an error's message, stack and fields, and its cause", () => {
    const { lines, logger } = capture();
    setLoggerForTests(logger);
    const err = Object.assign(new Error("provider answered 503", { cause: new TypeError("fetch failed") }), {
      status: 503,
    });
    log.error("payout failed", { err });
    const line = JSON.parse(lines[0]);
    expect(line.err).toMatchObject({
      type: "Error",
      message: "provider answered 503",
      status: 503,
      cause: { type: "TypeError", message: "fetch failed" },
    });
    expect(line.err.stack).toContain("provider answered 503");
  });

  it("never writes a database error's bound values, under any field name", () => {
    const { lines, logger } = capture();
    setLoggerForTests(logger);
    const MARK = "52998224725-MARKER";
    // As postgres.js builds them in debug mode (enumerable parameters), and as drizzle wraps them.
    const pgError = Object.assign(new Error(`invalid input syntax for type uuid: "${MARK}"`), {
      name: "PostgresError",
      severity: "ERROR",
      code: "22P02",
      routine: "string_to_uuid",
      detail: `Key (pix_key)=(${MARK}) already exists.`,
      where: `unnamed portal parameter $1 = '${MARK}'`,
      query: "select $1::uuid",
      parameters: [MARK],
      args: [MARK],
    });
    const wrapped = Object.assign(new Error(`Failed query: select $1::uuid\nparams: ${MARK}`, { cause: pgError }), {
      query: "select $1::uuid",
      params: [MARK],
    });
    log.error("a", { err: pgError });
    log.error("b", { err: wrapped });
    log.warn("c", { failure: wrapped, cause: pgError });
    const text = lines.join("");
    expect(text).not.toContain("MARKER");
    const b = JSON.parse(lines[1]);
    expect(b.err.message).toBe("Failed query: select $1::uuid");
    expect(b.err.cause).toMatchObject({
      code: "22P02",
      routine: "string_to_uuid",
      message: 'invalid input syntax for type uuid: "[redacted]"',
    });
    expect(JSON.parse(lines[2]).failure.cause.code).toBe("22P02");
  });

  it("writes the request line as pino would, whatever the path holds, and not when info is off", () => {
    const { lines, logger } = capture();
    logger.level = "info";
    setLoggerForTests(logger);
    const path = '/api/v1/order/a"b\\c\u0000\ud800';
    log.request({ requestId: "req_1", method: "GET", path, status: 404, ms: 1.5, merchantId: undefined });
    log.request({
      requestId: 'req_"2',
      method: "POST",
      path: "/x",
      status: 200,
      ms: 0,
      merchantId: "00000000-0000-4000-8000-000000000001",
    });
    const viaPino = capture();
    viaPino.logger.info({ requestId: "req_1", method: "GET", path, status: 404, ms: 1.5 }, "request");
    const pinoLine = JSON.parse(viaPino.lines[0]);
    const first = JSON.parse(lines[0]);
    expect(Object.keys(first)).toEqual(Object.keys(pinoLine));
    expect({ ...first, time: null }).toEqual({ ...pinoLine, time: null });
    expect(new Date(first.time).toISOString()).toBe(first.time);
    expect(JSON.parse(lines[1])).toMatchObject({
      requestId: 'req_"2',
      status: 200,
      ms: 0,
      merchantId: "00000000-0000-4000-8000-000000000001",
      msg: "request",
    });
    logger.level = "warn";
    log.request({ requestId: "req_3", method: "GET", path: "/", status: 200, ms: 1, merchantId: undefined });
    expect(lines).toHaveLength(2);
  });
});
