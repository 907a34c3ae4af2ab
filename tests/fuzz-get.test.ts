import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { API_ENDPOINTS } from "@/lib/api/endpoints";
import { errorSchemaFor } from "@/lib/api/openapi";
import { createBatchEndpoint, createInvoiceEndpoint } from "@/lib/invoices/endpoints";
import { db } from "@/db";
import { createRecipientEndpoint } from "@/lib/recipients/endpoints";
import { postRecipientEntry } from "@/lib/recipients/ledger";
import { createSubscriptionEndpoint } from "@/lib/subscriptions/endpoints";
import { payCryptoPixEndpoint } from "@/lib/crypto-pix/endpoints";
import type { Endpoint } from "@/lib/http/endpoint";
import { api, seedMerchant } from "./helpers";

// Property tests over what a GET request carries besides a body: its path parameters and query
// string. Every GET endpoint of the registry is covered (a new one is picked up by being declared),
// each with generated values: real ids, ids one character off, NUL and lone surrogates (raw and
// percent-encoded), broken percent escapes, CESU-8 and overlong UTF-8, huge and negative numbers,
// 2 KiB strings, and cursors that decode to impossible positions (year 0, year 275760, Feb 31,
// 2^64). Whatever arrives, the answer is never a 5xx and always the endpoint's documented body.

const RUNS_PER_ENDPOINT = 300;
const getRoutes = API_ENDPOINTS.filter((e) => e.method === "GET");

/** Percent-encodes every UTF-16 code unit, lone surrogates included (as CESU-8 bytes, which encodeURIComponent refuses to write). */
function encodeUnits(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    } else {
      out += encodeURIComponent(s[i]);
    }
  }
  return out;
}

const b64url = (s: string) => Buffer.from(s).toString("base64url");

/** Already-encoded URL fragments a client could send. */
const rawEscapes = fc.constantFrom(
  "%",
  "%zz",
  "%E",
  "%ED%A0%80",
  "%ED%A0%80abc",
  "%C0%80",
  "%FF%FE",
  "%2F",
  "%2e%2e",
  "..",
  "%25",
  "+",
  "%20",
  "%0A",
  "%0D%0A",
);
/** What PostgreSQL cannot store, as a client would encode it: NUL, and lone surrogates (CESU-8, and %u escapes some clients write). */
const unstorable = fc.oneof(
  fc.constantFrom("%00", "a%00b", "%00%00", "%ED%A0%80", "%ED%B0%80abc", "%ud800", "%5Cu0000"),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\u0000", "\ud800", "\udc00"), fc.string({ maxLength: 10 }))
    .map((p) => encodeUnits(p.join(""))),
);
const numbers = fc.oneof(
  fc.constantFrom(
    "0",
    "-1",
    "-0",
    "1e400",
    "1e308",
    "5e-324",
    "NaN",
    "Infinity",
    "18446744073709551616",
    "9007199254740993",
    "99999999999999999999999999",
    "0x10",
    "1.5",
    " 20 ",
    "020",
  ),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
);
const texts = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\u0000", "\ud800", "\udc00"), fc.string({ maxLength: 10 }))
    .map((p) => p.join("")),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800abc",
    "\udfff\ud800",
    "\u202e",
    "null",
    "undefined",
    "[]",
    "{}",
    "PENDING",
    "COMPLETED",
    "pix",
    "failed",
  ),
  fc.integer({ min: 0, max: 2048 }).map((n) => "x".repeat(n)),
);
/** ISO-like timestamps, most of them impossible or outside PostgreSQL's range. */
const instants = fc.oneof(
  fc.constantFrom(
    "0000-01-01T00:00:00.000Z",
    "-000001-01-01T00:00:00.000Z",
    "+275760-09-13T00:00:00.000Z",
    "+099999-01-01T00:00:00.000Z",
    "9999-12-31T23:59:59.999Z",
    "1969-12-31T23:59:59.999Z",
    "2024-02-31T00:00:00.000Z",
    "2024-02-29T24:00:00.000Z",
    "2024-01-01",
    "",
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.integer().map(String),
);
const ids = fc.oneof(
  fc.uuid().map(String),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constant("00000000-0000-0000-0000-000000000000"),
  texts,
);
/** Cursors in each of the API's shapes, with positions no page could have. */
const cursors = fc.oneof(
  fc.record({ at: fc.oneof(instants, fc.integer(), fc.constant(null)), id: ids }).map((c) => b64url(JSON.stringify(c))),
  fc.oneof(numbers.map(Number), numbers, fc.double(), fc.constant(null)).map((p) => b64url(JSON.stringify({ p }))),
  texts.map(b64url),
  fc.base64String({ maxLength: 300 }),
);

/** One value, already encoded for a URL. */
const urlValue = fc.oneof(
  { weight: 3, arbitrary: unstorable },
  texts.map(encodeUnits),
  rawEscapes,
  numbers.map(encodeURIComponent),
  cursors.map(encodeURIComponent),
  instants.map(encodeURIComponent),
);

const GENERIC_QUERY_NAMES = ["cursor", "after", "limit", "q", "status", "type", "from", "to", "page", "id"];
/** Values some query parameter accepts; each parameter keeps those its own schema accepts. */
const CANDIDATES = [
  "1",
  "20",
  "100",
  "PENDING",
  "COMPLETED",
  "CANCELLED",
  "FAILED",
  "REFUND",
  "PARTIAL_ORDER",
  "pix",
  "exchange",
  "lightning",
  "onchain",
  "crypto_pix",
];
CANDIDATES.push("pending", "delivered", "failed");

/**
 * Query strings for one endpoint: each parameter it reads absent or valid, then at most one of them
 * made wild, so most requests carry one bad value among good ones and reach the handler; plus the
 * odd parameter it does not read.
 */
function queries(op: Endpoint, cursors: string[]) {
  const shape = ((op.query as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {}) as Record<
    string,
    z.ZodType
  >;
  const names = Object.keys(shape);
  const own = names.map((name) => {
    const valid = /cursor|after/.test(name) ? cursors : CANDIDATES.filter((v) => shape[name].safeParse(v).success);
    return valid.length ? fc.option(fc.constantFrom(...valid).map(encodeURIComponent), { freq: 2 }) : fc.constant(null);
  });
  const others = fc.array(
    fc.tuple(fc.oneof(fc.constantFrom(...GENERIC_QUERY_NAMES), texts.map(encodeUnits), rawEscapes), urlValue),
    { maxLength: 2 },
  );
  return fc
    .tuple(fc.tuple(...own), fc.nat({ max: names.length }), urlValue, others)
    .map(([good, wildAt, wild, extra]) => {
      const entries: [string, string][] = [];
      names.forEach((name, i) => {
        const value = i === wildAt ? wild : good[i];
        if (value !== null) entries.push([name, value]);
      });
      return [...entries, ...extra];
    });
}

describe("fuzz: path parameters and query strings of every GET endpoint", () => {
  let apiKey: string;
  /** Webhook paths use a merchant with no orders, so the endpoint registered here never receives an event. */
  let hooksKey: string;
  const real: Record<string, string[]> = {};
  const cursors = new Map<Endpoint, string[]>();

  beforeAll(async () => {
    const seeded = await seedMerchant({ balanceCentavos: 1_000_000_00, accountType: "business" });
    ({ apiKey } = seeded);
    const { merchant } = seeded;
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
    const payout = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 1000, pixKey: "52998224725" } });
    const hook = await api("POST", "/api/v1/webhooks", { apiKey: hooksKey, body: { url: "http://127.0.0.1:9/never" } });
    real.id = [
      pix.body.pixOrder._id,
      pix.body.pixOrder.paymentLinkId,
      deposit.body.order.paymentLinkId,
      cryptoPix.body.data.payCryptoPixId,
      hook.body.webhook.id,
    ];
    real.id.push(payout.body.id);
    // An invoice and a batch of them, for /api/v1/invoices/{id} and /api/v1/invoices/batches/{id}.
    const invoice = await api("POST", "/api/v1/invoices", { apiKey, body: createInvoiceEndpoint.docs.requestExample });
    const batch = await api("POST", "/api/v1/invoices/batches", {
      apiKey,
      body: createBatchEndpoint.docs.requestExample,
    });
    real.id.push(invoice.body.invoice.id, batch.body.batch.id);
    // A subscription, for /api/v1/subscriptions/{id}.
    const subscription = await api("POST", "/api/v1/subscriptions", {
      apiKey,
      body: createSubscriptionEndpoint.docs.requestExample,
    });
    real.id.push(subscription.body.subscription.id);
    // A recipient, for /api/v1/recipients/{id} and its statement.
    const recipient = await api("POST", "/api/v1/recipients", {
      apiKey,
      body: createRecipientEndpoint.docs.requestExample,
    });
    real.id.push(recipient.body.recipient.id);
    // A payout of it, for /api/v1/recipients/{id}/payouts/{payoutId}: its balance credited as a split part is.
    await db().transaction((tx) =>
      postRecipientEntry(tx, {
        merchantId: merchant.id,
        recipientId: recipient.body.recipient.id,
        kind: "split_credit",
        amountCentavos: 5_000,
        refType: "order_split",
        refId: randomUUID(),
      }),
    );
    const recipientPayout = await api("POST", `/api/v1/recipients/${recipient.body.recipient.id}/payouts`, {
      apiKey,
      body: { value: 10 },
    });
    real.payoutId = [recipientPayout.body.payout.id];
    // A payment link, for /api/v1/payment-links/{id} and its public page by slug.
    const link = await api("POST", "/api/v1/payment-links", {
      apiKey,
      body: { title: "Fuzz", price: 1, rails: ["pix"] },
    });
    real.id.push(link.body.paymentLink.id);
    real.slug = [link.body.paymentLink.url.split("/").at(-1)];
    real.paymentLinkId = [pix.body.pixOrder.paymentLinkId, deposit.body.order.paymentLinkId];
    expect(payout.status).toBeLessThan(300);
    // Each listing's own next-page cursor, so a valid cursor can sit beside a wild `limit`.
    for (const op of getRoutes.filter((e) => e.query && !e.path.includes("{"))) {
      const page = await api("GET", `${op.path}?limit=1`, { apiKey });
      cursors.set(op, page.body.nextCursor ? [page.body.nextCursor] : []);
    }
    for (const list of Object.values(real)) expect(list.every(Boolean)).toBe(true);
    expect(cursors.get(getRoutes.find((e) => e.path === "/api/v1/orders")!)).toHaveLength(1);
  });

  const segment = (name: string) =>
    fc.oneof(
      fc.constantFrom(...(real[name] ?? real.id)).map(encodeURIComponent),
      urlValue.filter((v) => !/^(\.|%2e){0,2}$/i.test(v)),
    );

  it.each(getRoutes.map((op, i) => [`GET ${op.path}`, op, i] as const))(
    "%s: never a 5xx, always the documented body, never a stack trace",
    async (_name, op, index) => {
      const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const headerNames = (op.docs.headers ?? []).map((h) => h.name);
      const statuses: Record<number, number> = {};
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(...names.map((n) => segment(n))),
          queries(op, cursors.get(op) ?? []),
          fc.option(
            fc.tuple(
              fc.constantFrom(...(headerNames.length ? headerNames : ["x-unused"])),
              fc.string({
                unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
                maxLength: 60,
              }),
            ),
          ),
          async (segments, query, header) => {
            let i = 0;
            const path = op.path.replace(/\{[^}]+\}/g, () => segments[i++]);
            const qs = query.map(([k, v]) => `${k}=${v}`).join("&");
            const url = qs ? `${path}?${qs}` : path;
            const headers = header ? { [header[0]]: header[1] } : {};
            const key = op.caller.ownerId ? (op.path.startsWith("/api/v1/webhooks") ? hooksKey : apiKey) : undefined;
            const res = await api("GET", url, { apiKey: key, headers });
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
            const shown = `${res.status} ${text.slice(0, 300)} ← GET ${url.slice(0, 300)} ${JSON.stringify(headers)}`;
            expect(res.status, shown).toBeLessThan(500);
            expect(text, shown).not.toMatch(/\n\s+at |node_modules|\.tsx?:\d+|TypeError|RangeError|SyntaxError/);
            if (res.status >= 400 && res.status !== 405) {
              expect(res.headers.get("content-type"), shown).toContain("application/json");
              expect(errorSchemaFor(op, res.status).safeParse(res.body).error, shown).toBeUndefined();
            } else if (res.status < 300 && "schema" in op.response) {
              expect(op.response.schema.safeParse(res.body).error, shown).toBeUndefined();
            }
          },
        ),
        { numRuns: RUNS_PER_ENDPOINT, seed: 20261124 + index, endOnFailure: true },
      );
      // Some of what was sent must get past validation: a fuzzer that only meets the first check proves little.
      expect(Object.keys(statuses).length, JSON.stringify(statuses)).toBeGreaterThan(names.length || op.query ? 1 : 0);
    },
    120_000,
  );
});
