// Every dashboard action that moves money out of a merchant's balance (or out of what the merchant could
// take into it: unapplied on-chain funds returned), in one list. An action names
// its entry through merchantAction's `moneyMove` option (lib/dashboard/server/merchant-action.ts),
// which makes it ask for a fresh second factor and wait out its user's factor-change hold.
// docs/security.md lists the same moves; money-moves.test.ts checks that every dashboard action that
// calls a money-moving service declares one.

export const MONEY_MOVES = [
  "withdrawal.pix",
  "withdrawal.onchain",
  "refund",
  "unapplied.return",
  "recipient.payout",
] as const;
export type MoneyMove = (typeof MONEY_MOVES)[number];
