import { describe, expect, it } from "vitest";
import { previewWithdrawal } from "./withdrawal-preview";

const limits = { balanceCentavos: 100_000, perTransaction: 500_000, remainingToday: 1_000_000 };
const money = (c: number) => `R$${(c / 100).toFixed(2)}`;

describe("previewWithdrawal", () => {
  it("charges 0.5% rounded up plus the network fee on-chain", () => {
    const p = previewWithdrawal(
      { kind: "onchain", value: "100,01", networkFeeCentavos: 5, rate: "5.40", decimals: 6 },
      limits,
      money,
    )!;
    expect(p.valueCentavos).toBe(10001);
    expect(p.serviceFeeCentavos).toBe(51); // 50.005 → 51
    expect(p.debitCentavos).toBe(10001 + 51 + 5);
    expect(p.tokens).toBe("18.52037"); // 100.01 / 5.40 = 18.5203703…, rounded down to 6 decimals
    expect(p.problems).toEqual([]);
  });

  it("has no fee for PIX and names every limit that would be passed", () => {
    const p = previewWithdrawal(
      { kind: "pix_out", value: "6.000,00" },
      { balanceCentavos: 1000, perTransaction: 500_000, remainingToday: 100_000 },
      money,
    )!;
    expect(p.debitCentavos).toBe(600_000);
    expect(p.problems.map((x) => x.key)).toEqual([
      "withdrawals.overPerTransaction",
      "withdrawals.overDaily",
      "withdrawals.overBalance",
    ]);
    expect(p.problems[1].vars).toEqual({ left: "R$1000.00" });
    // The balance is said beside what the withdrawal needs, as the service's own refusal says it.
    expect(p.problems[2].vars).toEqual({ needed: "R$6000.00", balance: "R$10.00" });
  });

  it.each(["", "abc", "0", "10,001"])("is null for %j", (value) => {
    expect(previewWithdrawal({ kind: "pix_out", value }, limits, money)).toBeNull();
  });
});
