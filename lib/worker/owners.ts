import { cryptoPixPayoutMayStart } from "@/lib/crypto-pix/lightning";
import { onRefundChainTx } from "@/lib/crypto-pix/refunds";
import { onCryptoPixPayout } from "@/lib/crypto-pix/service";
import type { ChainTxOwners } from "@/lib/hot-wallet/tracker";
import { onUnappliedReturnChainTx } from "@/lib/onchain/unapplied";
import type { PayoutGuards, PayoutOwners } from "@/lib/pix-payouts/machine";
import { onRecipientPayout } from "@/lib/recipients/payouts";
import { onWithdrawalChainTx, onWithdrawalPayout } from "@/lib/withdrawals/service";

// Who finishes what when money that left is decided: the worker's jobs and an operator's decision
// (lib/worker/operator.ts) hand a decision to the same owners.

/** Who finishes what when a hot-wallet transaction is decided. */
export const CHAIN_TX_OWNERS: ChainTxOwners = {
  withdrawal: onWithdrawalChainTx,
  // A refund is a Crypto-PIX payer's crypto, or an on-chain order's unapplied funds the merchant returned.
  refund: (tx, chainTx, decision) =>
    (chainTx.ownerKind === "unapplied_return" ? onUnappliedReturnChainTx : onRefundChainTx)(tx, chainTx, decision),
};
/** Who finishes what when a PIX payout is decided. */
export const PAYOUT_OWNERS: PayoutOwners = {
  withdrawal: onWithdrawalPayout,
  crypto_pix: onCryptoPixPayout,
  recipient_payout: onRecipientPayout,
};
/** What must still hold before a PIX payout is first sent. */
export const PAYOUT_GUARDS: PayoutGuards = { crypto_pix: cryptoPixPayoutMayStart };
