import { expect } from "vitest";
import { db } from "@/db";
import { balanceOf, ledgerSum } from "@/lib/ledger/ledger";

/** The balance a merchant is shown equals the sum of its ledger; returns it. */
export async function balanceMatchesLedger(merchantId: string): Promise<number> {
  const shown = await balanceOf(db(), merchantId);
  expect(shown).toBe(await ledgerSum(db(), merchantId));
  return shown;
}
