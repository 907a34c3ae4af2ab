import { z } from "zod";
import { parseDecimalInput } from "@/lib/forms/form";

// The order form's split parts: rows of fields named split-<n>-recipientId, split-<n>-mode
// ("value" | "percentage") and split-<n>-amount, turned into the API's `splits` array before the
// create endpoint's own schema judges the body. Each row's mistakes are reported on that row's
// field (a recipient not picked, picked twice, an amount missing or malformed, a percentage out of
// range) so the form shows them beside the input; sums and recipients are the service's to refuse.

export const SPLIT_FIELD = /^split-(\d+)-(recipientId|mode|amount)$/;
export const splitField = (n: number, f: "recipientId" | "mode" | "amount") => `split-${n}-${f}`;

export type SplitRow = { n: number; recipientId?: string; mode?: string; amount?: string };

/** The rows a submitted form carries (blank rows dropped), and its other fields. */
export function takeSplitRows(input: Record<string, unknown>): { rest: Record<string, unknown>; rows: SplitRow[] } {
  const rest: Record<string, unknown> = {};
  const rows = new Map<number, SplitRow>();
  for (const [key, value] of Object.entries(input)) {
    const m = SPLIT_FIELD.exec(key);
    if (!m) {
      rest[key] = value;
      continue;
    }
    const n = Number(m[1]);
    const row = rows.get(n) ?? { n };
    row[m[2] as "recipientId" | "mode" | "amount"] = typeof value === "string" ? value.trim() : undefined;
    rows.set(n, row);
  }
  const filled = [...rows.values()].filter((r) => r.recipientId || r.amount).sort((a, b) => a.n - b.n);
  return { rest, rows: filled };
}

/** At most 2 decimals, as the API's BRL values and percentages have. */
const twoDecimals = (n: number) => Number.isFinite(n) && Math.abs(Math.round(n * 100) - n * 100) < 1e-6;

/** Wraps a create body's schema: the split rows become its `splits`, each row's mistakes its own field's. */
export function withSplitRows<S extends z.ZodType>(body: S) {
  return z.preprocess((input, ctx) => {
    if (!input || typeof input !== "object" || Array.isArray(input)) return input;
    const { rest, rows } = takeSplitRows(input as Record<string, unknown>);
    if (rows.length === 0) return rest;
    const seen = new Set<string>();
    // A row with a mistake is reported on its own field and left out, so the body's schema does not report it again.
    const splits = rows.flatMap((r) => {
      let ok = true;
      const issue = (field: "recipientId" | "amount", message: string) => {
        ok = false;
        ctx.addIssue({ code: "custom", path: [splitField(r.n, field)], message, input: r[field] });
      };
      if (!r.recipientId) issue("recipientId", "split.pickRequired");
      else if (seen.has(r.recipientId)) issue("recipientId", "split.duplicate");
      else seen.add(r.recipientId);
      const amount = r.amount ? parseDecimalInput(r.amount) : Number.NaN;
      const percentage = r.mode === "percentage";
      if (!r.amount) issue("amount", "split.amountRequired");
      else if (!twoDecimals(amount) || amount <= 0) issue("amount", "split.amountInvalid");
      else if (percentage && amount > 100) issue("amount", "split.percentageRange");
      if (!ok || !r.recipientId) return [];
      return [
        percentage ? { recipientId: r.recipientId, percentage: amount } : { recipientId: r.recipientId, value: amount },
      ];
    });
    return { ...rest, splits };
  }, body);
}
