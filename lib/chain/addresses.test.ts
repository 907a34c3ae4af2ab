import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { Tx } from "@/db";
import { allocateDepositAddress } from "./addresses";
import { deriveDepositAddress } from "./hd";
import { SANDBOX_DEPOSIT_XPUB, SANDBOX_HOT_WALLET_KEY } from "./sandbox-keys";

// A transaction that hands out the given sequence values and records what is inserted.
function fakeTx(indexes: number[]) {
  const inserted: unknown[] = [];
  const tx = {
    execute: async () => [{ index: String(indexes.shift()) }],
    insert: () => ({ values: async (v: unknown) => void inserted.push(v) }),
  };
  return { tx: tx as unknown as Tx, inserted };
}

describe("allocateDepositAddress", () => {
  it("never hands out the hot wallet's address: the sandbox's is index 1 of the deposit key", async () => {
    const hot = privateKeyToAddress(SANDBOX_HOT_WALLET_KEY);
    expect(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 1).toLowerCase()).toBe(hot.toLowerCase());
    const { tx, inserted } = fakeTx([1, 2]);
    const got = await allocateDepositAddress(tx, "onchain_order");
    expect(got).toEqual({ walletIndex: 2, address: deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 2) });
    expect(inserted).toEqual([{ walletIndex: 2, address: got.address, ownerKind: "onchain_order" }]);
  });

  it("takes the index it is given otherwise", async () => {
    const { tx } = fakeTx([0]);
    expect(await allocateDepositAddress(tx, "crypto_pix")).toEqual({
      walletIndex: 0,
      address: deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, 0),
    });
  });
});
