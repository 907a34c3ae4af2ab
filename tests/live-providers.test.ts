import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import bolt11 from "bolt11";
import { resolveToken } from "@/lib/chain/networks";
import { resetEnvForTests } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { providers } from "@/lib/providers";
import { RailNotEnabled, railStates } from "@/lib/providers/rails";
import { openNodeLightning } from "@/lib/providers/lightning/opennode";
import { liveRates, resetRatesCacheForTests } from "@/lib/providers/rates/live";
import { OPENNODE_KEY, startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { saveEnv } from "./support/env";

// The live rate and Lightning adapters against a local HTTP server that speaks CoinGecko's
// simple/price and OpenNode's charge API; and live mode's provider check.

let server: ProviderServer;
const savedEnv = saveEnv();

function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvForTests();
}

beforeAll(async () => {
  server = await startProviderServer();
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  Object.assign(server.state, { updatedAt: Math.floor(Date.now() / 1000), failNext: 0, status: null, delayMs: 0 });
  Object.assign(server.opennode.state, { invoiceSatsDelta: 0, limitedUntil: 0 });
  server.requests.length = 0;
  resetRatesCacheForTests();
  setEnv({
    RATES_URL: `${server.url}/api/v3`,
    RATES_API_KEY: "cg-key",
    RATES_CACHE_SECONDS: "30",
    RATES_MAX_AGE_SECONDS: "600",
    RATES_TIMEOUT_MS: "300",
    LIGHTNING_API_URL: server.url,
    LIGHTNING_API_KEY: OPENNODE_KEY,
    LIGHTNING_TIMEOUT_MS: "500",
  });
});

afterEach(() => {
  savedEnv.restore();
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: unknown) => err as Error,
  );

describe("live rates (CoinGecko-compatible simple/price)", () => {
  it("quotes every asset in BRL from one cached request, with the source and the quote's own time", async () => {
    const usdt = await liveRates.quote("USDT");
    expect(usdt).toEqual({
      rate: "5.4321",
      source: new URL(server.url).host,
      at: new Date(server.state.updatedAt * 1000),
    });
    expect((await liveRates.quote("BTC")).rate).toBe("612345.67");
    expect((await liveRates.quote("POL")).rate).toBe("1.23");
    expect(server.requests).toHaveLength(1);
    const req = new URL(server.requests[0].path, server.url);
    expect(req.pathname).toBe("/api/v3/simple/price");
    expect(req.searchParams.get("vs_currencies")).toBe("brl");
    expect(req.searchParams.get("ids")?.split(",")).toEqual(
      expect.arrayContaining(["tether", "usd-coin", "dai", "bitcoin"]),
    );
    expect(server.requests[0].headers["x-cg-demo-api-key"]).toBe("cg-key");
  });

  it("asks again once RATES_CACHE_SECONDS has passed", async () => {
    setEnv({ RATES_CACHE_SECONDS: "0" });
    await liveRates.quote("USDT");
    server.state.prices.tether = 5.5;
    expect((await liveRates.quote("USDT")).rate).toBe("5.5");
    expect(server.requests).toHaveLength(2);
  });

  it("refuses a quote older than RATES_MAX_AGE_SECONDS", async () => {
    server.state.updatedAt = Math.floor(Date.now() / 1000) - 700;
    const err = await failure(liveRates.quote("USDT"));
    expect(err).toBeInstanceOf(UpstreamUnavailable);
    expect(err?.message).toMatch(/USDT is 70\d s old, older than RATES_MAX_AGE_SECONDS \(600 s\)/);
    expect((err as UpstreamUnavailable).status).toBe(500);
  });

  it("retries a 503, and reports a source that keeps failing or never answers", async () => {
    server.state.failNext = 2;
    expect((await liveRates.quote("DAI")).rate).toBe("5.42");
    expect(server.requests).toHaveLength(3);

    resetRatesCacheForTests();
    server.state.status = 500;
    const down = await failure(liveRates.quote("DAI"));
    expect(down).toBeInstanceOf(UpstreamUnavailable);
    expect(down?.message).toBe("Rate source unavailable: HTTP 500: status 500 from the test server");

    server.state.status = null;
    server.state.delayMs = 1000;
    const slow = await failure(liveRates.quote("DAI"));
    expect(slow?.message).toBe("Rate source unavailable: no answer within 300 ms");
  });

  it("keeps serving the last answer while a refresh fails, within the age limit", async () => {
    setEnv({ RATES_CACHE_SECONDS: "0" });
    await liveRates.quote("USDC");
    server.state.status = 502;
    expect((await liveRates.quote("USDC")).rate).toBe("5.43");
  });

  it("names a symbol the source does not quote", async () => {
    delete server.state.prices["binance-usd"];
    const err = await failure(liveRates.quote("BUSD"));
    expect(err?.message).toBe("Rate source has no BRL quote for BUSD");
    server.state.prices["binance-usd"] = 5.41;
  });
});

describe("live Lightning (OpenNode charge API)", () => {
  const args = {
    satoshis: 8819,
    fiatCentavos: 5400,
    description: "Loja - R$ 54.00",
    expirySeconds: 900,
    name: "Maria",
    paymentLinkId: "kHdemChSOi0AqLf1ogibBn",
  };
  const reads = (id: string, prefix: string) =>
    server.requests.filter((r) => r.method === "GET" && r.path === `${prefix}/${id}`).length;

  it("creates a charge for the exact satoshis and hands out its BOLT11 invoice", async () => {
    const invoice = await openNodeLightning.createInvoice(args);
    const [req] = server.requests;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/charges");
    expect(req.headers.authorization).toBe(OPENNODE_KEY);
    expect(req.body).toMatchObject({
      amount: 8819,
      description: args.description,
      ttl: 15,
      auto_settle: false,
      customer_name: "Maria",
      order_id: args.paymentLinkId,
    });
    const decoded = bolt11.decode(invoice.invoice);
    expect(decoded.satoshis).toBe(8819);
    expect(invoice.paymentHash).toBe(decoded.tags.find((t) => t.tagName === "payment_hash")?.data);
    expect(server.charges.has(invoice.id)).toBe(true);
    expect(invoice.expiresAt.getTime() - invoice.createdAt.getTime()).toBe(900_000);
  });

  it("reads the charge back with the SDK's v2 read, never the legacy v1 one: unpaid, then paid with the provider's settlement time", async () => {
    const invoice = await openNodeLightning.createInvoice(args);
    expect(await openNodeLightning.readInvoice!(invoice.id)).toMatchObject({
      id: invoice.id,
      status: "unpaid",
      paid: false,
      paidAt: null,
      orderRef: args.paymentLinkId,
    });
    const settled = new Date(Math.floor(Date.now() / 1000) * 1000);
    await server.payCharge(invoice.id, { at: settled, notify: false });
    expect(await openNodeLightning.readInvoice!(invoice.id)).toMatchObject({
      id: invoice.id,
      status: "paid",
      paid: true,
      paidAt: settled,
      satoshis: 8819,
    });
    expect(reads(invoice.id, "/v2/charges")).toBe(2);
    expect(server.requests.filter((r) => r.path.startsWith("/v1/charge/"))).toHaveLength(0);
  });

  it("asks for a ttl within OpenNode's 10–1440 minutes, and the invoice's expiry stays ours (or OpenNode's, when that is sooner)", async () => {
    const short = await openNodeLightning.createInvoice({ ...args, expirySeconds: 120 });
    expect(server.requests.at(-1)?.body).toMatchObject({ ttl: 10 });
    // The charge lives 10 minutes; the order still expires after 2: a payment after that is kept as unapplied funds.
    expect(short.expiresAt.getTime() - short.createdAt.getTime()).toBe(120_000);
    expect(server.charges.get(short.id)!.ttl).toBe(10);
    const long = await openNodeLightning.createInvoice({ ...args, expirySeconds: 3 * 86_400 });
    expect(server.requests.at(-1)?.body).toMatchObject({ ttl: 1440 });
    // Nobody can pay once OpenNode's charge has expired: the order expires with it.
    expect(long.expiresAt.getTime() - long.createdAt.getTime()).toBe(1440 * 60_000);
    const odd = await openNodeLightning.createInvoice({ ...args, expirySeconds: 630 });
    expect(server.requests.at(-1)?.body).toMatchObject({ ttl: 11 });
    expect(odd.expiresAt.getTime() - odd.createdAt.getTime()).toBe(630_000);
  });

  it("on chain: processing is a payment under way (made when OpenNode saw it), paid keeps that time, underpaid says what arrived and whether the rest can still come", async () => {
    const invoice = await openNodeLightning.createInvoice(args);
    const seen = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await server.opennode.seeOnchain(invoice.id, { at: seen, notify: false });
    expect(await openNodeLightning.readInvoice!(invoice.id)).toMatchObject({
      status: "processing",
      paid: false,
      paidAt: null,
      pending: { at: seen },
      underpaid: null,
    });
    await server.opennode.confirmOnchain(invoice.id, { notify: false });
    expect(await openNodeLightning.readInvoice!(invoice.id)).toMatchObject({
      status: "paid",
      paid: true,
      paidAt: seen,
      pending: null,
    });

    const partial = await openNodeLightning.createInvoice(args);
    await server.opennode.seeOnchain(partial.id, { amount: 5000, at: seen, notify: false });
    expect(await openNodeLightning.readInvoice!(partial.id)).toMatchObject({
      status: "underpaid",
      paid: false,
      underpaid: { receivedSatoshis: 5000, missingSatoshis: 3819, at: seen, open: true },
    });
    await server.opennode.expireCharge(partial.id, { notify: false });
    expect(await openNodeLightning.readInvoice!(partial.id)).toMatchObject({
      status: "underpaid",
      underpaid: { receivedSatoshis: 5000, open: false },
    });
  });

  it("waits out a 429's Retry-After before reading again, and fails at once when it asks for longer than a read may wait", async () => {
    const invoice = await openNodeLightning.createInvoice(args);
    server.opennode.rateLimit(1);
    const start = performance.now();
    expect((await openNodeLightning.readInvoice!(invoice.id)).status).toBe("unpaid");
    expect(performance.now() - start).toBeGreaterThanOrEqual(900);
    expect(reads(invoice.id, "/v2/charges")).toBe(2);

    server.opennode.rateLimit(60);
    expect((await failure(openNodeLightning.readInvoice!(invoice.id)))?.message).toMatch(
      /^HTTP 429: Too Many Requests/,
    );
    expect(reads(invoice.id, "/v2/charges")).toBe(3);
  });

  it("describes a charge as the spec's providerDetails, and says when the provider could not be asked", async () => {
    const invoice = await openNodeLightning.createInvoice(args);
    const state = {
      id: invoice.id,
      satoshis: 8819,
      fiatCentavos: 5400,
      description: "Order x",
      name: "Maria",
      createdAt: invoice.createdAt,
      status: "unpaid" as const,
    };
    const details = await openNodeLightning.describe(state);
    const charge = server.charges.get(invoice.id)!;
    expect(details).toMatchObject({
      success: true,
      data: {
        id: invoice.id,
        status: "unpaid",
        amount: 8819,
        fiat_value: 54,
        address: charge.address,
        auto_settle: false,
        transactions: [],
      },
    });
    expect(details.data.created_at).toBe(charge.createdAt);
    await server.opennode.seeOnchain(invoice.id, { notify: false });
    const seen = await openNodeLightning.describe(state);
    expect(seen.data).toMatchObject({
      status: "processing",
      transactions: [{ tx: charge.onchain[0].tx, amount: 8819, status: "pending" }],
    });
    expect(reads(invoice.id, "/v2/charges")).toBe(2);
    server.state.status = 503;
    expect(await openNodeLightning.describe(state)).toMatchObject({
      success: false,
      data: { id: invoice.id, status: "unpaid", amount: 8819 },
    });
  });

  it("reports the provider's status on errors (the spec's 'error names the provider status')", async () => {
    setEnv({ LIGHTNING_API_KEY: "wrong-key" });
    expect((await failure(openNodeLightning.createInvoice(args)))?.message).toBe("HTTP 401: Unauthorized");
    setEnv({ LIGHTNING_API_KEY: OPENNODE_KEY });
    server.state.delayMs = 1000;
    expect((await failure(openNodeLightning.createInvoice(args)))?.message).toBe("no answer within 500 ms");
    // A create is not repeated after a timeout: a retry could open a second charge.
    expect(server.requests.filter((r) => r.method === "POST")).toHaveLength(2);
  });

  it("refuses a charge whose invoice asks for a different amount", async () => {
    server.opennode.state.invoiceSatsDelta = 1;
    expect((await failure(openNodeLightning.createInvoice(args)))?.message).toBe(
      "charge invoice is for 8820 sats, expected 8819",
    );
  });

  it("verifies callbacks: hashed_order = HMAC-SHA256(api key, charge id)", () => {
    const id = "ba57e419-a6c9-41b2-a54c-b870d073d899";
    const good = createHmac("sha256", OPENNODE_KEY).update(id).digest("hex");
    expect(openNodeLightning.verifyCallback!({ id, hashed_order: good })).toBe(true);
    expect(openNodeLightning.verifyCallback!({ id: `${id}x`, hashed_order: good })).toBe(false);
    expect(
      openNodeLightning.verifyCallback!({ id, hashed_order: createHmac("sha256", "other").update(id).digest("hex") }),
    ).toBe(false);
    expect(openNodeLightning.verifyCallback!({ id, hashed_order: good.slice(2) })).toBe(false);
    expect(openNodeLightning.verifyCallback!({ id })).toBe(false);
  });
});

describe("live mode's provider check", () => {
  const LIVE = {
    PAYMENTS_MODE: "live",
    AUTH_SECRET: "a".repeat(40),
    PUBLIC_BASE_URL: "https://pay.example.com",
    DEPOSIT_XPUB:
      "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
  };

  it("starts with the rails it has; each one off names what to set, and its provider answers that 400", () => {
    setEnv({ ...LIVE, EVM_RPC_URL_POLYGON: "http://127.0.0.1:1", HOT_WALLET_PRIVATE_KEY: `0x${"11".repeat(32)}` });
    expect(railStates()).toEqual({
      pix: "PIX collection is not enabled on this server: set PIX_API_URL, PIX_CLIENT_ID, PIX_CLIENT_SECRET and the PSP's certificate (PIX_CERT_FILE + PIX_KEY_FILE, or PIX_PFX_FILE)",
      exchange:
        "Exchange-wallet payments are not enabled on this server: set BINANCE_PAY_API_KEY and BINANCE_PAY_SECRET_KEY",
      lightning: null,
      onchain: null,
      onchain_withdrawal: null,
      pix_out: "PIX withdrawals are not enabled on this server: set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY",
      crypto_pix: "Crypto-PIX is not enabled on this server: set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY",
      crypto_pix_lightning:
        "Crypto-PIX over Lightning is not enabled on this server: set LIGHTNING_BACKEND=lnd with LND_REST_URL, LND_MACAROON_FILE and LND_TLS_CERT_FILE (hold invoices); set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY",
    });
    const p = providers();
    expect(p.lightning.name).toBe("opennode");
    expect(p.pix.name).toBe("pix-not-configured");
    expect(() => p.pix.createCollection({ valueCentavos: 100 })).toThrow(RailNotEnabled);
    expect(() => p.payout.read("x")).toThrow("PIX withdrawals are not enabled on this server");
  });

  it("with nothing configured, every rail is off and says why; no DEPOSIT_XPUB is needed without a chain", () => {
    setEnv({
      ...LIVE,
      DEPOSIT_XPUB: undefined,
      RATES_URL: undefined,
      LIGHTNING_API_URL: undefined,
      LIGHTNING_API_KEY: undefined,
    });
    const states = railStates();
    expect(Object.values(states).every((s) => s !== null)).toBe(true);
    expect(states.lightning).toBe(
      "Lightning is not enabled on this server: set LIGHTNING_BACKEND=lnd with LND_REST_URL, LND_MACAROON_FILE and LND_TLS_CERT_FILE, or LIGHTNING_API_URL and LIGHTNING_API_KEY (OpenNode); set RATES_URL",
    );
    expect(states.onchain).toBe(
      "On-chain deposits are not enabled on this server: set an EVM_RPC_URL_*, DEPOSIT_XPUB and HOT_WALLET_PRIVATE_KEY (or HOT_WALLET_KEY_FILE); set RATES_URL",
    );
    expect(providers().rates.name).toBe("rates-not-configured");
  });

  it("rates that are off refuse as a rejected quote, so a page collecting several (Promise.allSettled) still renders", async () => {
    setEnv({ ...LIVE, DEPOSIT_XPUB: undefined, RATES_URL: undefined });
    const { rates } = providers();
    const quotes = await Promise.allSettled((["USDT", "BTC"] as const).map((s) => rates.quote(s)));
    expect(quotes.map((q) => q.status)).toEqual(["rejected", "rejected"]);
    const refused = (quotes[0] as PromiseRejectedResult).reason as Error;
    expect(refused).toBeInstanceOf(RailNotEnabled);
    expect(refused.message).toBe("Live rates are not configured on this server: set RATES_URL");
  });

  it("takes deposits only on networks that have a node", () => {
    setEnv({ ...LIVE, EVM_RPC_URL_POLYGON: "http://127.0.0.1:1", HOT_WALLET_PRIVATE_KEY: `0x${"11".repeat(32)}` });
    expect(resolveToken("polygon", "USDT", ["eth", "bsc", "polygon"]).network).toBe("polygon");
    expect(() => resolveToken("eth", "USDT", ["eth", "bsc", "polygon"])).toThrow(
      "Network not supported: eth is not configured on this server",
    );
  });
});
