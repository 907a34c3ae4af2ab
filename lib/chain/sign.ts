import { encodeFunctionData, erc20Abi, isAddress, keccak256, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";

// Signing an ERC-20 transfer locally: keys never leave the process, transactions go out raw.

// A plain ERC-20 transfer costs ~35-55k gas (more when the recipient's balance slot is fresh).
const DEFAULT_GAS = 65_000n;
// Sandbox transactions are never broadcast, so fees only need to be plausible and consistent
// (priority fee ≤ max fee); live mode must price from the chain instead.
export const SANDBOX_FEES = { maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("2") } as const;
const DEFAULT_MAX_FEE_PER_GAS = SANDBOX_FEES.maxFeePerGas;
const DEFAULT_MAX_PRIORITY_FEE_PER_GAS = SANDBOX_FEES.maxPriorityFeePerGas;
const MAX_UINT256 = 2n ** 256n - 1n;

export type SignErc20TransferArgs = {
  privateKey: `0x${string}`;
  chainId: number;
  token: `0x${string}`;
  to: `0x${string}`;
  amount: bigint;
  nonce: number;
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
};

export async function signErc20Transfer(
  args: SignErc20TransferArgs,
): Promise<{ rawTransaction: `0x${string}`; hash: `0x${string}` }> {
  const { chainId, token, to, amount, nonce } = args;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new Error(`chainId must be a positive integer, got ${String(chainId)}`);
  }
  if (!isAddress(token)) throw new Error(`token is not a valid address: ${token}`);
  if (!isAddress(to)) throw new Error(`recipient is not a valid address: ${to}`);
  if (amount <= 0n || amount > MAX_UINT256) {
    throw new Error(`amount must be a positive uint256, got ${amount.toString()}`);
  }
  if (!Number.isSafeInteger(nonce) || nonce < 0) {
    throw new Error(`nonce must be a non-negative integer, got ${String(nonce)}`);
  }
  const gas = args.gas ?? DEFAULT_GAS;
  const maxFeePerGas = args.maxFeePerGas ?? DEFAULT_MAX_FEE_PER_GAS;
  const maxPriorityFeePerGas = args.maxPriorityFeePerGas ?? DEFAULT_MAX_PRIORITY_FEE_PER_GAS;
  if (gas <= 0n) throw new Error("gas must be positive");
  if (maxPriorityFeePerGas < 0n || maxFeePerGas < maxPriorityFeePerGas) {
    throw new Error("fees must satisfy 0 ≤ maxPriorityFeePerGas ≤ maxFeePerGas");
  }

  const account = privateKeyToAccount(args.privateKey);
  const rawTransaction = await account.signTransaction({
    type: "eip1559",
    chainId,
    nonce,
    to: token,
    value: 0n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] }),
    gas,
    maxFeePerGas,
    maxPriorityFeePerGas,
  });
  // The hash of a signed typed transaction is keccak256 of its full serialized bytes,
  // which is exactly what block explorers and eth_getTransactionByHash use.
  return { rawTransaction, hash: keccak256(rawTransaction) };
}

// A plain value transfer between accounts costs exactly 21,000 gas.
const PLAIN_TRANSFER_GAS = 21_000n;

type PlainTransferArgs = {
  privateKey: `0x${string}`;
  chainId: number;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
};

/** A transfer of `value` wei of the native coin, with no data, to `to` or to the key's own account. */
async function signPlainTransfer(
  args: PlainTransferArgs,
  to: `0x${string}` | "self",
  value: bigint,
): Promise<{ rawTransaction: `0x${string}`; hash: `0x${string}` }> {
  if (!Number.isSafeInteger(args.chainId) || args.chainId <= 0)
    throw new Error(`chainId must be a positive integer, got ${String(args.chainId)}`);
  if (!Number.isSafeInteger(args.nonce) || args.nonce < 0)
    throw new Error(`nonce must be a non-negative integer, got ${String(args.nonce)}`);
  if (args.maxPriorityFeePerGas < 0n || args.maxFeePerGas < args.maxPriorityFeePerGas) {
    throw new Error("fees must satisfy 0 ≤ maxPriorityFeePerGas ≤ maxFeePerGas");
  }
  const account = privateKeyToAccount(args.privateKey);
  const rawTransaction = await account.signTransaction({
    type: "eip1559",
    chainId: args.chainId,
    nonce: args.nonce,
    to: to === "self" ? account.address : to,
    value,
    gas: PLAIN_TRANSFER_GAS,
    maxFeePerGas: args.maxFeePerGas,
    maxPriorityFeePerGas: args.maxPriorityFeePerGas,
  });
  return { rawTransaction, hash: keccak256(rawTransaction) };
}

/**
 * A zero-value transfer from the key's account to itself at `nonce`: mined, it uses the nonce and
 * does nothing else, which is how a stuck transaction is cancelled or a nonce gap filled.
 */
export async function signSelfTransfer(
  args: PlainTransferArgs,
): Promise<{ rawTransaction: `0x${string}`; hash: `0x${string}` }> {
  return signPlainTransfer(args, "self", 0n);
}

/** A plain transfer of `value` wei of the native coin to `to` (gas for a deposit address about to be swept). */
export async function signValueTransfer(
  args: PlainTransferArgs & { to: `0x${string}`; value: bigint },
): Promise<{ rawTransaction: `0x${string}`; hash: `0x${string}` }> {
  if (!isAddress(args.to)) throw new Error(`recipient is not a valid address: ${args.to}`);
  if (args.value <= 0n || args.value > MAX_UINT256)
    throw new Error(`value must be a positive uint256, got ${args.value.toString()}`);
  return signPlainTransfer(args, args.to, args.value);
}
