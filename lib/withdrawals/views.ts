import type { Withdrawal } from "@/db/schema";
import { centavosToBrl, cryptoToNumber } from "@/lib/money";
import { maskPixKey } from "@/lib/pix/keys";
import type { Asset } from "@/lib/chain/tokens";
import type { WithdrawalView } from "./schemas";

/** Both withdrawal kinds; network and token are text columns written only after resolveToken accepted them. */
export function withdrawalView(w: Withdrawal): WithdrawalView {
  return {
    id: w.id,
    type: w.kind,
    status: w.status,
    value: centavosToBrl(w.valueCentavos),
    amount: w.valueCentavos,
    fees: {
      service: centavosToBrl(w.serviceFeeCentavos),
      network: centavosToBrl(w.networkFeeCentavos),
    },
    totalDebited: centavosToBrl(w.debitCentavos),
    ...(w.kind === "onchain"
      ? {
          network: w.network as WithdrawalView["network"],
          token: w.token as Asset,
          toAddress: w.toAddress!,
          tokenAmount: cryptoToNumber(w.tokenAmount!),
          // None yet while it waits for its destination (./release.ts makes the transaction).
          ...(w.txHash ? { transactionHash: w.txHash } : {}),
        }
      : { pixKey: maskPixKey(w.pixKey!) }),
    ...(w.failureReason ? { failureReason: w.failureReason } : {}),
    ...(w.waitingReason && w.status === "PENDING" ? { waitingReason: w.waitingReason } : {}),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    ...(w.completedAt ? { completedAt: w.completedAt.toISOString() } : {}),
    metadata: w.metadata,
  };
}
