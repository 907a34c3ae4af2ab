import { randomUUID } from "node:crypto";
import { Validator } from "@seriousme/openapi-schema-validator";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { db } from "@/db";
import { recipients } from "@/db/schema";
import { operator } from "@/lib/identity/api-keys/callers";
import { postRecipientEntry } from "@/lib/recipients/ledger";
import { API_ENDPOINTS } from "@/lib/api/endpoints";
import { buildOpenApiDocument, errorExampleFor, errorSchemaFor, errorStatuses } from "@/lib/api/openapi";
import { payCryptoPixEndpoint } from "@/lib/crypto-pix/endpoints";
import { createBatchEndpoint, createInvoiceEndpoint } from "@/lib/invoices/endpoints";
import { createPaymentLinkEndpoint } from "@/lib/payment-links/endpoints";
import { setClockForTests } from "@/lib/clock";
import { runSubscriptionEngine } from "@/lib/subscriptions/engine";
import { createSubscriptionEndpoint } from "@/lib/subscriptions/endpoints";
import { MAX_BODY_BYTES } from "@/lib/http/body";
import type { Endpoint } from "@/lib/http/endpoint";
import { api, seedMerchant, type CallResult } from "./helpers";

// The OpenAPI document against the code: every route documented, the document valid OpenAPI 3.1,
// every example valid against its own schema, and every request example sent through the real
// handler with the real answer parsed by the documented response schema (strict: an undocumented
// field fails).

const doc = buildOpenApiDocument(API_ENDPOINTS);
const ADMIN = () => process.env.ADMIN_TOKEN!;

const entries = API_ENDPOINTS.map((e) => ({ method: e.method, path: e.path, op: e }));
const withSchema = (op: Endpoint) => ("schema" in op.response ? op.response : null);
const isPublic = (op: Endpoint) => op.caller.docs.security.length === 0;

describe("GET /api/v1/openapi.json", () => {
  it("documents every endpoint, exactly as declared, with {param} paths", () => {
    for (const e of API_ENDPOINTS) {
      expect(e.path).toMatch(/^\/api\/v1\/[a-z0-9/{}.-]+$/i);
      expect(doc.paths[e.path]?.[e.method.toLowerCase()], `${e.method} ${e.path}`).toBeDefined();
    }
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(API_ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
  });

  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("declares both API key forms and uses them on every merchant endpoint", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.bearerHeader).toMatchObject({ type: "apiKey", in: "header", name: "Bearer" });
    for (const { method, path, op } of entries) {
      const security = doc.paths[path][method.toLowerCase()].security;
      if (op.caller.ownerId) expect(security).toEqual([{ bearerAuth: [op.scope] }, { bearerHeader: [op.scope] }]);
      if (isPublic(op)) expect(security).toEqual([]);
    }
  });

  it("every merchant endpoint declares its API key scope: read for a GET, and a 403 naming it in its own error body", () => {
    const writes: Record<string, string> = {
      "POST /api/v1/onchain/deposit": "payments",
      "POST /api/v1/order/create/pix": "payments",
      "POST /api/v1/order/create": "payments",
      "POST /api/v1/order/create/lightning": "payments",
      "POST /api/v1/crypto-pix/onchain/pay": "payments",
      "POST /api/v1/sandbox/orders/{id}/pay": "payments",
      "POST /api/v1/sandbox/invoices/{id}/pay": "payments",
      "POST /api/v1/invoices": "payments",
      "POST /api/v1/invoices/{id}/cancel": "payments",
      "POST /api/v1/invoices/batches": "payments",
      "POST /api/v1/subscriptions": "payments",
      "PATCH /api/v1/subscriptions/{id}": "payments",
      "POST /api/v1/subscriptions/{id}/cancel": "payments",
      "POST /api/v1/sandbox/subscriptions/{id}/authorize": "payments",
      "POST /api/v1/sandbox/subscriptions/{id}/payer-cancel": "payments",
      "POST /api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/pay": "payments",
      "POST /api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/fail": "payments",
      "POST /api/v1/payment-links": "payments",
      "PATCH /api/v1/payment-links/{id}": "payments",
      "POST /api/v1/payment-links/{id}/pause": "payments",
      "POST /api/v1/payment-links/{id}/resume": "payments",
      "POST /api/v1/recipients": "payments",
      // What the payer's pages show of a sale.
      "PATCH /api/v1/account/settings": "payments",
      // A new payout key and a payout decide where money goes, as a withdrawal does.
      "PATCH /api/v1/recipients/{id}": "withdrawals",
      "POST /api/v1/recipients/{id}/payouts": "withdrawals",
      "POST /api/v1/sandbox/onchain/{paymentLinkId}/transfer": "payments",
      "POST /api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer": "payments",
      "POST /api/v1/webhooks": "payments",
      "DELETE /api/v1/webhooks/{id}": "payments",
      "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": "payments",
      "POST /api/v1/order/{id}/refund": "refunds",
      "POST /api/v1/order/pix-out": "withdrawals",
      "POST /api/v1/onchain/withdraw/initiate": "withdrawals",
    };
    const keyed = entries.filter(({ op }) => op.caller.ownerId !== undefined);
    expect(keyed.length).toBeGreaterThan(20);
    for (const { method, path, op } of keyed) {
      const where = `${method} ${path}`;
      expect(op.scope, where).toBe(method === "GET" ? "read" : writes[where]);
      const forbidden = (
        doc.paths[path][method.toLowerCase()].responses as Record<
          string,
          { content: { "application/json": { example: unknown } } }
        >
      )["403"];
      expect(JSON.stringify(forbidden.content["application/json"].example), where).toContain(`the ${op.scope} scope`);
    }
    // Operators and payers need no scope.
    for (const { op } of entries.filter(({ op }) => op.caller.ownerId === undefined)) expect(op.scope).toBeUndefined();
  });

  it("documents BRL value on the input side: the JSON number the client sends", () => {
    const body = doc.paths["/api/v1/order/create/pix"].post.requestBody as {
      content: { "application/json": { schema: { properties: Record<string, { type: string }>; required: string[] } } };
    };
    const schema = body.content["application/json"].schema;
    expect(schema.properties.value.type).toBe("number");
    expect(schema.required).toContain("value");
    const deposit = doc.paths["/api/v1/onchain/deposit"].post.requestBody as typeof body;
    // The service checks network and asset itself (so the spec's supportedNetworks body can be sent), yet clients must send them.
    expect([...deposit.content["application/json"].schema.required].sort()).toEqual(["asset", "network", "value"]);
  });

  it("documents every error status with the endpoint's own error body", () => {
    const shapes: Record<string, unknown> = {
      "POST /api/v1/order/create 400": { success: false, error: expect.any(String) },
      "GET /api/v1/onchain/order/{id} 400": { success: false, error: expect.any(String) },
      "POST /api/v1/onchain/withdraw/initiate 400": { message: expect.any(String), error: expect.any(String) },
      "POST /api/v1/onchain/withdraw/initiate 401": { message: expect.any(String) },
      "POST /api/v1/onchain/withdraw/initiate 500": { message: expect.any(String), success: false },
      "POST /api/v1/order/pix-out 400": { message: expect.any(String), error: { details: expect.any(String) } },
      "POST /api/v1/order/pix-out 500": { message: expect.any(String), error: { details: expect.any(String) } },
      "POST /api/v1/onchain/deposit 400": { message: expect.any(String), supportedNetworks: ["eth", "bsc", "polygon"] },
      "POST /api/v1/order/create/pix 400": {
        message: expect.any(String),
        details: { pixKey: null, identifier: expect.any(String) },
      },
    };
    for (const [key, shape] of Object.entries(shapes)) {
      const [method, path, status] = key.split(" ");
      const res = doc.paths[path][method.toLowerCase()].responses as Record<
        string,
        { content: { "application/json": { example: unknown } } }
      >;
      // The spec's fields exactly, plus the added machine-readable ones (`code`, and `fields` on a validation error).
      const {
        code,
        fields: _fields,
        ...spec
      } = res[status].content["application/json"].example as Record<string, unknown>;
      expect(spec, key).toEqual(shape);
      expect(code, key).toEqual(expect.any(String));
    }
    for (const { method, path, op } of entries) {
      const responses = doc.paths[path][method.toLowerCase()].responses as Record<string, unknown>;
      for (const status of errorStatuses(op))
        expect(responses[String(status)], `${method} ${path} ${status}`).toBeDefined();
      if (!isPublic(op)) expect(responses["401"]).toBeDefined();
    }
  });

  it("every example validates against its own schema", () => {
    for (const { method, path, op } of entries) {
      const where = `${method} ${path}`;
      if (op.body) expect(op.body.safeParse(op.docs.requestExample).error, `${where} request`).toBeUndefined();
      const s = withSchema(op);
      if (s) expect(s.schema.safeParse(s.example).error, `${where} response`).toBeUndefined();
      for (const status of errorStatuses(op)) {
        expect(
          errorSchemaFor(op, status).safeParse(errorExampleFor(op, status)).error,
          `${where} ${status}`,
        ).toBeUndefined();
      }
    }
  });

  it("is served as JSON without authentication, the same document each time", async () => {
    const a = await api("GET", "/api/v1/openapi.json");
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toContain("application/json");
    expect(a.body.openapi).toBe("3.1.0");
    expect(a.body).toEqual(JSON.parse(JSON.stringify(doc)));
    const b = await api("GET", "/api/v1/openapi.json");
    expect(b.body).toEqual(a.body);
  });
});

describe("documented examples against the real handlers", () => {
  let apiKey: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ apiKey } = await seedMerchant({ balanceCentavos: 100_000_00 }));
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 12.34 } });
    const deposit = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 100.5, asset: "USDT", network: "polygon" },
    });
    const cryptoPix = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey,
      body: payCryptoPixEndpoint.docs.requestExample,
    });
    const withdrawal = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } });
    const exchange = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 10 } });
    const merchant = await api("POST", "/api/v1/admin/merchants", {
      apiKey: ADMIN(),
      body: { companyName: "Loja para PATCH" },
    });
    ids.order = pix.body.pixOrder.paymentLinkId;
    ids.deposit = deposit.body.order.paymentLinkId;
    ids.cryptoPix = cryptoPix.body.data.payCryptoPixId;
    ids.withdrawal = withdrawal.body.id;
    ids.exchange = exchange.body.order.paymentLinkId;
    ids.merchant = merchant.body.merchant.id;
    // A paid order for the refund's documented request.
    const refundable = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 12.34 } });
    await api("POST", `/api/v1/sandbox/orders/${refundable.body.pixOrder._id}/pay`, { apiKey });
    ids.refundable = refundable.body.pixOrder._id;
    // A webhook endpoint with one delivery: an order paid after it was registered.
    const hook = await api("POST", "/api/v1/webhooks", {
      apiKey,
      body: { url: "http://127.0.0.1:9/hooks", description: "documented examples" },
    });
    ids.webhook = hook.body.webhook.id;
    const paid = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 3 } });
    await api("POST", `/api/v1/sandbox/orders/${paid.body.order.id}/pay`, { apiKey });
    const deliveries = await api("GET", `/api/v1/webhooks/${ids.webhook}/deliveries`, { apiKey });
    ids.delivery = deliveries.body.deliveries[0].id;
    // Invoices: one to look up, one to cancel, one to pay, and a batch.
    const invoiceBody = createInvoiceEndpoint.docs.requestExample;
    for (const name of ["invoice", "invoiceToCancel", "invoiceToPay"])
      ids[name] = (await api("POST", "/api/v1/invoices", { apiKey, body: invoiceBody })).body.invoice.id;
    ids.batch = (
      await api("POST", "/api/v1/invoices/batches", { apiKey, body: createBatchEndpoint.docs.requestExample })
    ).body.batch.id;
    // Subscriptions: one to look up, cancel, authorise and have the payer cancel; two with cycle 1
    // scheduled (the engine run on a day inside its window), to pay and to fail.
    const subscriptionBody = createSubscriptionEndpoint.docs.requestExample as { firstDate: string };
    const subscribe = async (extra: Record<string, unknown> = {}) =>
      (await api("POST", "/api/v1/subscriptions", { apiKey, body: { ...subscriptionBody, ...extra } })).body
        .subscription.id;
    // A VARIABLE one to look up and change the amount of (a FIXED amount cannot change).
    ids.subscription = await subscribe({ amount: { type: "VARIABLE", value: 89.9, minimum: 50 } });
    for (const name of ["subscriptionToCancel", "subscriptionToAuthorise", "subscriptionToEnd"])
      ids[name] = await subscribe();
    for (const name of ["subscriptionToPay", "subscriptionToFail"]) {
      ids[name] = await subscribe();
      await api("POST", `/api/v1/sandbox/subscriptions/${ids[name]}/authorize`, { apiKey });
    }
    // Five days before the first due date: inside the window (10 to 2 days before).
    setClockForTests(new Date(new Date(`${subscriptionBody.firstDate}T12:00:00-03:00`).getTime() - 5 * 86_400_000));
    await runSubscriptionEngine();
    setClockForTests(undefined);
    // A payment link to read, edit, pause and buy from.
    const link = (
      await api("POST", "/api/v1/payment-links", { apiKey, body: createPaymentLinkEndpoint.docs.requestExample })
    ).body.paymentLink;
    ids.paymentLink = link.id;
    ids.paymentLinkSlug = link.url.split("/").at(-1);
    // Recipients: one to read and edit, one with a balance to pay out (a split part credited).
    const recipient = async (document: string, pixKey: string) =>
      (await api("POST", "/api/v1/recipients", { apiKey, body: { name: "Ana", document, pixKey } })).body.recipient.id;
    ids.recipient = await recipient("11144477735", "ana@example.com");
    ids.recipientToPay = await recipient("39053344705", "ana.paga@example.com");
    const [{ merchantId }] = await db()
      .select({ merchantId: recipients.merchantId })
      .from(recipients)
      .where(eq(recipients.id, ids.recipientToPay));
    await db().transaction((tx) =>
      postRecipientEntry(tx, {
        merchantId,
        recipientId: ids.recipientToPay,
        kind: "split_credit",
        amountCentavos: 10_000,
        refType: "order_split",
        refId: randomUUID(),
      }),
    );
    // One payout of it, to read back by id.
    ids.recipientPayout = (
      await api("POST", `/api/v1/recipients/${ids.recipientToPay}/payouts`, { apiKey, body: { value: 10 } })
    ).body.payout.id;
  });

  /** Path params for each route, from the objects made above. */
  function pathFor(path: string): string {
    const values: Record<string, string> = {
      "/api/v1/onchain/order/{id}": ids.deposit,
      "/api/v1/order/{id}": ids.order,
      "/api/v1/order/{id}/refund": ids.refundable,
      "/api/v1/crypto-pix/order/{id}": ids.cryptoPix,
      "/api/v1/withdrawals/{id}": ids.withdrawal,
      "/api/v1/admin/merchants/{id}": ids.merchant,
      "/api/v1/sandbox/orders/{id}/pay": ids.order,
      "/api/v1/sandbox/invoices/{id}/pay": ids.invoiceToPay,
      "/api/v1/invoices/{id}": ids.invoice,
      "/api/v1/invoices/{id}/cancel": ids.invoiceToCancel,
      "/api/v1/invoices/batches/{id}": ids.batch,
      "/api/v1/subscriptions/{id}": ids.subscription,
      "/api/v1/subscriptions/{id}/cancel": ids.subscriptionToCancel,
      "/api/v1/sandbox/subscriptions/{id}/authorize": ids.subscriptionToAuthorise,
      "/api/v1/sandbox/subscriptions/{id}/payer-cancel": ids.subscriptionToEnd,
      "/api/v1/recipients/{id}": ids.recipient,
      "/api/v1/recipients/{id}/statement": ids.recipient,
      "/api/v1/recipients/{id}/payouts": ids.recipientToPay,
      "/api/v1/recipients/{id}/payouts/{payoutId}": ids.recipientToPay,
      "/api/v1/payment-links/{id}": ids.paymentLink,
      "/api/v1/payment-links/{id}/pause": ids.paymentLink,
      "/api/v1/payment-links/{id}/resume": ids.paymentLink,
      "/api/v1/payment-links/{id}/sales": ids.paymentLink,
      "/api/v1/public/payment-links/{slug}": ids.paymentLinkSlug,
      "/api/v1/public/payment-links/{slug}/orders": ids.paymentLinkSlug,
      "/api/v1/public/payment-links/{slug}/qr.png": ids.paymentLinkSlug,
      "/api/v1/sandbox/onchain/{paymentLinkId}/transfer": ids.deposit,
      "/api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer": ids.cryptoPix,
      "/api/v1/public/payments/{paymentLinkId}": ids.exchange,
      "/api/v1/public/payments/{paymentLinkId}/qr.png": ids.exchange,
      "/api/v1/public/crypto-pix/{payCryptoPixId}": ids.cryptoPix,
      "/api/v1/webhooks/{id}": ids.webhook,
      "/api/v1/webhooks/{id}/deliveries": ids.webhook,
      "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": ids.webhook,
      "/api/v1/providers/pix/{token}/pix": process.env.PIX_WEBHOOK_TOKEN!,
      "/api/v1/providers/pix/{token}": process.env.PIX_WEBHOOK_TOKEN!,
      "/api/v1/providers/pix/{token}/rec": process.env.PIX_WEBHOOK_TOKEN!,
      "/api/v1/providers/pix/{token}/cobr": process.env.PIX_WEBHOOK_TOKEN!,
    };
    const cycles: Record<string, string> = {
      "/api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/pay": ids.subscriptionToPay,
      "/api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/fail": ids.subscriptionToFail,
    };
    if (cycles[path]) return path.replace("{id}", cycles[path]).replace("{cycle}", "1");
    return path.replace(
      /\{([^}]+)\}/g,
      (_, name: string) =>
        (name === "deliveryId" ? ids.delivery : name === "payoutId" ? ids.recipientPayout : values[path]) ??
        "00000000-0000-4000-8000-000000000000",
    );
  }

  const keyFor = (op: Endpoint) => (op.caller === operator ? ADMIN() : op.caller.ownerId ? apiKey : undefined);

  // Every endpoint answers its documented request with its documented status; DELETE /webhooks/{id}
  // (204, no body) runs last, so the endpoint is still there for the others.
  // Provider callbacks that do not exist in this configuration (a live provider's) are tested with
  // their provider's test server instead (tests/live-*.test.ts).
  const available = entries.filter((e) => !e.op.unavailable?.());
  const documented = [...available].sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
  it.each(documented.map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s: the documented request gives the documented status and a body its schema accepts",
    async (_name, { method, path, op }) => {
      const res: CallResult = await api(method, pathFor(path), { apiKey: keyFor(op), body: op.docs.requestExample });
      expect(res.status, JSON.stringify(res.body)).toBe(op.response.status);
      if ("contentType" in op.response && op.response.contentType) {
        expect(res.headers.get("content-type")).toBe(op.response.contentType);
        return;
      }
      const s = withSchema(op);
      if (s) {
        const parsed = (s.schema as z.ZodType).safeParse(res.body);
        expect(parsed.error, JSON.stringify(res.body)).toBeUndefined();
      } else {
        expect(res.body).toBeNull();
      }
    },
  );

  it.each(entries.filter((e) => !isPublic(e.op)).map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s without a key: 401 in the documented error body",
    async (_name, { method, path, op }) => {
      const res = await api(method, pathFor(path), { body: op.docs.requestExample });
      expect(res.status).toBe(401);
      expect(errorSchemaFor(op, 401).safeParse(res.body).error, JSON.stringify(res.body)).toBeUndefined();
    },
  );

  it.each(available.filter((e) => e.op.body).map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s: 400 for a wrong body and 413 for a huge one, in the documented error body",
    async (_name, { method, path, op }) => {
      const bad = await api(method, pathFor(path), { apiKey: keyFor(op), body: [] });
      expect(bad.status).toBe(400);
      expect(errorSchemaFor(op, 400).safeParse(bad.body).error, JSON.stringify(bad.body)).toBeUndefined();
      const huge = await api(method, pathFor(path), {
        apiKey: keyFor(op),
        rawBody: JSON.stringify({ pad: "x".repeat(MAX_BODY_BYTES) }),
      });
      expect(huge.status).toBe(413);
      expect(errorSchemaFor(op, 413).safeParse(huge.body).error, JSON.stringify(huge.body)).toBeUndefined();
    },
  );

  it.each(
    entries
      .filter((e) => e.op.docs.errors?.includes(404) || e.op.docs.errors?.includes(400))
      .filter((e) => /\{/.test(e.path))
      .map((e) => [`${e.method} ${e.path}`, e] as const),
  )("%s with an unknown id: the documented not-found status and body", async (_name, { method, path, op }) => {
    const res = await api(method, path.replace(/\{[^}]+\}/g, "unknownId1234567890123"), {
      apiKey: keyFor(op),
      body: op.docs.requestExample,
    });
    const status = op.docs.errors!.includes(404) ? 404 : 400;
    expect(res.status).toBe(status);
    expect(errorSchemaFor(op, status).safeParse(res.body).error, JSON.stringify(res.body)).toBeUndefined();
  });
});
