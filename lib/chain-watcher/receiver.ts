import type { Network } from "@/lib/chain/tokens";
import type { IncomingTransfer } from "@/lib/chain/transfers";

// What the watcher hands transfers to: each kind of object that owns deposit addresses (on-chain
// orders, Crypto-PIX payments) registers one, so the watcher knows nothing of their rules.

export type DepositTarget = { id: string; address: string; tokenAddress: string; decimals: number };

/** Money that reached one of our addresses but is not what the address waits for. */
export type StrayReason = "wrong_token" | "wrong_network";

export type TransferReceiver = {
  readonly kind: string;
  /**
   * Addresses on `network` that money may still arrive at: open objects, and those closed within
   * CHAIN_LATE_WINDOW_SECONDS, so a late or extra transfer is recorded rather than never seen.
   */
  targets(network: Network): Promise<DepositTarget[]>;
  /** Applies one confirmed transfer to the object `id`; false when it had been applied before. */
  apply(id: string, transfer: IncomingTransfer): Promise<boolean>;
  /**
   * Records a transfer to the object's address of another token, or on another network than the one
   * it waits on: never applied, shown to the merchant. False when it had been recorded before.
   */
  recordStray(id: string, transfer: IncomingTransfer, reason: StrayReason): Promise<boolean>;
};
