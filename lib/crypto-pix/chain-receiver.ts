import { db } from "@/db";
import type { TransferReceiver } from "@/lib/chain-watcher/receiver";
import { env } from "@/lib/env";
import { watchedPayments } from "./queries";
import { applyCryptoPixTransfer, followUpTransfer, recordStrayPayment } from "./service";

/** Crypto-PIX payments, as the deposit watcher sees them: paid in full, the PIX is sent. */
export const cryptoPixReceiver: TransferReceiver = {
  kind: "crypto_pix",
  targets: (network) => watchedPayments(db(), network, env().CHAIN_LATE_WINDOW_SECONDS),
  async apply(id, transfer) {
    const result = await applyCryptoPixTransfer(id, transfer);
    if (!result.duplicate) await followUpTransfer(id, result.payoutId);
    return !result.duplicate;
  },
  recordStray: recordStrayPayment,
};
