import type { Tx } from "@/db";
import { log } from "@/lib/log";
import { toBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { Network } from "@/lib/chain/tokens";
import { reserveNonce } from "@/lib/chain/nonces";

/**
 * Signs a token transfer from the hot wallet inside the caller's transaction (so the nonce and the
 * record of the send commit together). The caller broadcasts after commit with `broadcastSigned`.
 */
export async function signHotWalletTransfer(tx: Tx, args: { network: Network; tokenAddress: string; decimals: number; to: string; amount: string }) {
  const chain = providers().chain;
  const nonce = await reserveNonce(tx, chain.nonceScope(args.network), chain.hotWalletAddress(args.network), () => chain.pendingNonce(args.network));
  const signed = await chain.signTransfer({
    network: args.network,
    token: args.tokenAddress as `0x${string}`,
    to: args.to as `0x${string}`,
    amount: toBaseUnits(args.amount, args.decimals),
    nonce,
  });
  return { ...signed, nonce };
}

/**
 * Sends a signed transaction after its record committed. It never throws: the record is already
 * there, so a node that is down must not turn a done withdrawal into an error; the withdrawal job
 * sends it again (processWithdrawal) while the node has not seen it.
 */
export async function broadcastSigned(network: Network, rawTransaction: string): Promise<boolean> {
  try {
    await providers().chain.broadcast(network, rawTransaction);
    return true;
  } catch (err) {
    log.warn("broadcast failed; it will be retried", { network, err });
    return false;
  }
}
