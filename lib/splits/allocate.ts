// Payment splits: how an order's credited amount is shared between its recipients and the merchant
// of the order. Pure arithmetic on integer centavos; no database.
//
// Rounding rule:
//   - a `{ recipientId, percentage }` part is floor(min(credited, value) × percentage / 100) centavos;
//   - a `{ recipientId, value }` part is its value, or, when less than the order's value was accepted
//     (an on-chain underpayment), floor(value × accepted / orderValue) centavos — splits apply pro rata
//     to the BRL accepted, and an overpayment's excess goes to the merchant;
//   - the merchant gets the remainder, so parts + remainder == credited, exactly, always.
// The service fee is borne by the merchant's part: parts are computed on the order's gross credited
// amount and the fee is taken from the remainder (which may then be negative only if the parts are
// most of the value; creation refuses parts summing above the value, so the remainder before fee ≥ 0).
// Refunds take back from each part pro rata: floor(part × refunded / credited), rest from the merchant.

/** One requested part: a fixed amount (centavos) or a percentage in hundredths of a percent (1..10000). */
export type SplitSpec =
  { recipientId: string; valueCentavos: number } | { recipientId: string; percentageBasisPoints: number };

export type SplitRefusal =
  | { code: "SPLIT_DUPLICATE_RECIPIENT"; recipientId: string }
  | { code: "SPLIT_PERCENTAGE_OUT_OF_RANGE"; recipientId: string }
  | { code: "SPLIT_VALUE_NOT_POSITIVE"; recipientId: string }
  | { code: "SPLIT_SUM_ABOVE_VALUE" }
  | { code: "SPLIT_TOO_MANY"; max: number };

export const MAX_SPLITS = 20;

/** Checks a request's parts against the order's value (centavos); null when acceptable. */
export function validateSplits(specs: readonly SplitSpec[], orderCentavos: number): SplitRefusal | null {
  if (specs.length > MAX_SPLITS) return { code: "SPLIT_TOO_MANY", max: MAX_SPLITS };
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.recipientId)) return { code: "SPLIT_DUPLICATE_RECIPIENT", recipientId: s.recipientId };
    seen.add(s.recipientId);
    if ("percentageBasisPoints" in s) {
      const p = s.percentageBasisPoints;
      if (!Number.isInteger(p) || p <= 0 || p > 10_000)
        return { code: "SPLIT_PERCENTAGE_OUT_OF_RANGE", recipientId: s.recipientId };
    } else if (!Number.isInteger(s.valueCentavos) || s.valueCentavos <= 0) {
      return { code: "SPLIT_VALUE_NOT_POSITIVE", recipientId: s.recipientId };
    }
  }
  // Exactly: fixed parts / value + percentages ≤ 100%. Then floored parts never exceed any amount ≤ the value.
  const order = BigInt(orderCentavos);
  let share = 0n; // in units of 1 / (order × 10,000)
  for (const s of specs)
    share += "percentageBasisPoints" in s ? BigInt(s.percentageBasisPoints) * order : BigInt(s.valueCentavos) * 10_000n;
  if (share > order * 10_000n) return { code: "SPLIT_SUM_ABOVE_VALUE" };
  return null;
}

export type Allocation = { parts: { recipientId: string; centavos: number }[]; merchantCentavos: number };

/**
 * Shares `creditedCentavos` (what was accepted, in BRL centavos) of an order worth `orderCentavos`.
 * For validated specs the merchant's remainder is ≥ 0 and parts + remainder == creditedCentavos.
 */
export function allocate(specs: readonly SplitSpec[], orderCentavos: number, creditedCentavos: number): Allocation {
  const credited = BigInt(creditedCentavos);
  const order = BigInt(orderCentavos);
  const scale = credited < order ? credited : order; // what the parts are measured against
  const parts = specs.map((s) => {
    let c: bigint;
    // An overpayment's excess is the merchant's: percentages, like fixed parts, are of at most the value.
    if ("percentageBasisPoints" in s) c = (scale * BigInt(s.percentageBasisPoints)) / 10_000n;
    else c = order === 0n ? 0n : (BigInt(s.valueCentavos) * scale) / order;
    return { recipientId: s.recipientId, centavos: Number(c) };
  });
  const sum = parts.reduce((a, p) => a + p.centavos, 0);
  return { parts, merchantCentavos: creditedCentavos - sum };
}

/**
 * Takes `refundCentavos` back from parts credited earlier (`creditedCentavos` in all, incl. the
 * merchant's remainder): each part floor(part × refund / credited), the rest from the merchant.
 */
export function refundProRata(
  parts: readonly { recipientId: string; centavos: number }[],
  creditedCentavos: number,
  refundCentavos: number,
): Allocation {
  const credited = BigInt(creditedCentavos);
  const refund = BigInt(refundCentavos);
  const back = parts.map((p) => ({
    recipientId: p.recipientId,
    centavos: credited === 0n ? 0 : Number((BigInt(p.centavos) * refund) / credited),
  }));
  const sum = back.reduce((a, p) => a + p.centavos, 0);
  return { parts: back, merchantCentavos: refundCentavos - sum };
}
