import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { merchants, unfoldedCredits, withdrawals } from "@/db/schema";
import { balanceOf, foldBalances, ledgerSum, lockBalance } from "@/lib/ledger/ledger";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { api, seedMerchant } from "./helpers";

// A busy merchant does not queue (docs/architecture.md#invariants-and-what-enforces-them): its credits never wait on its balance row, only
// its debits serialise there, and the balance shown equals the ledger sum at every moment.

const PIX_OUT = "/api/v1/order/pix-out";

async function createPix(apiKey: string, value: number): Promise<string> {
  const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.pixOrder._id;
}

/** The shown balance and the ledger sum read in one snapshot: what "at every moment" means. */
async function sameMoment(merchantId: string): Promise<{ shown: number; ledger: number }> {
  return db().transaction(
    async (tx) => ({ shown: await balanceOf(tx, merchantId), ledger: await ledgerSum(tx, merchantId) }),
    {
      isolationLevel: "repeatable read",
      accessMode: "read only",
    },
  );
}

/** Rejects when `work` is not done within `ms`: a credit that waited on a lock would be. */
function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} still waiting after ${ms} ms`)), ms)),
  ]);
}

describe("credits and debits of one merchant at once", () => {
  it("a debit holding the merchant's balance lock: payments and new orders still go through, and the debit sees them after", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000 });
    const orderIds = await Promise.all([createPix(apiKey, 10), createPix(apiKey, 20), createPix(apiKey, 30)]);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // A debit in progress: the merchant row locked by lockBalance until its transaction ends.
    const debit = db().transaction(async (tx) => {
      expect(await lockBalance(tx, merchant.id)).toBe(1_000);
      locked();
      await released;
    });
    await isLocked;
    try {
      const paid = await within(
        5_000,
        "sandbox pay",
        Promise.all(orderIds.map((id) => api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey }))),
      );
      expect(paid.map((r) => r.status)).toEqual([200, 200, 200]);
      await within(5_000, "create-PIX", createPix(apiKey, 40));
      // Shown at once, though the row is still locked.
      expect(await within(5_000, "balance read", balanceOf(db(), merchant.id))).toBe(1_000 + 6_000);
    } finally {
      release();
      await debit;
    }
    // A debit after them counts them: 7,000 is there to take.
    const out = await api("POST", PIX_OUT, { apiKey, body: { value: 7_000 } });
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    expect(await sameMoment(merchant.id)).toEqual({ shown: 0, ledger: 0 });
  });

  it("60 payments, 40 pix-outs (some failing and credited back) and folds at once: shown balance == ledger sum in every snapshot, never overdrawn", async () => {
    const opening = 50_000;
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: opening, accountType: "business" });
    const values = Array.from({ length: 60 }, (_, i) => 5 + (i % 7)); // BRL
    const orderIds = await Promise.all(values.map((v) => createPix(apiKey, v)));

    let working = true;
    const samples: { shown: number; ledger: number }[] = [];
    // Four readers at random moments, each snapshot compared within itself.
    const samplers = Array.from({ length: 4 }, async () => {
      while (working) {
        samples.push(await sameMoment(merchant.id));
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      }
    });
    const folder = (async () => {
      while (working) {
        await foldBalances();
        await new Promise((r) => setTimeout(r, Math.random() * 20));
      }
    })();

    const pays = orderIds.map((id) => api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey }));
    const outs = Array.from({ length: 40 }, (_, i) =>
      api("POST", PIX_OUT, {
        apiKey,
        body: { value: 1_500 + 37 * i, ...(i % 5 === 0 ? { pixKey: "payout.fail@example.com" } : {}) },
      }),
    );
    const [paid, out] = await Promise.all([Promise.all(pays), Promise.all(outs)]);
    const accepted = out.filter((r) => r.status === 201);
    await Promise.all(accepted.map((r) => processWithdrawal(r.body.id)));
    working = false;
    await Promise.all([...samplers, folder]);

    expect(paid.map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(out.filter((r) => r.status !== 201 && r.status !== 400)).toEqual([]);
    for (const r of out.filter((x) => x.status === 400)) expect(r.body.message).toContain("Insufficient balance");
    expect(accepted.length).toBeGreaterThan(20);
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.filter((s) => s.shown !== s.ledger)).toEqual([]);
    expect(samples.every((s) => s.shown >= 0)).toBe(true);

    const rows = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    const kept = rows.filter((w) => w.status === "COMPLETED").reduce((s, w) => s + w.debitCentavos, 0);
    expect(rows.filter((w) => w.status === "FAILED").length).toBeGreaterThan(0);
    const credited = values.reduce((s, v) => s + v * 100, 0);
    expect(await sameMoment(merchant.id)).toEqual({
      shown: opening + credited - kept,
      ledger: opening + credited - kept,
    });

    // Folding everything leaves the same balance, all of it in the merchant row.
    await foldBalances();
    expect(await db().select().from(unfoldedCredits).where(eq(unfoldedCredits.merchantId, merchant.id))).toEqual([]);
    const [row] = await db()
      .select({ folded: merchants.balanceCentavos })
      .from(merchants)
      .where(eq(merchants.id, merchant.id));
    expect(row.folded).toBe(opening + credited - kept);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBe(opening + credited - kept);
    const [{ n }] = await db().execute<{ n: number }>(
      sql`select count(*)::int as n from merchants where balance_centavos < 0`,
    );
    expect(n).toBe(0);
  });
});
