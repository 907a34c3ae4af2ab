import type { QuotedSymbol } from "../rates/types";

/**
 * What a provider says an account of ours holds (the solvency report's asset lines): reais in
 * centavos, or an amount of a quoted asset as an exact decimal string (valued in BRL by the report).
 */
export type HeldBalance = { currency: "BRL"; centavos: number } | { currency: QuotedSymbol; amount: string };
