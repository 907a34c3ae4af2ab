import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, resetEnvForTests } from "@/lib/env";
import { SANDBOX_DEPOSIT_XPUB, SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { chainId, checkChainConfig, depositXpub, hotWalletKey, liveNetworks, tokenInfo } from "./config";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

function use(vars: Record<string, string>) {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved, vars);
  resetEnvForTests();
}

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const KEY = `0x${"ab".repeat(32)}`;

describe("chain configuration from the environment", () => {
  it("refuses malformed TOKEN_OVERRIDES_JSON, naming the variable", () => {
    expect(() => parseEnv({ TOKEN_OVERRIDES_JSON: "{not json" })).toThrow(/TOKEN_OVERRIDES_JSON: must be JSON/);
    use({
      TOKEN_OVERRIDES_JSON: '{"tron":{"USDT":{"address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}}}',
    });
    expect(() => checkChainConfig()).toThrow(/TOKEN_OVERRIDES_JSON: unknown network "tron"/);
    use({
      TOKEN_OVERRIDES_JSON: '{"bsc":{"XYZ":{"address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}}}',
    });
    expect(() => checkChainConfig()).toThrow(/TOKEN_OVERRIDES_JSON.bsc: unknown asset "XYZ"/);
    expect(() => parseEnv({ TOKEN_OVERRIDES_JSON: '{"polygon":{"USDT":{"address":"0x12","decimals":6}}}' })).toThrow(
      /TOKEN_OVERRIDES_JSON\.polygon\.USDT\.address/,
    );
    expect(() =>
      parseEnv({ TOKEN_OVERRIDES_JSON: `{"polygon":{"USDT":{"address":"${TOKEN}","decimals":77}}}` }),
    ).toThrow(/decimals/);
  });

  it("requires a hot-wallet key in live mode once a network has a node, and only one source of it", () => {
    const live = {
      PAYMENTS_MODE: "live",
      AUTH_SECRET: "a".repeat(40),
      DATABASE_URL: "postgres://payments@db.internal/payments",
      PUBLIC_BASE_URL: "https://pay.example.com",
      DEPOSIT_XPUB: "xpub-test",
      EVM_RPC_URL_BSC: "https://bsc.example",
    };
    expect(() => parseEnv(live)).toThrow(/HOT_WALLET_PRIVATE_KEY: is required in live mode/);
    expect(() => parseEnv({ ...live, HOT_WALLET_PRIVATE_KEY: KEY })).not.toThrow();
    expect(() => parseEnv({ HOT_WALLET_PRIVATE_KEY: KEY, HOT_WALLET_KEY_FILE: "/run/secrets/key" })).toThrow(
      /HOT_WALLET_KEY_FILE: set either/,
    );
    expect(() => parseEnv({ HOT_WALLET_PRIVATE_KEY: "0x1234" })).toThrow(/HOT_WALLET_PRIVATE_KEY/);
    expect(() => parseEnv({ EVM_RPC_URL_ETH: "ws://node" })).toThrow(/EVM_RPC_URL_ETH/);
  });

  it("live start-up refuses the embedded database, a non-https public URL and a development chain id", () => {
    const live = {
      PAYMENTS_MODE: "live",
      AUTH_SECRET: "a".repeat(40),
      DEPOSIT_XPUB: "xpub-test",
      DATABASE_URL: "postgres://db.internal/payments",
      PUBLIC_BASE_URL: "https://pay.example.com",
    };
    expect(() => parseEnv(live)).not.toThrow();
    expect(() => parseEnv({ ...live, DATABASE_URL: undefined })).toThrow(
      /DATABASE_URL: is required in live mode \(the embedded PostgreSQL is for sandbox only\)/,
    );
    expect(() => parseEnv({ ...live, PUBLIC_BASE_URL: "http://pay.example.com" })).toThrow(
      /PUBLIC_BASE_URL: is required in live mode and must be an https:\/\/ URL/,
    );
    expect(() => parseEnv({ ...live, PUBLIC_BASE_URL: undefined })).toThrow(/PUBLIC_BASE_URL/);

    use({ ...live, EVM_CHAIN_ID_BSC: "31337" });
    expect(() => checkChainConfig()).toThrow(
      /EVM_CHAIN_ID_BSC: 31337 is a development chain; live mode refuses it unless ALLOW_TEST_CHAINS=true/,
    );
    use({ ...live, EVM_CHAIN_ID_ETH: "1337", ALLOW_TEST_CHAINS: "true" });
    expect(() => checkChainConfig()).not.toThrow();
    use({
      ...live,
      EVM_CHAIN_ID_POLYGON: "80002",
      EVM_RPC_URL_POLYGON: "https://amoy.example",
      HOT_WALLET_PRIVATE_KEY: KEY,
    });
    expect(() => checkChainConfig()).not.toThrow();
  });

  it("sandbox start-up refuses a node on a main-net chain id, public test addresses on a public test chain, and a key with no node", () => {
    use({ PAYMENTS_MODE: "sandbox", EVM_RPC_URL_POLYGON: "https://polygon.example" });
    expect(() => checkChainConfig()).toThrow(
      /EVM_RPC_URL_POLYGON: sandbox mode refuses a node on main-net chain id 137/,
    );
    use({ PAYMENTS_MODE: "sandbox", EVM_RPC_URL_ETH: "https://eth.example", EVM_CHAIN_ID_ETH: "56" });
    expect(() => checkChainConfig()).toThrow(/EVM_RPC_URL_ETH: sandbox mode refuses a node on main-net chain id 56/);
    use({ PAYMENTS_MODE: "sandbox", EVM_RPC_URL_ETH: "https://sepolia.example", EVM_CHAIN_ID_ETH: "11155111" });
    expect(() => checkChainConfig()).toThrow(
      /DEPOSIT_XPUB: is required in sandbox mode once eth is routed to a public test chain \(11155111\)/,
    );
    use({
      PAYMENTS_MODE: "sandbox",
      EVM_RPC_URL_ETH: "https://sepolia.example",
      EVM_CHAIN_ID_ETH: "11155111",
      DEPOSIT_XPUB: "xpub-of-our-own",
    });
    expect(() => checkChainConfig()).not.toThrow();
    use({ PAYMENTS_MODE: "sandbox", HOT_WALLET_PRIVATE_KEY: KEY });
    expect(() => checkChainConfig()).toThrow(
      /HOT_WALLET_PRIVATE_KEY: sandbox mode uses a hot-wallet key only for a network routed to a test node/,
    );
    use({
      PAYMENTS_MODE: "sandbox",
      HOT_WALLET_PRIVATE_KEY: KEY,
      EVM_RPC_URL_BSC: "http://127.0.0.1:8545",
      EVM_CHAIN_ID_BSC: "31337",
    });
    expect(() => checkChainConfig()).not.toThrow();
  });

  it("applies token and chain id overrides to one network only", () => {
    use({
      TOKEN_OVERRIDES_JSON: JSON.stringify({ polygon: { USDT: { address: TOKEN, decimals: 6 } } }),
      EVM_CHAIN_ID_POLYGON: "31337",
      EVM_RPC_URL_POLYGON: "http://127.0.0.1:8545",
    });
    expect(tokenInfo("polygon", "USDT")).toEqual({ address: TOKEN, decimals: 6 });
    expect(tokenInfo("polygon", "DAI")).toEqual({
      address: "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063",
      decimals: 18,
    });
    expect(tokenInfo("bsc", "USDT")?.decimals).toBe(18);
    expect(chainId("polygon")).toBe(31337);
    expect(chainId("bsc")).toBe(56);
    expect(liveNetworks()).toEqual(["polygon"]);
  });

  it("reads the hot-wallet key from HOT_WALLET_KEY_FILE, with or without 0x, and never echoes a bad one", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "hot-key-"));
    const file = path.join(dir, "key");
    writeFileSync(file, `${"cd".repeat(32)}\n`);
    use({ HOT_WALLET_KEY_FILE: file });
    expect(hotWalletKey()).toBe(`0x${"cd".repeat(32)}`);

    const bad = path.join(dir, "bad");
    writeFileSync(bad, "secret-but-malformed");
    use({ HOT_WALLET_KEY_FILE: bad });
    expect(() => hotWalletKey()).toThrow(`HOT_WALLET_KEY_FILE: ${bad} does not hold a 32-byte hex private key`);
    use({ HOT_WALLET_KEY_FILE: path.join(dir, "missing") });
    expect(() => hotWalletKey()).toThrow(/cannot read .*missing \(ENOENT\)/);
  });

  it("signs with the public test key in sandbox mode when no key is configured", () => {
    use({ PAYMENTS_MODE: "sandbox" });
    expect(hotWalletKey()).toBe(SANDBOX_HOT_WALLET_KEY);
  });

  it("derives deposit addresses from the public test xpub in sandbox mode only: live mode without DEPOSIT_XPUB derives none", () => {
    use({ PAYMENTS_MODE: "sandbox" });
    expect(depositXpub()).toBe(SANDBOX_DEPOSIT_XPUB);
    // Live mode starts without DEPOSIT_XPUB when no chain is configured (lib/env/checks.ts).
    use({
      PAYMENTS_MODE: "live",
      DATABASE_URL: "postgres://db/payments",
      PUBLIC_BASE_URL: "https://pay.example.com",
      AUTH_SECRET: "a".repeat(40),
    });
    expect(() => depositXpub()).toThrow("DEPOSIT_XPUB is required in live mode to derive deposit addresses");
  });
});
