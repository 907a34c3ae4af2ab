import { describe, it, expect } from "vitest";
import {
  decodeFunctionData,
  erc20Abi,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerializedEIP1559,
} from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { signErc20Transfer } from "./sign";
import { SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { CHAIN_IDS, tokenFor } from "./tokens";

const TEST_MNEMONIC = "test test test test test test test test test test test junk";
const RECIPIENT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;

function polygonUsdt(): `0x${string}` {
  const token = tokenFor("polygon", "USDT");
  if (!token) throw new Error("table lost Polygon USDT");
  return token.address;
}

describe("SANDBOX_HOT_WALLET_KEY", () => {
  it("is account 1 of the public test mnemonic", () => {
    const hd = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 1 }).getHdKey();
    const derived = `0x${Buffer.from(hd.privateKey ?? new Uint8Array()).toString("hex")}`;
    expect(derived).toBe(SANDBOX_HOT_WALLET_KEY);
    expect(privateKeyToAccount(SANDBOX_HOT_WALLET_KEY).address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  });
});

describe("signErc20Transfer", () => {
  it("produces a genuine signed EIP-1559 ERC-20 transfer", async () => {
    const amount = 123_456_789n;
    const { rawTransaction, hash } = await signErc20Transfer({
      privateKey: SANDBOX_HOT_WALLET_KEY,
      chainId: CHAIN_IDS.polygon,
      token: polygonUsdt(),
      to: RECIPIENT,
      amount,
      nonce: 7,
    });

    expect(hash).toBe(keccak256(rawTransaction));
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);

    const tx = parseTransaction(rawTransaction);
    expect(tx.type).toBe("eip1559");
    expect(tx.chainId).toBe(137);
    expect(tx.to?.toLowerCase()).toBe(polygonUsdt().toLowerCase());
    expect(tx.nonce).toBe(7);
    expect(tx.value ?? 0n).toBe(0n);
    expect(tx.gas).toBe(65_000n);
    expect((tx.maxPriorityFeePerGas ?? 0n) <= (tx.maxFeePerGas ?? 0n)).toBe(true);

    const call = decodeFunctionData({ abi: erc20Abi, data: tx.data ?? "0x" });
    expect(call.functionName).toBe("transfer");
    expect(call.args).toEqual([RECIPIENT, amount]);

    const signer = await recoverTransactionAddress({
      serializedTransaction: rawTransaction as TransactionSerializedEIP1559,
    });
    expect(signer).toBe(privateKeyToAccount(SANDBOX_HOT_WALLET_KEY).address);
  });

  it("honours explicit gas and fees", async () => {
    const { rawTransaction } = await signErc20Transfer({
      privateKey: SANDBOX_HOT_WALLET_KEY,
      chainId: 1,
      token: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      to: RECIPIENT,
      amount: 1n,
      nonce: 0,
      gas: 80_000n,
      maxFeePerGas: 30_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const tx = parseTransaction(rawTransaction);
    expect(tx.chainId).toBe(1);
    expect(tx.nonce).toBe(0);
    expect(tx.gas).toBe(80_000n);
    expect(tx.maxFeePerGas).toBe(30_000_000_000n);
    expect(tx.maxPriorityFeePerGas).toBe(1_000_000_000n);
  });

  it("gives different hashes for different nonces", async () => {
    const base = { privateKey: SANDBOX_HOT_WALLET_KEY, chainId: 137, token: polygonUsdt(), to: RECIPIENT, amount: 5n };
    const a = await signErc20Transfer({ ...base, nonce: 1 });
    const b = await signErc20Transfer({ ...base, nonce: 2 });
    expect(a.hash).not.toBe(b.hash);
  });

  it("rejects invalid input", async () => {
    const base = {
      privateKey: SANDBOX_HOT_WALLET_KEY,
      chainId: 1,
      token: polygonUsdt(),
      to: RECIPIENT,
      amount: 1n,
      nonce: 0,
    };
    await expect(signErc20Transfer({ ...base, amount: 0n })).rejects.toThrow(/amount/);
    await expect(signErc20Transfer({ ...base, amount: 2n ** 256n })).rejects.toThrow(/amount/);
    await expect(signErc20Transfer({ ...base, nonce: -1 })).rejects.toThrow(/nonce/);
    await expect(signErc20Transfer({ ...base, nonce: 1.5 })).rejects.toThrow(/nonce/);
    await expect(signErc20Transfer({ ...base, chainId: 0 })).rejects.toThrow(/chainId/);
    await expect(signErc20Transfer({ ...base, to: "0x1234" })).rejects.toThrow(/recipient/);
    await expect(signErc20Transfer({ ...base, token: "0xnothex" })).rejects.toThrow(/token/);
    await expect(signErc20Transfer({ ...base, maxFeePerGas: 1n, maxPriorityFeePerGas: 2n })).rejects.toThrow(
      /maxPriorityFeePerGas/,
    );
  });
});
