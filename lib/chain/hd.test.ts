import { describe, it, expect } from "vitest";
import { getAddress } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { deriveDepositAddress } from "./hd";
import { SANDBOX_DEPOSIT_XPUB } from "@/lib/chain/sandbox-keys";

const TEST_MNEMONIC = "test test test test test test test test test test test junk";

// viem only exposes the HD key at the account's own path, so asking for a shallower path
// is how we reach the account- and change-level keys without a separate bip39 dependency.
function hdKeyAt(path: `m/44'/60'/${string}`) {
  return mnemonicToAccount(TEST_MNEMONIC, { path }).getHdKey();
}

describe("deriveDepositAddress", () => {
  it("matches the well-known test-mnemonic accounts", () => {
    expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 0)).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    for (const i of [0, 1, 2, 17]) {
      const expected = mnemonicToAccount(TEST_MNEMONIC, { path: `m/44'/60'/0'/0/${i}` }).address;
      expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, i)).toBe(expected);
    }
    expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 1)).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 2)).toBe("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
  });

  it("hard-codes the xpub of m/44'/60'/0' of the public test mnemonic", () => {
    const account = hdKeyAt("m/44'/60'/0'");
    expect(account.depth).toBe(3);
    expect(account.publicExtendedKey).toBe(SANDBOX_DEPOSIT_XPUB);
  });

  it("returns checksummed, distinct addresses", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const a = deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, i);
      expect(getAddress(a)).toBe(a);
      seen.add(a);
    }
    expect(seen.size).toBe(50);
  });

  it("is deterministic across calls (cache does not change results)", () => {
    const first = deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 5);
    expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 5)).toBe(first);
  });

  it("accepts the largest non-hardened index", () => {
    expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 2 ** 31 - 1)).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("rejects invalid indexes", () => {
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, bad)).toThrow(/index must be an integer/);
    }
  });

  it("refuses an xprv because deposit keys must be watch-only", () => {
    const xprv = hdKeyAt("m/44'/60'/0'").privateExtendedKey;
    expect(xprv.startsWith("xprv")).toBe(true);
    expect(() => deriveDepositAddress(xprv, 0)).toThrow(/watch-only/);
  });

  it("refuses an xpub at the wrong depth", () => {
    const changeLevel = hdKeyAt("m/44'/60'/0'/0").publicExtendedKey;
    expect(() => deriveDepositAddress(changeLevel, 0)).toThrow(/account-level key at depth 3/);
  });

  it("refuses garbage", () => {
    expect(() => deriveDepositAddress("not-an-xpub", 0)).toThrow(/not a valid BIP32 extended public key/);
    expect(() => deriveDepositAddress("", 0)).toThrow(/missing/);
    const corrupted = SANDBOX_DEPOSIT_XPUB.slice(0, -1) + (SANDBOX_DEPOSIT_XPUB.endsWith("P") ? "Q" : "P");
    expect(() => deriveDepositAddress(corrupted, 0)).toThrow(/not a valid BIP32/);
  });
});
