import type { MessageKey, Vars } from "@/lib/i18n";
import { brlNumberToCentavos, serviceFeeCentavos, tokensForWithdrawal } from "@/lib/money";
import { parseDecimalInput } from "@/lib/forms/form";

// The breakdown a withdrawal form shows before submitting, computed the way the service will
// compute it (same fee function, same rounding). It is a preview: the service decides under lock.

export type PreviewInput =
  | { kind: "pix_out"; value: string }
  | {
      kind: "onchain";
      value: string;
      networkFeeCentavos: number;
      rate: string | undefined;
      decimals: number | undefined;
    };

export type PreviewLimits = { balanceCentavos: number; perTransaction: number; remainingToday: number };

export type Preview = {
  valueCentavos: number;
  serviceFeeCentavos: number;
  networkFeeCentavos: number;
  debitCentavos: number;
  tokens: string | null;
  problems: { key: MessageKey; vars: Vars }[];
};

/** null when the amount is not a valid BRL amount (> 0, at most 2 decimals). */
export function previewWithdrawal(
  input: PreviewInput,
  limits: PreviewLimits,
  money: (centavos: number) => string,
): Preview | null {
  const centavos = brlNumberToCentavos(parseDecimalInput(input.value));
  if (centavos === null || centavos <= 0) return null;
  const serviceFee = input.kind === "onchain" ? serviceFeeCentavos(centavos) : 0;
  const networkFee = input.kind === "onchain" ? input.networkFeeCentavos : 0;
  const debit = centavos + serviceFee + networkFee;
  const tokens =
    input.kind === "onchain" && input.rate && input.decimals !== undefined
      ? tokensForWithdrawal(centavos, input.rate, input.decimals)
      : null;
  const problems: Preview["problems"] = [];
  if (centavos > limits.perTransaction)
    problems.push({ key: "withdrawals.overPerTransaction", vars: { limit: money(limits.perTransaction) } });
  if (centavos > limits.remainingToday)
    problems.push({ key: "withdrawals.overDaily", vars: { left: money(limits.remainingToday) } });
  if (debit > limits.balanceCentavos)
    problems.push({
      key: "withdrawals.overBalance",
      vars: { needed: money(debit), balance: money(limits.balanceCentavos) },
    });
  return {
    valueCentavos: centavos,
    serviceFeeCentavos: serviceFee,
    networkFeeCentavos: networkFee,
    debitCentavos: debit,
    tokens,
    problems,
  };
}
