import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, resetEnvForTests } from "@/lib/env";
import { saveEnv } from "@/tests/support/env";
import { checkChainConfig, floatLimits } from "./config";

const saved = saveEnv();
afterEach(() => saved.restore());

function use(vars: Record<string, string>) {
  saved.restore();
  Object.assign(process.env, vars);
  resetEnvForTests();
}

describe("HOT_WALLET_FLOAT_<NET>", () => {
  it("reads each token's and gas's minimum and target as exact decimal strings; unset or empty is off", () => {
    use({
      EVM_RPC_URL_POLYGON: "http://127.0.0.1:8545",
      EVM_CHAIN_ID_POLYGON: "31337",
      HOT_WALLET_FLOAT_POLYGON: "USDT=100/1000, USDC=0.000001/2.5,gas=0.5/2",
    });
    expect(floatLimits("polygon")).toEqual({
      USDT: { min: "100", target: "1000" },
      USDC: { min: "0.000001", target: "2.5" },
      gas: { min: "0.5", target: "2" },
    });
    expect(floatLimits("bsc")).toBeNull();
    expect(() => checkChainConfig()).not.toThrow();
    expect(parseEnv({ HOT_WALLET_FLOAT_ETH: "" }).HOT_WALLET_FLOAT_ETH).toBeUndefined();
  });

  it("refuses malformed entries, a minimum above its target, unknown tokens and a network without a node, naming the variable", () => {
    expect(() => parseEnv({ HOT_WALLET_FLOAT_BSC: "USDT=100" })).toThrow(
      /HOT_WALLET_FLOAT_BSC: "USDT=100" must be ASSET=MINIMUM\/TARGET/,
    );
    expect(() => parseEnv({ HOT_WALLET_FLOAT_BSC: "USDT=1000/100" })).toThrow(
      /minimum \(1000\) must not be above the target \(100\)/,
    );
    expect(() => parseEnv({ HOT_WALLET_FLOAT_BSC: "USDT=9.5/10.25" })).not.toThrow();
    expect(() => parseEnv({ HOT_WALLET_FLOAT_BSC: "USDT=10.5/9.75" })).toThrow(/must not be above the target/);
    expect(() => parseEnv({ HOT_WALLET_FLOAT_BSC: "USDT=1/2,USDT=3/4" })).toThrow(/USDT is given twice/);
    expect(() => parseEnv({ HOT_WALLET_COLD_ADDRESS: "0x12" })).toThrow(/HOT_WALLET_COLD_ADDRESS/);
    use({
      EVM_RPC_URL_POLYGON: "http://127.0.0.1:8545",
      EVM_CHAIN_ID_POLYGON: "31337",
      HOT_WALLET_FLOAT_POLYGON: "XYZ=1/2",
    });
    expect(() => checkChainConfig()).toThrow(/HOT_WALLET_FLOAT_POLYGON: XYZ is not a token on polygon/);
    use({ HOT_WALLET_FLOAT_ETH: "USDT=1/2" });
    expect(() => checkChainConfig()).toThrow(/HOT_WALLET_FLOAT_ETH: eth has no node/);
  });
});
