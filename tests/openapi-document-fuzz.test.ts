import { randomUUID } from "node:crypto";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import Decimal from "decimal.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { API_ENDPOINTS, openApiJson } from "@/lib/api/endpoints";
import type { Endpoint } from "@/lib/http/endpoint";
import { encodeKeysetCursor } from "@/lib/paging";
import { api, seedMerchant } from "./helpers";

// A small property-based fuzzer over the served document, no network, both ways: for every endpoint
// that reads a JSON body (its documented example, one field replaced, top-level or one level down,
// by a value from a pool of likely mistakes and edge values) and every query parameter of every
// endpoint (alone, a value from a pool of strings), the document's schema (ajv; multipleOf exact on
// decimals; query strings read as their declared type, as OpenAPI serializes them) and the server
// must agree on whether the request is invalid: a request the schema accepts is never refused as
// invalid (`validation_failed`), and one it refuses always is. Path parameters are filled with ids
// that exist nowhere: the body and the query are validated before anything is looked up. Seeded,
// so a disagreement reproduces.

type Schema = Record<string, unknown>;
type Operation = {
  requestBody?: { content: Record<string, { schema: Schema }> };
  parameters?: { in: string; name: string; schema: Schema; required?: boolean }[];
};
const doc = JSON.parse(openApiJson()) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const exactDecimals = (text: string) =>
  text.replace(/"multipleOf":/g, '"decimalMultipleOf":').replace(/"#\/components\//g, '"doc#/components/');

function ajvWith(opts: { coerceTypes: boolean }) {
  const ajv = new Ajv2020({ strict: false, coerceTypes: opts.coerceTypes });
  addFormats(ajv);
  ajv.addKeyword({
    keyword: "decimalMultipleOf",
    type: "number",
    validate: (step: number, data: number) => new Decimal(String(data)).mod(new Decimal(String(step))).isZero(),
  });
  ajv.addSchema({ $id: "doc", components: JSON.parse(exactDecimals(JSON.stringify(doc.components))) as Schema });
  return ajv;
}
const bodies = ajvWith({ coerceTypes: false });
// A query string is text: "20" is the integer 20 when the parameter says integer (OpenAPI's form style).
const queries = ajvWith({ coerceTypes: true });

const operation = (e: Endpoint) => doc.paths[e.path][e.method.toLowerCase()];

function bodyValidator(e: Endpoint) {
  const schema = operation(e).requestBody!.content["application/json"].schema;
  return bodies.compile(JSON.parse(exactDecimals(JSON.stringify(schema))) as Schema);
}

const BODY_POOL: unknown[] = [
  null,
  true,
  0,
  -1,
  1,
  10.5,
  0.001,
  5e-324,
  1000000.01,
  1e21,
  "",
  " ",
  "x",
  "10",
  "NaN",
  [],
  {},
  "a".repeat(300),
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  "2030-01-10",
  "2030-02-30",
  "maria@example.com",
  "not-an-email",
  "52998224725",
  "12345678900",
  "https://localhost/h",
  "https://example.com/webhooks",
  "USDT",
  "polygon",
  "bsc",
];

/** A keyset list's cursor as the server writes them: a position in the list, which it must take. */
const OUR_CURSOR = encodeKeysetCursor(new Date("2030-01-01T00:00:00.000Z"), "00000000-0000-4000-8000-000000000000");

const QUERY_POOL: string[] = [
  OUR_CURSOR,
  "",
  "x",
  "0",
  "1",
  "-1",
  "20",
  "100",
  "101",
  "1.5",
  "1e2",
  " 5",
  "a".repeat(201),
  "abc",
  "PENDING",
  "pending",
  "ACTIVE",
  "pix",
  "PAID",
  "succeeded",
  "eyJhdCI6MX0",
  "not/a cursor",
  "00000000-0000-4000-8000-000000000000",
  "not-a-uuid",
];

/** The server's refusals of a value as invalid: the schema's, and the enums the service checks itself (for the spec's own error bodies). */
const INVALID = new Set(["validation_failed", "network_not_supported", "asset_not_supported"]);

const CHECK_DIGITS = /: is not a valid (CPF|CNPJ)(;|$)/;

/**
 * The path with its parameters filled: an id in the shape ids have, of nothing that exists (the body
 * and the query are validated before anything is looked up), except where the query is read only
 * once the resource is found (a list under a resource): then a real one.
 */
const real = new Map<string, string>();
const filledPath = (e: Endpoint) => e.path.replace(/\{\w+\}/g, () => real.get(e.path) ?? randomUUID());

let apiKey: string;
beforeAll(async () => {
  ({ apiKey } = await seedMerchant({ balanceCentavos: 1_000_000_00 }));
  const make = async (path: string) => {
    const example = API_ENDPOINTS.find((x) => x.method === "POST" && x.path === path)!.docs.requestExample;
    const res = await api("POST", path, { apiKey, body: example });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // { paymentLink: { id } }, { webhook: { id } }: the one object the create answers with.
    return String(Object.values(res.body as Record<string, { id: string }>)[0].id);
  };
  real.set("/api/v1/payment-links/{id}/sales", await make("/api/v1/payment-links"));
  real.set("/api/v1/webhooks/{id}/deliveries", await make("/api/v1/webhooks"));
  real.set("/api/v1/recipients/{id}/statement", await make("/api/v1/recipients"));
});

function credentials(e: Endpoint) {
  if (e.path.startsWith("/api/v1/admin/")) return { headers: { authorization: `Bearer ${process.env.ADMIN_TOKEN}` } };
  return e.caller.docs.security.length > 0 ? { apiKey } : {};
}

type Disagreement = { where: string; value: unknown; schemaOk: boolean; status: number; msg: unknown };

const refusedAsInvalid = (res: { status: number; body: { code?: string } | null }) =>
  res.status === 400 && INVALID.has(String(res.body?.code));

/** Every field path of the example to replace: its top-level fields and those of its object-valued ones. */
function fieldPaths(example: Record<string, unknown>): string[][] {
  const paths: string[][] = [];
  for (const [k, v] of Object.entries(example)) {
    // A PIX key's kinds and check digits are stated (`x-format`), not a pattern: left out here.
    if (k === "pixKey") continue;
    paths.push([k]);
    if (v && typeof v === "object" && !Array.isArray(v)) for (const inner of Object.keys(v)) paths.push([k, inner]);
  }
  return paths;
}

function replaced(example: Record<string, unknown>, at: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = at;
  return {
    ...example,
    [head]: rest.length === 0 ? value : replaced(example[head] as Record<string, unknown>, rest, value),
  };
}

const bodyCases = API_ENDPOINTS.filter((e) => e.body && e.docs.requestExample !== undefined);
const queryCases = API_ENDPOINTS.filter((e) => (operation(e).parameters ?? []).some((p) => p.in === "query"));

describe("the fuzzer covers every endpoint that reads a body or a query", () => {
  it("every endpoint with a JSON body has a documented example to start from, and every query parameter is drawn", () => {
    expect(API_ENDPOINTS.filter((e) => e.body && e.docs.requestExample === undefined).map((e) => e.path)).toEqual([]);
    expect(API_ENDPOINTS.filter((e) => e.query && !queryCases.includes(e)).map((e) => e.path)).toEqual([]);
  });
});

describe("document fuzz: schema and server agree on invalid bodies", () => {
  it.each(bodyCases.map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s",
    async (_n, e) => {
      const validate = bodyValidator(e);
      const example = e.docs.requestExample as Record<string, unknown>;
      const fields = fieldPaths(example);
      const disagreements: Disagreement[] = [];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...fields), fc.constantFrom(...BODY_POOL), async (field, value) => {
          // A fresh e-mail each time: the documented example's own must stay free for tests/openapi.test.ts.
          const fresh = "email" in example ? { email: `fuzz-${randomUUID()}@example.com` } : {};
          const body = replaced({ ...example, ...fresh }, field, value);
          const schemaOk = validate(body) as boolean;
          const res = await api(e.method, filledPath(e), { body, ...credentials(e) });
          const serverOk = !refusedAsInvalid(res);
          // Check digits (CPF, CNPJ) are stated in the document (`x-format`) but no JSON Schema can check them.
          if (schemaOk && !serverOk && CHECK_DIGITS.test(String(res.body?.message ?? res.body?.error))) return;
          if (schemaOk !== serverOk)
            disagreements.push({
              where: `body ${field.join(".")}`,
              value,
              schemaOk,
              status: res.status,
              msg: res.body?.message ?? res.body?.error,
            });
        }),
        { numRuns: 40, seed: 7 },
      );
      expect(disagreements).toEqual([]);
    },
    120_000,
  );
});

describe("document fuzz: schema and server agree on invalid query parameters", () => {
  it.each(queryCases.map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s",
    async (_n, e) => {
      const params = operation(e).parameters!.filter((p) => p.in === "query");
      const validators = new Map(params.map((p) => [p.name, queries.compile(p.schema)]));
      const disagreements: Disagreement[] = [];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...params.map((p) => p.name)),
          fc.constantFrom(...QUERY_POOL),
          async (name, value) => {
            const schemaOk = validators.get(name)!(value) as boolean;
            const res = await api(e.method, `${filledPath(e)}?${name}=${encodeURIComponent(value)}`, credentials(e));
            // A GET's only input besides its path is its query: any 400 refuses the parameter drawn.
            const serverOk = res.status !== 400;
            // A cursor is opaque (its description says so): of the strings the pattern allows, only those the
            // server wrote are positions, as no JSON Schema can say. Ours, a keyset list's, must be taken.
            const opaque = name === "cursor" || name === "after";
            const ours = name === "cursor" && value === OUR_CURSOR;
            if (opaque && !ours && schemaOk && !serverOk && /cursor/i.test(String(res.body?.message))) return;
            if (schemaOk !== serverOk)
              disagreements.push({
                where: `query ${name}`,
                value,
                schemaOk,
                status: res.status,
                msg: res.body?.message ?? res.body?.error,
              });
          },
        ),
        { numRuns: 60, seed: 7 },
      );
      expect(disagreements).toEqual([]);
    },
    120_000,
  );
});
