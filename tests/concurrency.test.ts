import { describe, expect, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { db } from "@/db";
import { hotWalletNonces, withdrawals } from "@/db/schema";
import { balanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { toBaseUnits } from "@/lib/money";
import { tokenFor, CHAIN_IDS } from "@/lib/chain/tokens";
import { signErc20Transfer } from "@/lib/chain/sign";
import { SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { api, seedMerchant, type CallResult } from "./helpers";

const WITHDRAW = "/api/v1/onchain/withdraw/initiate";
const PIX_OUT = "/api/v1/order/pix-out";
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

async function storedBalance(merchantId: string): Promise<number> {
  return balanceOf(db(), merchantId);
}

describe("concurrent withdrawals", () => {
  it("50 at once (pix-out and on-chain) against a balance for 17: exactly 17 accepted, never overdrawn, ledger consistent", async () => {
    // Every request debits the same 10,080 centavos: a pix-out of 10,080, or an on-chain R$ 100.00 on bsc
    // (10,000 + 50 service fee + 30 network fee). The balance covers 17 of them with 5,000 to spare.
    const DEBIT = 10_080;
    const opening = 17 * DEBIT + 5_000;
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: opening });

    const requests = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? api("POST", PIX_OUT, { apiKey, body: { value: DEBIT } })
        : api("POST", WITHDRAW, {
            apiKey,
            authHeader: i % 4 === 1 ? "bearer" : "authorization",
            body: { toAddress: TO, value: 100, network: "bsc" },
          }),
    );
    const results: CallResult[] = await Promise.all(requests);

    const accepted = results.filter((r) => r.status === 200 || r.status === 201);
    const refused = results.filter((r) => r.status === 400);
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(accepted).toHaveLength(17);
    expect(refused).toHaveLength(33);
    for (const r of refused) expect(r.body.message).toContain("Insufficient balance");

    const rows = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    expect(rows).toHaveLength(17);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(accepted.map((r) => r.body.id)));
    const debited = rows.reduce((s, r) => s + r.debitCentavos, 0);
    expect(debited).toBe(17 * DEBIT);

    const after = await storedBalance(merchant.id);
    expect(after).toBe(5_000);
    expect(after).toBeGreaterThanOrEqual(0);
    expect(opening - after).toBe(debited);
    expect(await ledgerSum(db(), merchant.id)).toBe(after);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBe(5_000);
  });

  it("50 at once of mixed sizes: the balance never goes negative and debits match the drop exactly", async () => {
    const opening = 250_000;
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: opening });
    // What each request would debit: on-chain value + ceil(0.5%) + network fee (bsc 30, polygon 5); pix-out its value.
    const plan = Array.from({ length: 50 }, (_, i) => {
      if (i % 3 !== 0) return { kind: "pix" as const, value: 3_001 + 97 * i, debit: 3_001 + 97 * i };
      const centavos = 5_731 + 100 * i;
      const network = i % 2 ? "bsc" : "polygon";
      return {
        kind: "onchain" as const,
        value: centavos / 100,
        network,
        debit: centavos + Math.ceil(centavos / 200) + (network === "bsc" ? 30 : 5),
      };
    });
    const results = await Promise.all(
      plan.map((p) =>
        p.kind === "onchain"
          ? api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: p.value, network: p.network } })
          : api("POST", PIX_OUT, { apiKey, body: { value: p.value } }),
      ),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    const accepted = results.filter((r) => r.status < 300);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThan(50);
    const rows = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    expect(rows).toHaveLength(accepted.length);
    const debited = rows.reduce((s, r) => s + r.debitCentavos, 0);
    const after = await storedBalance(merchant.id);
    expect(after).toBeGreaterThanOrEqual(0);
    expect(opening - after).toBe(debited);
    expect(await ledgerSum(db(), merchant.id)).toBe(after);
    // Every refusal was a real one: a refused debit cannot fit even in what is left at the end.
    results.forEach((r, i) => {
      if (r.status === 400) {
        expect(r.body.message).toContain("Insufficient balance");
        expect(plan[i].debit).toBeGreaterThan(after);
      } else {
        expect(rows.find((w) => w.id === r.body.id)?.debitCentavos).toBe(plan[i].debit);
      }
    });
  });

  it("50 at once against the standard daily limit: the R$ 10,000 day is never passed", async () => {
    // R$ 300 each (pix-out 30,000 centavos, or on-chain value 300.00): 33 fit in 10,000, the 34th does not.
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 5_000_000 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0
          ? api("POST", PIX_OUT, { apiKey, body: { value: 30_000 } })
          : api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 300, network: "polygon" } }),
      ),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    const accepted = results.filter((r) => r.status < 300);
    expect(accepted).toHaveLength(33);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.message).toContain("Daily withdrawal limit");

    const [{ used }] = await db()
      .select({ used: sql<string>`sum(${withdrawals.valueCentavos})` })
      .from(withdrawals)
      .where(eq(withdrawals.merchantId, merchant.id));
    expect(Number(used)).toBe(990_000);
    const rows = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    const after = await storedBalance(merchant.id);
    expect(5_000_000 - after).toBe(rows.reduce((s, r) => s + r.debitCentavos, 0));
    expect(await ledgerSum(db(), merchant.id)).toBe(after);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.withdrawalLimits).toMatchObject({ usedToday: 9900, remainingToday: 100 });
  });

  it("20 concurrent on-chain withdrawals get 20 distinct, consecutive nonces", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_000 });
    const nonceRow = async () =>
      (await db().select().from(hotWalletNonces).where(eq(hotWalletNonces.network, "bsc")))[0];
    const before = (await nonceRow())?.nextNonce ?? 0;

    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 10, network: "bsc" } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const hashes = results.map((r) => r.body.transactionHash as string);
    expect(new Set(hashes).size).toBe(20);
    expect((await nonceRow()).nextNonce).toBe(before + 20);

    // The sandbox signs deterministically: the 20 hashes are exactly those of nonces before … before+19.
    const token = tokenFor("bsc", "USDT")!;
    const rows = await db()
      .select()
      .from(withdrawals)
      .where(
        inArray(
          withdrawals.id,
          results.map((r) => r.body.id),
        ),
      );
    expect(new Set(rows.map((r) => r.tokenAmount))).toEqual(new Set(["1.851851851851851851"]));
    const expected = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        signErc20Transfer({
          privateKey: SANDBOX_HOT_WALLET_KEY,
          chainId: CHAIN_IDS.bsc,
          token: token.address,
          to: TO,
          amount: toBaseUnits("1.851851851851851851", token.decimals),
          nonce: before + k,
        }).then((s) => s.hash),
      ),
    );
    expect(new Set(hashes)).toEqual(new Set(expected));
    // 20 × (1000 + 5 + 30)
    expect(await storedBalance(merchant.id)).toBe(1_000_000 - 20 * 1_035);
  });
});
