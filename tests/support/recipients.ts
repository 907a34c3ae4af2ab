import { randomInt } from "node:crypto";
import { expect } from "vitest";
import { db } from "@/db";
import { recipients, type Recipient } from "@/db/schema";
import { recipientLedgerSum, recipientOf } from "@/lib/recipients/ledger";

// Recipients written straight into their table, for tests of what uses them (splits); the recipients
// API is tested on its own.

/** A random CPF with valid check digits (the table is unique per merchant and document). */
export function randomCpf(): string {
  const d = Array.from({ length: 9 }, () => randomInt(10));
  for (const len of [9, 10]) {
    const sum = d.slice(0, len).reduce((a, n, i) => a + n * (len + 1 - i), 0);
    const r = (sum * 10) % 11;
    d.push(r === 10 ? 0 : r);
  }
  return d.join("");
}

export async function seedRecipient(merchantId: string, name = "Ana Vendedora"): Promise<Recipient> {
  const [r] = await db()
    .insert(recipients)
    .values({ merchantId, name, document: randomCpf(), pixKey: `${randomInt(1e9)}@example.com`, pixKeyType: "email" })
    .returning();
  return r;
}

/** The recipient's balance equals its ledger sum; returns it. */
export async function recipientBalanceMatchesLedger(merchantId: string, recipientId: string): Promise<number> {
  const row = await recipientOf(db(), merchantId, recipientId);
  expect(row).not.toBeNull();
  expect(row!.balanceCentavos).toBe(await recipientLedgerSum(db(), recipientId));
  return row!.balanceCentavos;
}
