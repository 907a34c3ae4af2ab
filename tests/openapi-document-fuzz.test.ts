import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import Decimal from "decimal.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { API_ENDPOINTS, openApiJson } from "@/lib/api/endpoints";
import { api, seedMerchant } from "./helpers";

// A small property-based fuzzer over the served document, no network: for every endpoint that reads a
// JSON body and has a documented request example, one top-level field of the example is replaced by a
// value drawn from a pool of likely mistakes and edge values; the document's schema for the whole body
// (ajv, multipleOf exact on decimals) and the server must agree on whether it is invalid
// (`validation_failed`). Seeded, so a disagreement reproduces.

type Schema = Record<string, unknown>;
const doc = JSON.parse(openApiJson()) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};

const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
ajv.addKeyword({
  keyword: "decimalMultipleOf",
  type: "number",
  validate: (step: number, data: number) => new Decimal(String(data)).mod(new Decimal(String(step))).isZero(),
});
ajv.addSchema({
  $id: "doc",
  components: JSON.parse(JSON.stringify(doc.components).replace(/"multipleOf":/g, '"decimalMultipleOf":')),
});

function validatorFor(method: string, path: string) {
  const schema = doc.paths[path][method.toLowerCase()].requestBody!.content["application/json"].schema;
  const text = JSON.stringify(schema)
    .replace(/"multipleOf":/g, '"decimalMultipleOf":')
    .replace(/"#\/components\//g, '"doc#/components/');
  return ajv.compile(JSON.parse(text) as Schema);
}

const POOL: unknown[] = [
  null,
  true,
  0,
  -1,
  1,
  10.5,
  0.001,
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
  "USDT",
  "polygon",
  "bsc",
];

/** The server's refusals of a field's value as invalid: the schema's, and the enums the service checks itself (for the spec's own error bodies). */
const INVALID = new Set(["validation_failed", "network_not_supported", "asset_not_supported"]);

const CHECK_DIGITS = /: is not a valid (CPF|CNPJ)(;|$)/;

const cases = API_ENDPOINTS.filter(
  (e) => e.body && e.docs.requestExample !== undefined && e.caller.docs.security.length > 0 && !e.path.includes("{"),
);

let apiKey: string;
beforeAll(async () => {
  ({ apiKey } = await seedMerchant({ balanceCentavos: 1_000_000_00 }));
});

describe("document fuzz: schema and server agree on invalid bodies", () => {
  it.each(cases.map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s",
    async (_n, e) => {
      const validate = validatorFor(e.method, e.path);
      const example = e.docs.requestExample as Record<string, unknown>;
      // A PIX key's kinds and check digits are stated (`x-format`), not a pattern: left out here.
      const fields = Object.keys(example).filter((f) => f !== "pixKey");
      const disagreements: unknown[] = [];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...fields), fc.constantFrom(...POOL), async (field, value) => {
          // A fresh e-mail each time: the documented example's own must stay free for tests/openapi.test.ts.
          const fresh = "email" in example ? { email: `fuzz-${crypto.randomUUID()}@example.com` } : {};
          const body = { ...example, ...fresh, [field]: value };
          const schemaOk = validate(body) as boolean;
          const operator = e.path.startsWith("/api/v1/admin/");
          const res = await api(e.method, e.path, {
            body,
            ...(operator ? { headers: { authorization: `Bearer ${process.env.ADMIN_TOKEN}` } } : { apiKey }),
          });
          const serverOk = !(res.status === 400 && INVALID.has(res.body?.code));
          // Check digits (CPF, CNPJ) are stated in the document (`x-format`) but no JSON Schema can check them.
          if (schemaOk && !serverOk && CHECK_DIGITS.test(String(res.body?.message ?? res.body?.error))) return;
          if (schemaOk !== serverOk)
            disagreements.push({
              field,
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
