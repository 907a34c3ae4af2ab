import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { log, LOG_REDACT_PATHS, setLoggerForTests } from "./log";
import { withRequestContext } from "./request-context";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logger = pino(
    {
      base: undefined,
      redact: { paths: LOG_REDACT_PATHS, censor: "[redacted]" },
      mixin: () => ({}),
    },
    stream,
  );
  return { lines, logger };
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
    for (const secret of ["SECRETSECRET", "52998224725", "whsec_abc", "hunter22", "sk_test_XYZ"]) expect(text).not.toContain(secret);
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
});
