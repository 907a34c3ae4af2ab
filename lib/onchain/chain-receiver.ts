import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { db } from "@/db";
import { onchainOrders } from "@/db/schema";
import type { TransferReceiver } from "@/lib/chain-watcher/receiver";
import { env } from "@/lib/env";
import { applyDepositTransfer } from "./service";

/** On-chain deposit orders, as the deposit watcher sees them. */
export const depositReceiver: TransferReceiver = {
  kind: "onchain_order",
  targets(network) {
    const since = sql`now() - make_interval(secs => ${env().CHAIN_LATE_WINDOW_SECONDS})`;
    return db()
      .select({ id: onchainOrders.id, address: onchainOrders.address, tokenAddress: onchainOrders.tokenAddress, decimals: onchainOrders.tokenDecimals })
      .from(onchainOrders)
      .where(and(eq(onchainOrders.network, network), or(isNull(onchainOrders.closedAt), gt(onchainOrders.closedAt, since))));
  },
  async apply(id, transfer) {
    return !(await applyDepositTransfer(id, transfer)).duplicate;
  },
};
