import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, resetEnvForTests } from "@/lib/env";
import { SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { chainId, checkChainConfig, hotWalletKey, liveNetworks, tokenInfo } from "./config";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

function use(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetEnvForTests();
}

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const KEY = `0x${"ab".repeat(32)}`;

describe("chain configuration from the environment", () => {
  it("refuses malformed TOKEN_OVERRIDES_JSON, naming the variable", () => {
    expect(() => parseEnv({ TOKEN_OVERRIDES_JSON: "{not json" })).toThrow(/TOKEN_OVERRIDES_JSON: must be JSON/);
    use({ TOKEN_OVERRIDES_JSON: '{"tron":{"USDT":{"address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}}}' });
    expect(() => checkChainConfig()).toThrow(/TOKEN_OVERRIDES_JSON: unknown network "tron"/);
    use({ TOKEN_OVERRIDES_JSON: '{"bsc":{"XYZ":{"address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}}}' });
    expect(() => checkChainConfig()).toThrow(/TOKEN_OVERRIDES_JSON.bsc: unknown asset "XYZ"/);
    expect(() => parseEnv({ TOKEN_OVERRIDES_JSON: '{"polygon":{"USDT":{"address":"0x12","decimals":6}}}' })).toThrow(/TOKEN_OVERRIDES_JSON\.polygon\.USDT\.address/);
    expect(() => parseEnv({ TOKEN_OVERRIDES_JSON: `{"polygon":{"USDT":{"address":"${TOKEN}","decimals":77}}}` })).toThrow(/decimals/);
  });

  it("requires a hot-wallet key in live mode once a network has a node, and only one source of it", () => {
    const live = { PAYMENTS_MODE: "live", AUTH_SECRET: "a".repeat(40), DEPOSIT_XPUB: "xpub-test", EVM_RPC_URL_BSC: "https://bsc.example" };
    expect(() => parseEnv(live)).toThrow(/HOT_WALLET_PRIVATE_KEY: is required in live mode/);
    expect(() => parseEnv({ ...live, HOT_WALLET_PRIVATE_KEY: KEY })).not.toThrow();
    expect(() => parseEnv({ HOT_WALLET_PRIVATE_KEY: KEY, HOT_WALLET_KEY_FILE: "/run/secrets/key" })).toThrow(/HOT_WALLET_KEY_FILE: set either/);
    expect(() => parseEnv({ HOT_WALLET_PRIVATE_KEY: "0x1234" })).toThrow(/HOT_WALLET_PRIVATE_KEY/);
    expect(() => parseEnv({ EVM_RPC_URL_ETH: "ws://node" })).toThrow(/EVM_RPC_URL_ETH/);
  });

  it("applies token and chain id overrides to one network only", () => {
    use({
      TOKEN_OVERRIDES_JSON: JSON.stringify({ polygon: { USDT: { address: TOKEN, decimals: 6 } } }),
      EVM_CHAIN_ID_POLYGON: "31337",
      EVM_RPC_URL_POLYGON: "http://127.0.0.1:8545",
    });
    expect(tokenInfo("polygon", "USDT")).toEqual({ address: TOKEN, decimals: 6 });
    expect(tokenInfo("polygon", "DAI")).toEqual({ address: "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063", decimals: 18 });
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
});
