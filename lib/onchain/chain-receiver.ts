import type { TransferReceiver } from "@/lib/chain-watcher/receiver";
import { db } from "@/db";
import { env } from "@/lib/env";
import { watchedDeposits } from "./queries";
import { applyDepositTransfer, recordStrayDeposit } from "./service";

/** On-chain deposit orders, as the deposit watcher sees them. */
export const depositReceiver: TransferReceiver = {
  kind: "onchain_order",
  targets: (network) => watchedDeposits(db(), network, env().CHAIN_LATE_WINDOW_SECONDS),
  async apply(id, transfer) {
    return !(await applyDepositTransfer(id, transfer)).duplicate;
  },
  recordStray: recordStrayDeposit,
};
