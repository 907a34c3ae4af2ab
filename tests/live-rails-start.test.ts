import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBinancePay, type BinancePayServer } from "./fixtures/binance-pay/server";
import { startLndNode, type LndNode } from "./fixtures/lnd/server";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { OPENNODE_KEY, startProviderServer, type ProviderServer } from "./fixtures/provider-server";
import { specOf } from "./helpers";
import { testDatabaseUrl } from "./support/database";

// Live mode starts with the rails that are configured and refuses only unsafe setups
// (docs/configuration.md, "What start-up refuses"): `npm start`'s own process (scripts/start.ts) on a
// fresh PostgreSQL database, with one deployment's providers each, pointing at the test servers.
//
// The server runs with --dev: production mode serves Next's build (`npm run build`), which vitest
// runs do not make, and /readyz and /api/v1 are answered before Next either way (lib/server/http.ts).
// Next's dev server locks .next/dev, so these servers run one after another, each stopped before
// the next starts.

const ROOT = path.resolve(__dirname, "..");
const testUrl = testDatabaseUrl();
const ADMIN_TOKEN = "live-rails-admin-token-0123456789abcdefghij";
const RECEIVER_KEY = "0b3f6c1e-7a2d-4e5f-9c8b-1d2e3f4a5b6c";
const PAYOUT_KEY = "pagamentos@pixcrypto.example";
const XPUB =
  "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP";

const CHAIN_OFF = "set an EVM_RPC_URL_*, DEPOSIT_XPUB and HOT_WALLET_PRIVATE_KEY (or HOT_WALLET_KEY_FILE)";
const OFF = {
  pix: "PIX collection is not enabled on this server: set PIX_API_URL, PIX_CLIENT_ID, PIX_CLIENT_SECRET and the PSP's certificate (PIX_CERT_FILE + PIX_KEY_FILE, or PIX_PFX_FILE)",
  exchange:
    "Exchange-wallet payments are not enabled on this server: set BINANCE_PAY_API_KEY and BINANCE_PAY_SECRET_KEY",
  lightning:
    "Lightning is not enabled on this server: set LIGHTNING_BACKEND=lnd with LND_REST_URL, LND_MACAROON_FILE and LND_TLS_CERT_FILE, or LIGHTNING_API_URL and LIGHTNING_API_KEY (OpenNode); set RATES_URL",
  onchainNoRates: `On-chain deposits are not enabled on this server: ${CHAIN_OFF}; set RATES_URL`,
  onchain: `On-chain deposits are not enabled on this server: ${CHAIN_OFF}`,
  withdrawal: `On-chain withdrawals are not enabled on this server: ${CHAIN_OFF}`,
  pixOut: "PIX withdrawals are not enabled on this server: set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY",
};

let psp: PixPsp;
let binance: BinancePayServer;
let lnd: LndNode;
let providersServer: ProviderServer;
const databases: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  binance = await startBinancePay({ quiet: true, autoExpire: false });
  lnd = await startLndNode({ quiet: true });
  providersServer = await startProviderServer();
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await Promise.all([psp?.close(), binance?.stop(), lnd?.close(), providersServer?.close()]);
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  for (const name of databases) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

const STARTUP_MS = 240_000;

/** A database no mode has written to yet: live mode refuses one sandbox used. start.ts migrates it. */
async function freshDatabase(): Promise<{ name: string; url: string }> {
  const name = `live_rails_${process.pid}_${databases.length}_${Date.now()}`;
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  databases.push(name);
  const u = new URL(testUrl);
  u.pathname = `/${name}`;
  return { name, url: u.toString() };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

type Exit = { code: number | null; output: string };

/** scripts/start.ts in live mode with only these provider variables, on its own environment (not this process's). */
function startScript(vars: Record<string, string>, port: number) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--dev"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "development",
      NEXT_TELEMETRY_DISABLED: "1",
      PAYMENTS_MODE: "live",
      AUTH_SECRET: "live-rails-auth-secret-0123456789abcdefghij",
      PUBLIC_BASE_URL: "https://pay.example.com",
      ADMIN_TOKEN,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
      SHUTDOWN_TIMEOUT_MS: "2000",
      // The test server has no standby; that refusal is tested in tests/db-failover.test.ts.
      DB_REQUIRE_SYNC_STANDBY: "false",
      ...vars,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<Exit>((resolve) => child.on("exit", (code) => resolve({ code, output })));
  return { child, exited, output: () => output };
}

type Live = { base: string; database: string; output: string; apiKey: string; stop: () => Promise<Exit> };

/** Starts the server, waits for it to serve, and makes a merchant with a live key through the operator API. */
async function startLive(vars: Record<string, string>): Promise<Live> {
  const port = await freePort();
  const database = await freshDatabase();
  const run = startScript({ DATABASE_URL: database.url, ...vars }, port);
  let ready = false;
  // Next in development mode compiles its configuration and starts its watchers first: minutes, not
  // seconds, on a machine busy with other suites.
  for (
    const until = Date.now() + STARTUP_MS;
    !ready && run.child.exitCode === null && Date.now() < until;
    await new Promise((r) => setTimeout(r, 200))
  ) {
    ready = /^ready: /m.test(run.output());
  }
  if (!ready) {
    run.child.kill("SIGKILL");
    throw new Error(`the server did not come up:\n${run.output()}`);
  }
  const base = `http://127.0.0.1:${port}`;
  const created = await call(base, "POST", "/api/v1/admin/merchants", {
    token: ADMIN_TOKEN,
    body: { companyName: "Loja Ao Vivo", pixKey: "11222333000181" },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const apiKey = (created.body as { apiKey: string }).apiKey;
  expect(apiKey).toMatch(/^sk_live_/);
  return {
    base,
    database: database.name,
    output: run.output(),
    apiKey,
    stop: async () => {
      run.child.kill("SIGTERM");
      return run.exited;
    },
  };
}

async function call(base: string, method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the failure message
  }
  // A refusal is compared in the spec's shape, once its machine-readable code is checked to be there.
  return { status: res.status, body: res.status >= 400 ? specOf(body) : body };
}

/** The rails `npm start` printed, as `{ rail: "on" | reason }`. */
function printedRails(output: string): Record<string, string> {
  return Object.fromEntries(
    [...output.matchAll(/^ {2}([a-z_]+): (?:on$|off \((.*)\)$)/gm)].map((m) => [m[1], m[2] ?? "on"]),
  );
}

/** The job queues the server's worker created in its database: what it started. */
async function queues(live: Live): Promise<string[]> {
  const u = new URL(testUrl);
  u.pathname = `/${live.database}`;
  const sql = postgres(u.toString(), { max: 1, onnotice: () => {} });
  try {
    return (await sql<{ name: string }[]>`select name from pgboss.queue order by name`)
      .map((r) => r.name)
      .filter((n) => !n.startsWith("__"));
  } finally {
    await sql.end();
  }
}

const DEPOSIT = { value: 100.5, asset: "USDT", network: "polygon" };
const WITHDRAW = {
  toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  value: 50,
  token: "USDT",
  network: "polygon",
};
const CRYPTO_PIX = {
  qrcode: encodeStaticBrCode({
    pixKey: "padaria@example.com",
    merchantName: "Padaria Pao Quente",
    merchantCity: "Sao Paulo",
    amountCentavos: 5432,
  }),
  network: "bsc",
};

describe("live mode starts with the rails that are configured", { timeout: STARTUP_MS + 60_000 }, () => {
  it("PIX only (API Pix and Efí payouts): no DEPOSIT_XPUB, no rates; PIX orders are made at the PSP, the other rails answer their 400", async () => {
    const live = await startLive({
      PIX_API_URL: psp.apiUrl,
      PIX_CLIENT_ID: psp.clientId,
      PIX_CLIENT_SECRET: psp.clientSecret,
      PIX_CERT_FILE: psp.files.clientCert,
      PIX_KEY_FILE: psp.files.clientKey,
      PIX_CA_FILE: psp.files.ca,
      PIX_RECEIVER_KEY: RECEIVER_KEY,
      PIX_PAYOUT_PROVIDER: "efi",
      PIX_PAYOUT_KEY: PAYOUT_KEY,
    });
    try {
      expect(printedRails(live.output)).toEqual({
        pix: "on",
        pix_out: "on",
        exchange: OFF.exchange,
        lightning: OFF.lightning,
        onchain: OFF.onchainNoRates,
        onchain_withdrawal: `${OFF.withdrawal}; set RATES_URL`,
        crypto_pix: `Crypto-PIX is not enabled on this server: ${CHAIN_OFF}; set RATES_URL`,
        crypto_pix_lightning:
          "Crypto-PIX over Lightning is not enabled on this server: set LIGHTNING_BACKEND=lnd with LND_REST_URL, LND_MACAROON_FILE and LND_TLS_CERT_FILE (hold invoices); set RATES_URL",
      });
      expect((await call(live.base, "GET", "/readyz")).status).toBe(200);

      const pix = await call(live.base, "POST", "/api/v1/order/create/pix", {
        token: live.apiKey,
        body: { value: 25.9 },
      });
      expect(pix.status, JSON.stringify(pix.body)).toBe(200);
      const { qrCode } = pix.body as { qrCode: string };
      const charge = [...psp.charges.values()].find((c) => c.pixCopiaECola === qrCode);
      expect(charge).toMatchObject({ chave: RECEIVER_KEY, valor: { original: "25.90" } });

      expect(await call(live.base, "POST", "/api/v1/onchain/deposit", { token: live.apiKey, body: DEPOSIT })).toEqual({
        status: 400,
        body: { message: OFF.onchainNoRates },
      });
      expect(
        await call(live.base, "POST", "/api/v1/crypto-pix/onchain/pay", { token: live.apiKey, body: CRYPTO_PIX }),
      ).toEqual({
        status: 400,
        body: { message: `Crypto-PIX is not enabled on this server: ${CHAIN_OFF}; set RATES_URL` },
      });
      expect(
        await call(live.base, "POST", "/api/v1/order/create/lightning", { token: live.apiKey, body: { value: 35 } }),
      ).toEqual({
        status: 400,
        body: { success: false, error: OFF.lightning },
      });
      expect(
        await call(live.base, "POST", "/api/v1/order/create", { token: live.apiKey, body: { value: 150 } }),
      ).toEqual({
        status: 400,
        body: { success: false, error: OFF.exchange },
      });
      const withdraw = `${OFF.withdrawal}; set RATES_URL`;
      expect(
        await call(live.base, "POST", "/api/v1/onchain/withdraw/initiate", { token: live.apiKey, body: WITHDRAW }),
      ).toEqual({
        status: 400,
        body: { message: withdraw, error: withdraw },
      });

      // Nothing works a rail this server does not have: no chain watcher, hot-wallet transactions,
      // Lightning or exchange polls, hold invoices. Reconciliation and the solvency report run in
      // every live deployment, over the rails it has; MED infractions come with Efí's payouts,
      // Pix Automático notices with API Pix, recipients' automatic payouts with PIX payouts.
      expect(await queues(live)).toEqual([
        "med-infractions",
        "order-refund",
        "pix-confirm",
        "pix-payout",
        "pix-reconcile",
        "recipient-auto-payouts",
        "reconcile-daily",
        "solvency-report",
        "subscription-notice",
        "sweep",
      ]);
      expect(psp.violations).toEqual([]);
    } finally {
      expect((await live.stop()).code).toBe(0);
    }
  });

  it("Binance Pay and LND only (rates for Lightning's quote): exchange and Lightning orders are made at their servers, PIX and chains answer their 400", async () => {
    const live = await startLive({
      BINANCE_PAY_URL: binance.url,
      BINANCE_PAY_API_KEY: binance.apiKey,
      BINANCE_PAY_SECRET_KEY: binance.secretKey,
      LIGHTNING_BACKEND: "lnd",
      LND_REST_URL: lnd.url,
      LND_MACAROON_FILE: lnd.macaroonFile,
      LND_TLS_CERT_FILE: lnd.certFile,
      RATES_URL: `${providersServer.url}/api/v3`,
    });
    try {
      expect(printedRails(live.output)).toEqual({
        pix: OFF.pix,
        exchange: "on",
        lightning: "on",
        onchain: OFF.onchain,
        onchain_withdrawal: OFF.withdrawal,
        crypto_pix: `Crypto-PIX is not enabled on this server: ${CHAIN_OFF}; set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY`,
        crypto_pix_lightning:
          "Crypto-PIX over Lightning is not enabled on this server: set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY",
        pix_out: OFF.pixOut,
      });
      expect((await call(live.base, "GET", "/readyz")).status).toBe(200);

      const exchange = await call(live.base, "POST", "/api/v1/order/create", {
        token: live.apiKey,
        body: { value: 150 },
      });
      expect(exchange.status, JSON.stringify(exchange.body)).toBe(201);
      expect([...binance.orders.values()].map((o) => o.fiatAmount)).toContain("150.00");

      const lightning = await call(live.base, "POST", "/api/v1/order/create/lightning", {
        token: live.apiKey,
        body: { value: 35 },
      });
      expect(lightning.status, JSON.stringify(lightning.body)).toBe(201);
      const invoice = JSON.stringify(lightning.body);
      expect([...lnd.invoices.values()].some((i) => invoice.includes(i.paymentRequest))).toBe(true);

      expect(
        await call(live.base, "POST", "/api/v1/order/create/pix", { token: live.apiKey, body: { value: 25.9 } }),
      ).toEqual({
        status: 400,
        body: { message: OFF.pix },
      });
      expect(await call(live.base, "POST", "/api/v1/onchain/deposit", { token: live.apiKey, body: DEPOSIT })).toEqual({
        status: 400,
        body: { message: OFF.onchain },
      });
      expect(
        await call(live.base, "POST", "/api/v1/order/pix-out", {
          token: live.apiKey,
          body: { value: 5000, pixKey: "maria@example.com" },
        }),
      ).toEqual({
        status: 400,
        body: { message: OFF.pixOut, error: { details: OFF.pixOut } },
      });

      expect(await queues(live)).toEqual([
        "crypto-pix-invoice",
        "exchange-reconcile",
        "lightning-reconcile",
        "order-refund",
        "pix-payout",
        "reconcile-daily",
        "solvency-report",
        "sweep",
      ]);
      expect(binance.violations).toEqual([]);
      expect(lnd.violations).toEqual([]);
    } finally {
      expect((await live.stop()).code).toBe(0);
    }
  });

  it("OpenNode only (with its rates): Lightning orders are charges at OpenNode; hold invoices and the other rails are off", async () => {
    const live = await startLive({
      LIGHTNING_API_URL: providersServer.url,
      LIGHTNING_API_KEY: OPENNODE_KEY,
      RATES_URL: `${providersServer.url}/api/v3`,
    });
    try {
      const rails = printedRails(live.output);
      expect(rails).toMatchObject({
        lightning: "on",
        pix: OFF.pix,
        exchange: OFF.exchange,
        onchain: OFF.onchain,
        pix_out: OFF.pixOut,
      });
      expect(rails.crypto_pix_lightning).toMatch(
        /^Crypto-PIX over Lightning is not enabled on this server: set LIGHTNING_BACKEND=lnd .*\(hold invoices\); set PIX_PAYOUT_PROVIDER/,
      );
      expect(Object.entries(rails).filter(([, s]) => s === "on")).toEqual([["lightning", "on"]]);
      expect((await call(live.base, "GET", "/readyz")).status).toBe(200);

      const lightning = await call(live.base, "POST", "/api/v1/order/create/lightning", {
        token: live.apiKey,
        body: { value: 35 },
      });
      expect(lightning.status, JSON.stringify(lightning.body)).toBe(201);
      expect(providersServer.charges.size).toBe(1);

      expect(
        await call(live.base, "POST", "/api/v1/order/create", { token: live.apiKey, body: { value: 150 } }),
      ).toEqual({
        status: 400,
        body: { success: false, error: OFF.exchange },
      });
      expect(await call(live.base, "POST", "/api/v1/onchain/deposit", { token: live.apiKey, body: DEPOSIT })).toEqual({
        status: 400,
        body: { message: OFF.onchain },
      });

      expect(await queues(live)).toEqual([
        "lightning-reconcile",
        "order-refund",
        "pix-payout",
        "reconcile-daily",
        "solvency-report",
        "sweep",
      ]);
    } finally {
      expect((await live.stop()).code).toBe(0);
    }
  });
});

describe("live mode still refuses unsafe setups", () => {
  const NODE = { EVM_RPC_URL_POLYGON: "http://127.0.0.1:1" };

  it("a chain without DEPOSIT_XPUB, or without a hot-wallet key, does not start", async () => {
    // A database of its own: were the refusal gone, the server would mark the one it was given as live.
    const { url } = await freshDatabase();
    const noXpub = await startScript(
      { DATABASE_URL: url, ...NODE, HOT_WALLET_PRIVATE_KEY: `0x${"11".repeat(32)}` },
      await freePort(),
    ).exited;
    expect(noXpub.code).toBe(1);
    expect(noXpub.output).toContain("DEPOSIT_XPUB: is required in live mode once an EVM_RPC_URL_* is set");
    expect(noXpub.output).not.toContain("HOT_WALLET_PRIVATE_KEY");

    const noKey = await startScript({ DATABASE_URL: url, ...NODE, DEPOSIT_XPUB: XPUB }, await freePort()).exited;
    expect(noKey.code).toBe(1);
    expect(noKey.output).toContain(
      "HOT_WALLET_PRIVATE_KEY: is required in live mode (or HOT_WALLET_KEY_FILE) once an EVM_RPC_URL_* is set",
    );
    expect(noKey.output).not.toContain("DEPOSIT_XPUB");
    expect(noKey.output).not.toMatch(/^ready: /m);
  }, 60_000);
});
