import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { operator } from "@/lib/identity/api-keys/callers";
import { API_ENDPOINTS } from "@/lib/api/endpoints";
import { errorSchemaFor } from "@/lib/api/openapi";
import { payCryptoPixEndpoint } from "@/lib/crypto-pix/endpoints";
import { createInvoiceEndpoint } from "@/lib/invoices/endpoints";
import type { Endpoint } from "@/lib/http/endpoint";
import { api, seedMerchant } from "./helpers";

// Fuzzing every endpoint that takes a body with generated requests: arbitrary JSON, wrong types,
// extreme numbers (1e308, 1e400, -0, 2^64, subnormals), NaN-like strings, strings up to 70 KiB,
// lone surrogates and NUL, deep nesting, arrays instead of objects, broken JSON, sometimes with an
// Idempotency-Key. Whatever arrives, the answer is never a 5xx, always the endpoint's documented
// body for its status (error schemas from the OpenAPI document, strict), and never a stack trace.
// Seeded per endpoint, so a failure reproduces; fast-check prints the shrunk body.

const RUNS_PER_ENDPOINT = 300;
const ADMIN = () => process.env.ADMIN_TOKEN!;

const bodyRoutes = API_ENDPOINTS.filter((e) => e.body).map((e) => ({ method: e.method, path: e.path, op: e }));

/** JSON text fragments: each a value a client could send, most of them wrong. */
const number = fc.oneof(
  fc.constantFrom(
    "1e308",
    "-1e308",
    "1e400",
    "-1e400",
    "-0",
    "0",
    "0.0",
    "5e-324",
    "1e-400",
    "18446744073709551616",
    "123456789012345678901234567890",
    "10.005",
    "10.50",
    "0.01",
    "1E2",
    "-1",
    "1000000.01",
    "9007199254740993",
    "0.30000000000000004",
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.integer().map(String),
  fc.integer({ min: 1, max: 1_000_000 }).map((n) => String(n / 100)),
);
const string = fc.oneof(
  fc.constantFrom(
    '"NaN"',
    '"Infinity"',
    '"-Infinity"',
    '"1e308"',
    '"10.50"',
    '""',
    '" "',
    '"\\u0000"',
    '"a\\u0000b"',
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"\\ud83d\\ude00"',
    '"\\u202e"',
    '"null"',
    '"true"',
    '"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"',
    '"polygon"',
    '"USDT"',
    '"bsc"',
    '"maria@example.com"',
    '"52998224725"',
  ),
  fc.string({ unit: "binary", maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: "grapheme", maxLength: 40 }).map((s) => JSON.stringify(s)),
  // Long strings: up to 70 KiB, across the 64 KiB body limit.
  fc.integer({ min: 0, max: 70 * 1024 }).map((n) => JSON.stringify("é".repeat(Math.floor(n / 2)))),
);
const literal = fc.constantFrom("true", "false", "null");
const deep = fc
  .integer({ min: 1, max: 20_000 })
  .chain((d) => fc.constantFrom("[".repeat(d) + "]".repeat(d), '{"a":'.repeat(d) + "1" + "}".repeat(d)));
const { value: fragment } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    number,
    string,
    literal,
    tie("array"),
    tie("object"),
    deep,
  ),
  array: fc.array(tie("value"), { maxLength: 4 }).map((a) => `[${a.join(",")}]`),
  object: fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom("value", "__proto__", "constructor", "network", "amount"),
          fc.string({ maxLength: 8 }),
        ),
        tie("value"),
      ),
      { maxLength: 4 },
    )
    .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
}));

/** Bodies for one endpoint: its own fields with wild values, its example with one field broken, or anything at all. */
function bodies(op: Endpoint) {
  const example = op.docs.requestExample as Record<string, unknown>;
  const fields = Object.keys(example).concat(["value", "network", "asset", "amount"]);
  const ownFields = fc
    .array(fc.tuple(fc.constantFrom(...fields), fragment), { maxLength: 6 })
    .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
  const oneBroken = fc.tuple(fc.constantFrom(...Object.keys(example)), fragment).map(([k, v]) => {
    const rest = Object.entries(example)
      .filter(([name]) => name !== k)
      .map(([name, val]) => `${JSON.stringify(name)}:${JSON.stringify(val)}`);
    return `{${[...rest, `${JSON.stringify(k)}:${v}`].join(",")}}`;
  });
  const extraDeep = deep.map((d) => JSON.stringify(example).replace(/}$/, `,"extra":${d}}`));
  const garbage = fc.oneof(
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.constantFrom(
      "",
      "{",
      "[1,",
      '{"value":}',
      "nul",
      "{}",
      "[]",
      '"text"',
      "42",
      "\u0000",
      '{"value":10}{"value":11}',
    ),
  );
  return fc.oneof(ownFields, oneBroken, extraDeep, fragment, garbage);
}

const STACK_TRACE = /\n\s+at |node_modules|\.tsx?:\d+|Error: |TypeError|RangeError|SyntaxError/;

describe("fuzz: every endpoint that takes a body", () => {
  let apiKey: string;
  /** Webhook endpoints get a merchant with no orders: endpoints the fuzzer registers must never receive events (deliveries to made-up hosts would keep the shared dispatcher busy for the suites after this one). */
  let hooksKey: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ apiKey } = await seedMerchant({ balanceCentavos: 10_000_000_00, accountType: "business" }));
    ({ apiKey: hooksKey } = await seedMerchant());
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 12.34 } });
    const deposit = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 100.5, asset: "USDT", network: "polygon" },
    });
    const cryptoPix = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: payCryptoPixEndpoint.docs.requestExample,
    });
    const merchant = await api("POST", "/api/v1/admin/merchants", {
      apiKey: ADMIN(),
      body: { companyName: "Loja fuzz" },
    });
    ids.order = pix.body.pixOrder.paymentLinkId;
    ids.deposit = deposit.body.order.paymentLinkId;
    ids.cryptoPix = cryptoPix.body.data.payCryptoPixId;
    ids.merchant = merchant.body.merchant.id;
    const invoice = await api("POST", "/api/v1/invoices", { apiKey, body: createInvoiceEndpoint.docs.requestExample });
    ids.invoice = invoice.body.invoice.id;
  });

  function pathFor(path: string): string {
    const values: Record<string, string> = {
      id: path.includes("/admin/") ? ids.merchant : path.includes("/invoices/") ? ids.invoice : ids.order,
      paymentLinkId: ids.deposit,
      payCryptoPixId: ids.cryptoPix,
    };
    return path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "00000000-0000-4000-8000-000000000000");
  }

  function keyFor(path: string, op: Endpoint): string | undefined {
    if (op.caller === operator) return ADMIN();
    if (!op.caller.ownerId) return undefined;
    return path.startsWith("/api/v1/webhooks") ? hooksKey : apiKey;
  }

  it.each(bodyRoutes.map((r, i) => [`${r.method} ${r.path}`, r, i] as const))(
    "%s: never a 5xx, always the documented body, never a stack trace",
    async (_name, { method, path, op }, index) => {
      const key = keyFor(path, op);
      const statuses: Record<number, number> = {};
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(
          bodies(op),
          fc.option(fc.string({ minLength: 1, maxLength: 20 }), { freq: 4 }),
          async (raw, idempotencyKey) => {
            const headers: Record<string, string> = idempotencyKey
              ? { "idempotency-key": idempotencyKey.replace(/[^\x21-\x7e]/g, "k") }
              : {};
            // A dashboard e-mail is unique: each request gets its own, leaving the documented example's free for other suites.
            const body = raw.replaceAll("dono@padaria.example", `dono+${++sent}@padaria.example`);
            const res = await api(method, pathFor(path), { apiKey: key, rawBody: body, headers });
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
            const shown = `${res.status} ${text.slice(0, 300)} ← ${raw.slice(0, 120)}`;
            expect(res.status, shown).toBeLessThan(500);
            expect(text).not.toMatch(STACK_TRACE);
            expect(res.headers.get("content-type")).toContain("application/json");
            if (res.status >= 400) {
              const parsed = errorSchemaFor(op, res.status).safeParse(res.body);
              expect(parsed.error, shown).toBeUndefined();
            } else {
              expect(res.status, shown).toBe(op.response.status);
              if ("schema" in op.response) expect(op.response.schema.safeParse(res.body).error, shown).toBeUndefined();
            }
          },
        ),
        { numRuns: RUNS_PER_ENDPOINT, seed: 20261122 + index, endOnFailure: true },
      );
      // The bodies must reach past the first check: some fail validation, some get further.
      expect(Object.keys(statuses).length, JSON.stringify(statuses)).toBeGreaterThan(1);
    },
    120_000,
  );

  // Found by this fuzzer: 64 KiB of brackets overflowed the stack of the canonical JSON behind
  // Idempotency-Key (a 500). Depth is now capped where every body is read.
  it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s: a body nested 10,000 deep is a 400, with or without Idempotency-Key",
    async (_name, { method, path, op }) => {
      const key = keyFor(path, op);
      const example = JSON.stringify(op.docs.requestExample);
      const raw = example
        .replace(/}$/, `,"extra":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)
        .replace("dono@padaria.example", "deep@padaria.example");
      const variants: Record<string, string>[] = [{}, { "idempotency-key": `deep-${method}-${path}` }];
      for (const headers of variants) {
        const res = await api(method, pathFor(path), { apiKey: key, rawBody: raw, headers });
        expect(res.status).toBe(400);
        expect(errorSchemaFor(op, 400).safeParse(res.body).error).toBeUndefined();
        expect(JSON.stringify(res.body)).toContain("nested more than");
      }
    },
  );
});
