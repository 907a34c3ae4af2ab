import { db } from "@/db";
import type { TransferReceiver } from "@/lib/chain-watcher/receiver";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { watchedPayments } from "./queries";
import { applyCryptoPixTransfer, settleCryptoPixPayment } from "./service";

/** Crypto-PIX payments, as the deposit watcher sees them: paid in full, the PIX is sent. */
export const cryptoPixReceiver: TransferReceiver = {
  kind: "crypto_pix",
  targets: (network) => watchedPayments(db(), network, env().CHAIN_LATE_WINDOW_SECONDS),
  async apply(id, transfer) {
    const result = await applyCryptoPixTransfer(id, transfer);
    if (result.fullyPaid) {
      // The payout is a call to the PIX provider: if it fails here, the sweep settles the payment
      // later (it looks for fully paid payments whose payout was never requested).
      await settleCryptoPixPayment(id).catch((err: unknown) => log.warn("crypto-pix settlement deferred to the sweep", { paymentId: id, err }));
    }
    return !result.duplicate;
  },
};
