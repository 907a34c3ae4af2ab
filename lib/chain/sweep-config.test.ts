import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, resetEnvForTests } from "@/lib/env";
import { saveEnv } from "@/tests/support/env";
import { checkChainConfig, sweepThresholds } from "./config";
import { checkDepositKey, depositKeySource, depositPrivateKey } from "./deposit-keys";
import { deriveDepositAddress } from "./hd";
import { SANDBOX_DEPOSIT_XPRV, SANDBOX_DEPOSIT_XPUB } from "./sandbox-keys";

const saved = saveEnv();
afterEach(() => saved.restore());

function use(vars: Record<string, string>) {
  saved.restore();
  // The key's variables come only from `vars`: each case says which it has.
  delete process.env.DEPOSIT_XPUB;
  delete process.env.DEPOSIT_XPRV_FILE;
  Object.assign(process.env, vars);
  resetEnvForTests();
}

describe("SWEEP_THRESHOLDS_<NET>", () => {
  it("reads each token's threshold as an exact decimal string; unset or empty is off", () => {
    use({
      EVM_RPC_URL_POLYGON: "http://127.0.0.1:8545",
      EVM_CHAIN_ID_POLYGON: "31337",
      SWEEP_THRESHOLDS_POLYGON: "USDT=50, USDC=0.5",
    });
    expect(sweepThresholds("polygon")).toEqual({ USDT: "50", USDC: "0.5" });
    expect(sweepThresholds("bsc")).toBeNull();
    expect(() => checkChainConfig()).not.toThrow();
    expect(parseEnv({ SWEEP_THRESHOLDS_ETH: "" }).SWEEP_THRESHOLDS_ETH).toBeUndefined();
  });

  it("refuses malformed entries, unknown tokens and a network without a node, naming the variable", () => {
    expect(() => parseEnv({ SWEEP_THRESHOLDS_BSC: "USDT" })).toThrow(
      /SWEEP_THRESHOLDS_BSC: "USDT" must be TOKEN=THRESHOLD/,
    );
    expect(() => parseEnv({ SWEEP_THRESHOLDS_BSC: "USDT=1,USDT=2" })).toThrow(/USDT is given twice/);
    expect(() => parseEnv({ SWEEP_TO: "0x12" })).toThrow(/SWEEP_TO/);
    use({
      EVM_RPC_URL_POLYGON: "http://127.0.0.1:8545",
      EVM_CHAIN_ID_POLYGON: "31337",
      SWEEP_THRESHOLDS_POLYGON: "XYZ=1",
    });
    expect(() => checkChainConfig()).toThrow(/SWEEP_THRESHOLDS_POLYGON: XYZ is not a token on polygon/);
    use({ SWEEP_THRESHOLDS_ETH: "USDT=1" });
    expect(() => checkChainConfig()).toThrow(/SWEEP_THRESHOLDS_ETH: eth has no node/);
  });
});

describe("the deposit private key", () => {
  it("signs for the addresses DEPOSIT_XPUB derives; refuses a key for other addresses, a public key, or none", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "deposit-key-"));
    const good = path.join(dir, "good");
    writeFileSync(good, SANDBOX_DEPOSIT_XPRV);
    use({ PAYMENTS_MODE: "sandbox", DEPOSIT_XPUB: SANDBOX_DEPOSIT_XPUB, DEPOSIT_XPRV_FILE: good });
    expect(() => checkDepositKey()).not.toThrow();
    const address = deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 7);
    expect(depositPrivateKey(7, address)).toMatch(/^0x[0-9a-f]{64}$/);
    expect(() => depositPrivateKey(8, address)).toThrow(/does not derive/);

    const pub = path.join(dir, "pub");
    writeFileSync(pub, SANDBOX_DEPOSIT_XPUB);
    use({ PAYMENTS_MODE: "sandbox", DEPOSIT_XPUB: SANDBOX_DEPOSIT_XPUB, DEPOSIT_XPRV_FILE: pub });
    expect(() => checkDepositKey()).toThrow(/extended public key/);
    use({ PAYMENTS_MODE: "sandbox", DEPOSIT_XPUB: SANDBOX_DEPOSIT_XPUB, DEPOSIT_XPRV_FILE: path.join(dir, "missing") });
    expect(() => checkDepositKey()).toThrow(/DEPOSIT_XPRV_FILE: cannot read/);
    // A DEPOSIT_XPUB of its own and no key file: this process cannot sweep (the test key would not match).
    use({ PAYMENTS_MODE: "sandbox", DEPOSIT_XPUB: SANDBOX_DEPOSIT_XPUB });
    expect(depositKeySource()).toBeNull();
    expect(() => checkDepositKey()).toThrow(/DEPOSIT_XPRV_FILE is not set/);
  });
});
