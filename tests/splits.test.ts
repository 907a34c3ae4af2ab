import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { recipients } from "@/db/schema";
import { postRecipientEntry, recipientLedgerSum, recipientOf } from "@/lib/recipients/ledger";
import { seedMerchant } from "./helpers";

async function seedRecipient(merchantId: string) {
  const [r] = await db()
    .insert(recipients)
    .values({ merchantId, name: "Ana", document: "52998224725", pixKey: "ana@example.com", pixKeyType: "email" })
    .returning();
  return r;
}

describe("recipients' ledger accounts", () => {
  it("credits a split part once, and its balance equals its ledger sum", async () => {
    const { merchant } = await seedMerchant();
    const r = await seedRecipient(merchant.id);
    const part = randomUUID();
    const post = (amount: number, kind = "split_credit", ref = part) =>
      db().transaction((tx) =>
        postRecipientEntry(tx, {
          merchantId: merchant.id,
          recipientId: r.id,
          kind,
          amountCentavos: amount,
          refType: "order_split",
          refId: ref,
        }),
      );
    const [a, b] = await Promise.all([post(1234), post(1234)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await post(-2000, "split_refund", randomUUID())).toBe(true);
    const row = await recipientOf(db(), merchant.id, r.id);
    expect(row?.balanceCentavos).toBe(1234 - 2000); // may go negative after a refund
    expect(await recipientLedgerSum(db(), r.id)).toBe(row?.balanceCentavos);
  });

  it("answers another merchant's recipient like an unknown one", async () => {
    const { merchant } = await seedMerchant();
    const { merchant: other } = await seedMerchant();
    const r = await seedRecipient(merchant.id);
    expect(await recipientOf(db(), other.id, r.id)).toBeNull();
    expect(await recipientOf(db(), merchant.id, randomUUID())).toBeNull();
  });
});
