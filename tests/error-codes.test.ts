import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { API_ENDPOINTS, openApiJson } from "@/lib/api/endpoints";
import { DOC_END, DOC_START, errorCodesMarkdown } from "@/lib/api/error-codes-doc";
import { ENDPOINTS_WITH_OWN_CODES, errorCodesOf } from "@/lib/api/error-codes";
import { errorStatuses } from "@/lib/api/openapi";
import { API_ERROR_CODES } from "@/lib/errors-api";
import { answeredErrorCodes } from "@/lib/http/endpoint";
import { api, seedMerchant } from "./helpers";
import { undocumentedErrorCodes } from "./support/documented-codes";

// Every error body carries a stable `code` (docs/api.md#error-codes); the OpenAPI document lists, per
// endpoint and status, exactly the codes it answers, and docs/api.md the same. tests/setup-env.ts holds
// every API test file to it: a code an endpoint answered that its document does not list fails the file.

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
  components: { schemas: Record<string, { enum?: string[] }> };
};
const doc = () => JSON.parse(openApiJson()) as Doc;

describe("error codes", () => {
  it("every code is snake_case and has a meaning; every endpoint with its own codes exists", () => {
    for (const [code, meaning] of Object.entries(API_ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(meaning.length).toBeGreaterThan(10);
    }
    const routes = new Set(API_ENDPOINTS.map((e) => `${e.method} ${e.path}`));
    for (const key of ENDPOINTS_WITH_OWN_CODES) expect(routes, key).toContain(key);
  });

  it("the document lists each endpoint's codes per status, with their meaning, and declares their union", () => {
    const d = doc();
    const union = new Set(d.components.schemas.ErrorCode.enum);
    for (const e of API_ENDPOINTS) {
      const responses = d.paths[e.path][e.method.toLowerCase()].responses;
      for (const status of errorStatuses(e)) {
        const r = responses[String(status)] as {
          "x-error-codes": { code: string; meaning: string }[];
          content: unknown;
        };
        const listed = r["x-error-codes"].map((c) => c.code);
        expect(listed, `${e.method} ${e.path} ${status}`).toEqual(errorCodesOf(e, status));
        for (const c of listed) expect(union).toContain(c);
        const schema = (r.content as Record<string, { schema: { properties: { code: { enum: string[] } } } }>)[
          "application/json"
        ].schema;
        expect(schema.properties.code.enum).toEqual(listed);
      }
    }
  });

  it("docs/api.md lists the same codes as the document", () => {
    const text = fs.readFileSync("docs/api.md", "utf8");
    const expected = errorCodesMarkdown(API_ENDPOINTS);
    const start = text.indexOf(DOC_START);
    const end = text.indexOf(DOC_END);
    if (process.env.UPDATE_DOCS === "1" && start >= 0 && end > start) {
      fs.writeFileSync("docs/api.md", text.slice(0, start) + expected + text.slice(end + DOC_END.length));
      return;
    }
    expect(start, "docs/api.md has no error-codes section").toBeGreaterThanOrEqual(0);
    expect(text.slice(start, end + DOC_END.length), "run with UPDATE_DOCS=1 to rewrite it").toBe(expected);
  });

  it("the check fails on a code an endpoint answered that its document does not list", () => {
    const set = answeredErrorCodes() as Set<string>;
    const fake = "POST /api/v1/order/pix-out 400 brcode_invalid";
    set.add(fake);
    try {
      expect(undocumentedErrorCodes()).toContain(fake);
      set.add("GET /api/v1/account 418 invalid_request");
      expect(undocumentedErrorCodes()).toContain("GET /api/v1/account 418 invalid_request");
    } finally {
      set.delete(fake);
      set.delete("GET /api/v1/account 418 invalid_request");
    }
    expect(undocumentedErrorCodes()).toEqual([]);
  });

  it("POST /api/v1/order/pix-out → 400 insufficient_balance, the spec's body unchanged", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 10_00 });
    const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 50_00 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: expect.stringContaining("Insufficient balance"),
      error: { details: res.body.message },
      code: "insufficient_balance",
    });
  });

  it("a validation error names each field at fault with its code", async () => {
    const { apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 1.234, payerId: 5 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: expect.stringContaining("value"),
      code: "validation_failed",
    });
    expect(res.body.fields).toEqual(
      expect.arrayContaining([
        { field: "value", code: expect.any(String), message: expect.any(String) },
        { field: "payerId", code: "invalid_type", message: expect.any(String) },
      ]),
    );
    const missing = await api("POST", "/api/v1/onchain/withdraw/initiate", { apiKey, body: { value: 10 } });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("validation_failed");
    expect(missing.body.fields).toEqual(
      expect.arrayContaining([{ field: "toAddress", code: "required", message: expect.any(String) }]),
    );
  });

  it("the service's own refusals carry their code: network, not found, malformed JSON, unauthorized, invoices", async () => {
    const { apiKey } = await seedMerchant();
    const net = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 10, asset: "USDT", network: "solana" },
    });
    expect(net.status).toBe(400);
    expect(net.body).toEqual({
      message: expect.any(String),
      supportedNetworks: ["eth", "bsc", "polygon"],
      code: "network_not_supported",
    });
    const lookup = await api("GET", "/api/v1/onchain/order/nope", { apiKey });
    expect(lookup.status).toBe(400);
    expect(lookup.body).toEqual({ success: false, error: expect.any(String), code: "not_found" });
    const order = await api("GET", "/api/v1/order/nope", { apiKey });
    expect(order.body).toEqual({ success: false, error: "Order not found", code: "not_found" });
    const bad = await api("POST", "/api/v1/webhooks", { apiKey, rawBody: "{url:" });
    expect(bad.body).toEqual({ message: "Malformed JSON body", code: "malformed_json" });
    const nokey = await api("GET", "/api/v1/account");
    expect(nokey.status).toBe(401);
    expect(nokey.body).toEqual({ message: expect.stringContaining("Missing API key"), code: "unauthorized" });
    const past = await api("POST", "/api/v1/invoices", {
      apiKey,
      body: { value: 100, dueDate: "2020-01-01", payer: { name: "Maria Souza", cpf: "52998224725" } },
    });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({ message: expect.stringMatching(/^dueDate must be today/), code: "due_date_past" });
    const unknown = await api("POST", `/api/v1/invoices/${crypto.randomUUID()}/cancel`, { apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
  });

  it("the router's own answers carry a code too", async () => {
    const none = await api("GET", "/api/v1/does/not/exist");
    expect(none.body).toEqual({ message: "Not found: GET /api/v1/does/not/exist", code: "not_found" });
    const method = await api("DELETE", "/api/v1/account");
    expect(method.status).toBe(405);
    expect(method.body.code).toBe("method_not_allowed");
  });
});
