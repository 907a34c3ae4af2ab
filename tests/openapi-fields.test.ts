import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import Decimal from "decimal.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { openApiJson } from "@/lib/api/endpoints";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { api, seedMerchant } from "./helpers";

// The OpenAPI document says what the server enforces: for each request field whose rule the
// document states, a value its schema accepts is not refused as invalid (no `validation_failed`), and
// one it refuses is refused; then a property-based run over BRL amounts, whose rule is exact in JSON
// Schema. The schema verdict is ajv's on the field's own schema in the served document, with
// `multipleOf` taken on the decimal a JSON number writes (as JSON Schema means it), not on binary floats.

type Schema = Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, { requestBody?: Schema; parameters?: Schema[] }>>;
  components: { schemas: Record<string, Schema> };
};
const doc = JSON.parse(openApiJson()) as Doc;

function deref(node: Schema): Schema {
  const ref = node.$ref;
  return typeof ref === "string" ? deref(doc.components.schemas[ref.split("/").pop()!]) : node;
}

/** The schema of a body field (dot path) of an operation, as the document gives it. */
function bodyField(method: string, path: string, field: string): Schema {
  const body = doc.paths[path][method.toLowerCase()].requestBody as {
    content: { "application/json": { schema: Schema } };
  };
  let node = deref(body.content["application/json"].schema);
  for (const name of field.split(".")) node = deref((node.properties as Record<string, Schema>)[name]);
  return node;
}

function queryParam(method: string, path: string, name: string): Schema {
  const p = doc.paths[path][method.toLowerCase()].parameters!.find((x) => x.name === name && x.in === "query")!;
  return p.schema as Schema;
}

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addKeyword({
  keyword: "decimalMultipleOf",
  type: "number",
  validate: (step: number, data: number) => new Decimal(String(data)).mod(new Decimal(String(step))).isZero(),
});

/** Whether the field's schema accepts `value` (multipleOf exact on decimals). */
function schemaAccepts(schema: Schema, value: unknown): boolean {
  const exact = JSON.parse(JSON.stringify(schema).replace(/"multipleOf":/g, '"decimalMultipleOf":')) as Schema;
  return ajv.validate(exact, value) as boolean;
}

/** Whether the server refused the request as invalid (the schema's kind of refusal). */
const refusedAsInvalid = (res: { status: number; body: { code?: string } }) =>
  res.status === 400 && res.body.code === "validation_failed";

const brCode = (amountCentavos?: number) =>
  encodeStaticBrCode({
    pixKey: "padaria@example.com",
    merchantName: "Padaria Pao Quente",
    merchantCity: "Sao Paulo",
    amountCentavos,
    txid: "PEDIDO123",
  });
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

const BRL_VALUES: unknown[] = [
  10,
  10.5,
  0.07,
  0.01,
  1_000_000,
  5e-324,
  0,
  -1,
  10.005,
  1_000_000.01,
  0.30000000000000004,
  1e308,
  "10",
  null,
];
const ADDRESS = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const CHECKSUMMED = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const ADDRESSES: unknown[] = [
  ADDRESS,
  CHECKSUMMED,
  ` ${ADDRESS} `,
  "0x1234",
  "not an address",
  `0x${"g".repeat(40)}`,
  `${ADDRESS}00`,
  42,
];

let apiKey: string;
let refundOrderId: string;
let depositLink: string;

beforeAll(async () => {
  ({ apiKey } = await seedMerchant({ balanceCentavos: 100_000_00 }));
  const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 500 } });
  refundOrderId = pix.body.pixOrder._id;
  expect((await api("POST", `/api/v1/sandbox/orders/${refundOrderId}/pay`, { apiKey })).status).toBe(200);
  const deposit = await api("POST", "/api/v1/onchain/deposit", {
    apiKey,
    body: { value: 1000, asset: "USDT", network: "polygon" },
  });
  depositLink = deposit.body.order.paymentLinkId;
}, 60_000);

type FieldCase = {
  method: string;
  path: () => string;
  /** The documented path, where it differs from the one requested. */
  docPath?: string;
  field: string;
  body: (value: unknown) => Record<string, unknown>;
  values: unknown[];
};

const BRL_CASES: FieldCase[] = [
  {
    method: "POST",
    path: () => "/api/v1/onchain/deposit",
    field: "value",
    body: (value) => ({ value, asset: "USDT", network: "polygon" }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => "/api/v1/onchain/withdraw/initiate",
    field: "value",
    body: (value) => ({ value, toAddress: ADDRESS, network: "polygon" }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => "/api/v1/order/create/pix",
    field: "value",
    body: (value) => ({ value }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => "/api/v1/order/create",
    field: "value",
    body: (value) => ({ value }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => "/api/v1/order/create/lightning",
    field: "value",
    body: (value) => ({ value }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => `/api/v1/order/${refundOrderId}/refund`,
    docPath: "/api/v1/order/{id}/refund",
    field: "value",
    body: (value) => ({ value }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => "/api/v1/invoices",
    field: "value",
    body: (value) => ({ value, dueDate: inDays(20), payer: { name: "Maria Souza", cpf: "52998224725" } }),
    values: BRL_VALUES,
  },
  {
    method: "POST",
    path: () => "/api/v1/crypto-pix/onchain/pay",
    field: "value",
    body: (value) => ({ qrcode: brCode(), network: "bsc", value }),
    values: BRL_VALUES,
  },
];

const OTHER_CASES: FieldCase[] = [
  {
    method: "POST",
    path: () => "/api/v1/onchain/withdraw/initiate",
    field: "toAddress",
    body: (toAddress) => ({ value: 10, toAddress, network: "polygon" }),
    values: ADDRESSES,
  },
  {
    method: "POST",
    path: () => "/api/v1/crypto-pix/onchain/pay",
    field: "refundAddress",
    body: (refundAddress) => ({ qrcode: brCode(10_00), network: "bsc", refundAddress }),
    values: ADDRESSES,
  },
  {
    method: "POST",
    path: () => "/api/v1/webhooks",
    field: "url",
    body: (url) => ({ url }),
    values: [
      "http://127.0.0.1:9/hooks",
      "https://localhost/hooks?x=1",
      " http://127.0.0.1:9/h ",
      "ftp://127.0.0.1/hooks",
      "not a url",
      "https://user:pass@localhost/hooks",
      "https://localhost/hooks#part",
      "https://",
      "/relative/path",
      7,
    ],
  },
  {
    method: "POST",
    path: () => `/api/v1/sandbox/onchain/${depositLink}/transfer`,
    docPath: "/api/v1/sandbox/onchain/{paymentLinkId}/transfer",
    field: "amount",
    body: (amount) => ({ amount }),
    values: [
      1,
      "1.5",
      0.000001,
      " 2 ",
      "999999999999999",
      "0",
      0,
      -1,
      "abc",
      1e-7,
      "1e5",
      1e15,
      "1000000000000000",
      true,
    ],
  },
];

async function verdicts(c: FieldCase) {
  const schema = bodyField(c.method, c.docPath ?? c.path(), c.field);
  const rows: { value: unknown; schema: boolean; server: boolean; status: number; code?: string }[] = [];
  for (const value of c.values) {
    const res = await api(c.method, c.path(), { apiKey, body: c.body(value) });
    rows.push({
      value,
      schema: schemaAccepts(schema, value),
      server: !refusedAsInvalid(res),
      ...res,
      code: res.body?.code,
    });
  }
  return rows;
}

describe("the document's request fields say what the server enforces", () => {
  it.each([...BRL_CASES, ...OTHER_CASES].map((c) => [`${c.method} ${c.docPath ?? c.path()} ${c.field}`, c] as const))(
    "%s: schema-valid values are not refused as invalid, schema-invalid ones are",
    async (_name, c) => {
      const rows = await verdicts(c);
      const disagree = rows.filter((r) => r.schema !== r.server);
      expect(disagree.map((r) => ({ value: r.value, schema: r.schema, status: r.status, code: r.code }))).toEqual([]);
      // Both sides are exercised: a case that only accepts (or only refuses) proves nothing.
      expect(rows.some((r) => r.schema)).toBe(true);
      expect(rows.some((r) => !r.schema)).toBe(true);
    },
    60_000,
  );

  it("BRL value: maximum, minimum and 2 decimals are in the schema", () => {
    const value = bodyField("POST", "/api/v1/order/create", "value");
    expect(value).toMatchObject({ type: "number", minimum: 0.01, maximum: 1_000_000, multipleOf: 0.01 });
  });

  it.each([
    ["GET", "/api/v1/orders", "cursor"],
    ["GET", "/api/v1/withdrawals", "cursor"],
    ["GET", "/api/v1/invoices", "cursor"],
    ["GET", "/api/v1/events", "after"],
  ])(
    "%s %s ?%s: a cursor the list handed out is taken; one the schema refuses is refused",
    async (method, path, name) => {
      const schema = queryParam(method, path, name);
      const first = await api(method, `${path}?limit=1`, { apiKey });
      expect(first.status).toBe(200);
      const handedOut = first.body.nextCursor as string | null;
      const candidates: string[] = ["!!!", "a b", "x".repeat(201), "abc=="];
      if (handedOut) candidates.unshift(handedOut);
      for (const cursor of candidates) {
        const res = await api(method, `${path}?${name}=${encodeURIComponent(cursor)}`, { apiKey });
        const accepted = schemaAccepts(schema, cursor);
        expect({ cursor, ok: res.status === 200 }).toEqual({ cursor, ok: accepted });
      }
      if (handedOut) expect(schemaAccepts(schema, handedOut)).toBe(true);
    },
  );

  it("POST /api/v1/order/{id}/refund: the body is optional in the document, and no body refunds what is left", async () => {
    const op = doc.paths["/api/v1/order/{id}/refund"].post.requestBody as { required: boolean };
    expect(op.required).toBe(false);
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 30 } });
    const id = pix.body.pixOrder._id as string;
    await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey });
    const res = await api("POST", `/api/v1/order/${id}/refund`, { apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.refund.value).toBe(30);
    // Required where {} is not a request the endpoint takes.
    expect((doc.paths["/api/v1/order/create"].post.requestBody as { required: boolean }).required).toBe(true);
  });

  it.each([
    ["/api/v1/invoices/{id}/cancel", () => `/api/v1/invoices/${crypto.randomUUID()}/cancel`],
    ["/api/v1/sandbox/orders/{id}/pay", () => `/api/v1/sandbox/orders/${crypto.randomUUID()}/pay`],
    [
      "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
      () => `/api/v1/webhooks/${crypto.randomUUID()}/deliveries/${crypto.randomUUID()}/redeliver`,
    ],
  ])("POST %s: an invalid Idempotency-Key is the documented 400", async (docPath, path) => {
    const op = doc.paths[docPath].post as unknown as {
      responses: Record<string, { "x-error-codes": { code: string }[] }>;
    };
    expect(op.responses["400"]["x-error-codes"].map((c) => c.code)).toContain("idempotency_key_invalid");
    const res = await api("POST", path(), { apiKey, headers: { "idempotency-key": "k".repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("idempotency_key_invalid");
  });

  it("property: for any JSON number as BRL value, the schema and POST /api/v1/order/create agree", async () => {
    const schema = bodyField("POST", "/api/v1/order/create", "value");
    const amount = fc.oneof(
      fc.integer({ min: -100, max: 100_000_100 }).map((c) => c / 100),
      fc.integer({ min: 1, max: 100_000_000 }).map((c) => c / 1000),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(5e-324, 1_000_000, 1_000_000.01, 999_999.99, 0.01, 0.009, 1e21),
    );
    await fc.assert(
      fc.asyncProperty(amount, async (value) => {
        const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value } });
        expect({ value, server: !refusedAsInvalid(res) }).toEqual({ value, server: schemaAccepts(schema, value) });
      }),
      { numRuns: 150, seed: 38 },
    );
  }, 120_000);
});
