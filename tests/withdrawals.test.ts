import { describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { db } from "@/db";
import { events, ledgerEntries, withdrawals } from "@/db/schema";
import { ledgerSum } from "@/lib/ledger/ledger";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { api, seedMerchant, specOf } from "./helpers";

const WITHDRAW = "/api/v1/onchain/withdraw/initiate";
const PIX_OUT = "/api/v1/order/pix-out";
// Hardhat test account #1: a valid EIP-55 address.
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const FAIL_KEY = "payout.fail@example.com";

async function balance(apiKey: string): Promise<number> {
  const res = await api("GET", "/api/v1/account", { apiKey });
  expect(res.status).toBe(200);
  return res.body.merchant.balance;
}

async function withdrawalRows(merchantId: string) {
  return db()
    .select()
    .from(withdrawals)
    .where(eq(withdrawals.merchantId, merchantId))
    .orderBy(asc(withdrawals.createdAt));
}

async function eventsFor(subjectId: string) {
  return db().select().from(events).where(eq(events.subjectId, subjectId)).orderBy(asc(events.seq));
}

describe("POST /api/v1/onchain/withdraw/initiate", () => {
  it("→ 200 { message, transactionHash, success: true, id, status } and debits value + ceil(0.5%) + bsc fee exactly", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const res = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 123.45, network: "bsc" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: expect.any(String),
      success: true,
      status: "PENDING",
      token: "USDT",
      network: "bsc",
    });
    expect(res.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    // 12345 + ceil(61.725) + 30
    expect(res.body.fees).toEqual({ service: 0.62, network: 0.3 });
    expect(res.body.totalDebited).toBe(124.37);
    expect(await balance(apiKey)).toBe(100_000 - 12_437);

    const [row] = await withdrawalRows(merchant.id);
    expect(row).toMatchObject({
      id: res.body.id,
      kind: "onchain",
      status: "PENDING",
      valueCentavos: 12_345,
      serviceFeeCentavos: 62,
      networkFeeCentavos: 30,
      debitCentavos: 12_437,
      token: "USDT",
      txHash: res.body.transactionHash,
      toAddress: TO,
    });
    // 123.45 / 5.40 rounded down to BSC USDT's 18 decimals.
    expect(row.tokenAmount).toBe("22.861111111111111111");
    expect(await ledgerSum(db(), merchant.id)).toBe(100_000 - 12_437);
  });

  it("uses the polygon fee (R$0.05) and the token's 6 decimals there", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const res = await api("POST", WITHDRAW, {
      apiKey,
      body: { toAddress: TO, value: 100, network: "polygon", token: "USDC" },
    });
    expect(res.status).toBe(200);
    expect(res.body.token).toBe("USDC");
    expect(res.body.tokenAmount).toBe(18.518518);
    // 10000 + 50 + 5
    expect(await balance(apiKey)).toBe(50_000 - 10_055);
    const [row] = await withdrawalRows(merchant.id);
    expect(row.debitCentavos).toBe(10_055);
    expect(row.tokenAmount).toBe("18.518518000000000000");
  });

  it("rounds the 0.5% service fee up to the centavo", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 1_000 });
    // 0.01 BRL: fee 0.00005 → 1 centavo; 1 + 1 + 30 = 32
    const res = await api("POST", WITHDRAW, {
      apiKey,
      body: { toAddress: TO.toLowerCase(), value: 0.01, network: "bsc" },
    });
    expect(res.status).toBe(200);
    expect(await balance(apiKey)).toBe(1_000 - 32);
  });

  it("accepts both header forms", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const a = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 1, network: "bsc" } });
    const b = await api("POST", WITHDRAW, {
      apiKey,
      authHeader: "bearer",
      body: { toAddress: TO, value: 1, network: "bsc" },
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.transactionHash).not.toBe(b.body.transactionHash);
    expect(await balance(apiKey)).toBe(10_000 - 2 * (100 + 1 + 30));
  });

  it.each([
    ["eth (withdraw allows bsc and polygon only)", { network: "eth" }, "bsc, polygon"],
    ["an unknown network", { network: "tron" }, "bsc, polygon"],
    ["a missing network", { network: undefined }, "network: is required"],
    ["a token not on the network", { network: "polygon", token: "BUSD" }, "BUSD"],
    ["an unknown token", { network: "bsc", token: "DOGE" }, "Token not supported"],
    ["a malformed toAddress", { toAddress: "0x1234" }, "toAddress"],
    ["a toAddress with a bad checksum", { toAddress: "0x70997970c51812dc3a010c7d01b50e0d17dc79C8" }, "toAddress"],
    ["a missing toAddress", { toAddress: undefined }, "toAddress"],
    ["a string value", { value: "10" }, "value"],
    ["a zero value", { value: 0 }, "value"],
    ["a negative value", { value: -5 }, "value"],
    ["a value with 3 decimals", { value: 1.001 }, "value"],
    ["a missing value", { value: undefined }, "value"],
  ])("→ 400 { message, error } for %s, writing nothing", async (_label, patch, mentions) => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const body = { toAddress: TO, value: 10, network: "bsc", ...patch };
    const res = await api("POST", WITHDRAW, { apiKey, body });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining(mentions), error: expect.any(String) });
    expect(await withdrawalRows(merchant.id)).toHaveLength(0);
    expect(await balance(apiKey)).toBe(10_000);
  });

  it("→ 400 { message, error } naming the balance when it does not cover value + fees; nothing is written", async () => {
    // 100.00 needs 100.00 + 0.50 + 0.30 = 100.80; the balance is 100.79.
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_079 });
    const res = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 100, network: "bsc" } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.stringContaining("Insufficient balance"),
      error: expect.any(String),
    });
    expect(res.body.message).toContain("100,80");
    expect(res.body.message).toContain("100,79");
    expect(await withdrawalRows(merchant.id)).toHaveLength(0);
    expect(await balance(apiKey)).toBe(10_079);
    expect(await ledgerSum(db(), merchant.id)).toBe(10_079);
    // Only the opening adjustment: no debit was posted.
    expect(await db().select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, merchant.id))).toHaveLength(1);
    expect(await db().select().from(events).where(eq(events.merchantId, merchant.id))).toHaveLength(0);

    // Exactly enough goes through and leaves zero.
    const ok = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 99.99, network: "bsc" } });
    expect(ok.status).toBe(200);
    // 9999 + ceil(49.995) + 30 = 10079
    expect(await balance(apiKey)).toBe(0);
  });

  it("→ 400 naming the per-transaction limit of a standard account (R$ 5.000,00)", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 2_000_000 });
    const over = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 5000.01, network: "bsc" } });
    expect(over.status).toBe(400);
    expect(specOf(over.body)).toEqual({
      message: expect.stringContaining("Per-transaction"),
      error: expect.any(String),
    });
    expect(over.body.message).toContain("5.000,00");
    expect(over.body.message).toContain("10.000,00 daily limit is left today");
    expect(await withdrawalRows(merchant.id)).toHaveLength(0);
    // The limit counts value, not the fees: exactly 5,000 is allowed.
    const at = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 5000, network: "bsc" } });
    expect(at.status).toBe(200);
    expect(await balance(apiKey)).toBe(2_000_000 - (500_000 + 2_500 + 30));
  });

  it("→ 400 saying what is left of the standard daily limit (R$ 10.000,00), counting on-chain and pix-out together", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 3_000_000 });
    expect((await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 5000, network: "bsc" } })).status).toBe(
      200,
    );
    expect((await api("POST", PIX_OUT, { apiKey, body: { value: 400_000 } })).status).toBe(201);
    // 9,000 used: 1,000 left.
    const over = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 1000.01, network: "polygon" } });
    expect(over.status).toBe(400);
    expect(specOf(over.body)).toEqual({
      message: expect.stringContaining("Daily withdrawal limit"),
      error: expect.any(String),
    });
    expect(over.body.message).toContain("10.000,00");
    expect(over.body.message).toContain("1.000,00 is left");
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.withdrawalLimits).toEqual({
      perTransaction: 5000,
      daily: 10000,
      usedToday: 9000,
      remainingToday: 1000,
    });

    expect(
      (await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 1000, network: "polygon" } })).status,
    ).toBe(200);
    const none = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 0.01, network: "polygon" } });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain("0,00 is left");
    expect(await withdrawalRows(merchant.id)).toHaveLength(3);
  });

  it("two of R$ 5,000 fill the standard day; a third is refused", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 3_000_000 });
    for (let i = 0; i < 2; i++) {
      expect(
        (await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 5000, network: "bsc" } })).status,
      ).toBe(200);
    }
    const third = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 5000, network: "bsc" } });
    expect(third.status).toBe(400);
    expect(third.body.message).toContain("Daily");
    expect(third.body.message).toContain("0,00 is left");
    expect(await balance(apiKey)).toBe(3_000_000 - 2 * (500_000 + 2_500 + 30));
  });

  it("gives verified and business accounts their higher limits", async () => {
    const verified = await seedMerchant({ accountType: "verified", balanceCentavos: 20_000_000 });
    const v1 = await api("POST", WITHDRAW, {
      apiKey: verified.apiKey,
      body: { toAddress: TO, value: 10000, network: "bsc" },
    });
    expect(v1.status).toBe(200);
    const v2 = await api("POST", WITHDRAW, {
      apiKey: verified.apiKey,
      body: { toAddress: TO, value: 10000.01, network: "bsc" },
    });
    expect(v2.status).toBe(400);
    expect(v2.body.message).toContain("10.000,00");
    // Daily 50,000: 10,000 used, four more of 10,000 fit, the fifth does not.
    for (let i = 0; i < 4; i++) {
      expect((await api("POST", PIX_OUT, { apiKey: verified.apiKey, body: { value: 1_000_000 } })).status).toBe(201);
    }
    const v3 = await api("POST", PIX_OUT, { apiKey: verified.apiKey, body: { value: 1 } });
    expect(v3.status).toBe(400);
    expect(v3.body.message).toContain("50.000,00");

    const business = await seedMerchant({ accountType: "business", balanceCentavos: 20_000_000 });
    const b1 = await api("POST", WITHDRAW, {
      apiKey: business.apiKey,
      body: { toAddress: TO, value: 25000, network: "polygon" },
    });
    expect(b1.status).toBe(200);
    const b2 = await api("POST", WITHDRAW, {
      apiKey: business.apiKey,
      body: { toAddress: TO, value: 25000.01, network: "polygon" },
    });
    expect(b2.status).toBe(400);
    expect(b2.body.message).toContain("25.000,00");
    const account = await api("GET", "/api/v1/account", { apiKey: business.apiKey });
    expect(account.body.merchant).toMatchObject({
      accountType: "business",
      balance: 20_000_000 - (2_500_000 + 12_500 + 5),
    });
    expect(account.body.merchant.withdrawalLimits).toEqual({
      perTransaction: 25000,
      daily: 100000,
      usedToday: 25000,
      remainingToday: 75000,
    });
  });

  it("→ 401 { message } without a key, with an unknown key, with a malformed header", async () => {
    const body = { toAddress: TO, value: 1, network: "bsc" };
    const none = await api("POST", WITHDRAW, { body });
    expect(none.status).toBe(401);
    expect(specOf(none.body)).toEqual({ message: expect.stringContaining("Missing API key") });
    const unknown = await api("POST", WITHDRAW, { apiKey: "sk_test_" + "x".repeat(40), body });
    expect(unknown.status).toBe(401);
    expect(specOf(unknown.body)).toEqual({ message: "Invalid API key" });
    const malformed = await api("POST", WITHDRAW, { headers: { authorization: "Basic abc" }, body });
    expect(malformed.status).toBe(401);
    expect(specOf(malformed.body)).toEqual({ message: expect.any(String) });
  });
});

describe("POST /api/v1/order/pix-out", () => {
  it("→ 201 { message, amount } in centavos, to the merchant's registered key when pixKey is omitted", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const res = await api("POST", PIX_OUT, { apiKey, body: { value: 12_345 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ message: expect.any(String), amount: 12_345, status: "PENDING", type: "pix_out" });
    expect(await balance(apiKey)).toBe(50_000 - 12_345);
    const [row] = await withdrawalRows(merchant.id);
    expect(row).toMatchObject({
      id: res.body.id,
      kind: "pix_out",
      pixKey: "52998224725",
      pixKeyType: "cpf",
      valueCentavos: 12_345,
      debitCentavos: 12_345,
      serviceFeeCentavos: 0,
      networkFeeCentavos: 0,
    });
    expect(await ledgerSum(db(), merchant.id)).toBe(50_000 - 12_345);
  });

  it.each([
    ["an e-mail key", "Pagamentos@Example.com", "email", "pagamentos@example.com"],
    ["a phone key", "+55 (11) 98765-4321", "phone", "+5511987654321"],
    ["an EVP key", "123e4567-e89b-12d3-a456-426614174000", "evp", "123e4567-e89b-12d3-a456-426614174000"],
    ["a CNPJ key", "11.222.333/0001-81", "cnpj", "11222333000181"],
    ["a formatted CPF key", "529.982.247-25", "cpf", "52998224725"],
  ])("→ 201 to %s", async (_label, pixKey, type, normalized) => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000 });
    const res = await api("POST", PIX_OUT, { apiKey, authHeader: "bearer", body: { value: 100, pixKey } });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(100);
    const [row] = await withdrawalRows(merchant.id);
    expect(row).toMatchObject({ pixKey: normalized, pixKeyType: type });
  });

  it.each([
    ["an invalid CPF key", { value: 100, pixKey: "12345678900" }, "PIX key"],
    ["a phone without +55", { value: 100, pixKey: "11987654321" }, "PIX key"],
    ["a garbage key", { value: 100, pixKey: "not a key" }, "PIX key"],
    ["an empty key", { value: 100, pixKey: "" }, "pixKey"],
    ["a non-integer value", { value: 10.5 }, "value"],
    ["a zero value", { value: 0 }, "value"],
    ["a negative value", { value: -100 }, "value"],
    ["a string value", { value: "100" }, "value"],
    ["a missing value", {}, "value"],
    ["a null value", { value: null }, "value"],
  ])("→ 400 { message, error: { details } } for %s, writing nothing", async (_label, body, mentions) => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const res = await api("POST", PIX_OUT, { apiKey, body });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.stringContaining(mentions),
      error: { details: expect.any(String) },
    });
    expect(await withdrawalRows(merchant.id)).toHaveLength(0);
    expect(await balance(apiKey)).toBe(10_000);
  });

  it("→ 400 when pixKey is omitted and the merchant has no registered key", async () => {
    const { apiKey } = await seedMerchant({ pixKey: null, balanceCentavos: 10_000 });
    const res = await api("POST", PIX_OUT, { apiKey, body: { value: 100 } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.stringContaining("pixKey"),
      error: { details: expect.any(String) },
    });
  });

  it("→ 400 { message, error: { details } } naming the balance when it does not cover the amount; nothing written", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 9_999 });
    const res = await api("POST", PIX_OUT, { apiKey, body: { value: 10_000 } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.stringContaining("Insufficient balance"),
      error: { details: res.body.message },
    });
    expect(res.body.message).toContain("99,99");
    expect(await withdrawalRows(merchant.id)).toHaveLength(0);
    expect(await balance(apiKey)).toBe(9_999);
    const exact = await api("POST", PIX_OUT, { apiKey, body: { value: 9_999 } });
    expect(exact.status).toBe(201);
    expect(await balance(apiKey)).toBe(0);
  });

  it("→ 400 over the per-transaction limit (pix-out counts its value in centavos)", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 2_000_000 });
    expect((await api("POST", PIX_OUT, { apiKey, body: { value: 123_456 } })).status).toBe(201);
    const res = await api("POST", PIX_OUT, { apiKey, body: { value: 500_001 } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("5.000,00 per withdrawal");
    // 10,000 − 1,234.56 of today's limit is left.
    expect(res.body.message).toContain("8.765,44 of the");
    expect(res.body.error).toEqual({ details: res.body.message });
  });

  it("→ 401 { message }", async () => {
    const none = await api("POST", PIX_OUT, { body: { value: 100 } });
    expect(none.status).toBe(401);
    expect(specOf(none.body)).toEqual({ message: expect.stringContaining("Missing API key") });
    const bad = await api("POST", PIX_OUT, { apiKey: "sk_live_" + "a".repeat(40), body: { value: 100 } });
    expect(bad.status).toBe(401);
    expect(specOf(bad.body)).toEqual({ message: expect.any(String) });
  });
});

describe("withdrawal processing", () => {
  it("a pix-out is COMPLETED by processWithdrawal, with one event per status change", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const created = await api("POST", PIX_OUT, { apiKey, body: { value: 2_500 } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(await processWithdrawal(id)).toBe(true);
    const res = await api("GET", `/api/v1/withdrawals/${id}`, { apiKey });
    expect(res.status).toBe(200);
    expect(res.body.withdrawal).toMatchObject({
      id,
      status: "COMPLETED",
      type: "pix_out",
      amount: 2_500,
      value: 25,
      pixKey: "***.982.247-**",
    });
    expect(res.body.withdrawal.completedAt).toEqual(expect.any(String));
    expect(await balance(apiKey)).toBe(7_500);

    // Processing again changes nothing.
    expect(await processWithdrawal(id)).toBe(true);
    const evs = await eventsFor(id);
    expect(evs.map((e) => [e.type, e.data.previousStatus, e.data.status])).toEqual([
      ["withdrawal.pix_out.status_changed", null, "PENDING"],
      ["withdrawal.pix_out.status_changed", "PENDING", "COMPLETED"],
    ]);
    expect(evs.every((e) => e.merchantId === merchant.id)).toBe(true);
    expect(await ledgerSum(db(), merchant.id)).toBe(7_500);
  });

  it("an on-chain withdrawal is COMPLETED once confirmed (SANDBOX_SETTLE_SECONDS=0)", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const created = await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 50, network: "polygon" } });
    expect(created.status).toBe(200);
    expect(await processWithdrawal(created.body.id)).toBe(true);
    const res = await api("GET", `/api/v1/withdrawals/${created.body.id}`, { apiKey });
    expect(res.body.withdrawal).toMatchObject({
      status: "COMPLETED",
      type: "onchain",
      transactionHash: created.body.transactionHash,
      network: "polygon",
      token: "USDT",
    });
    const evs = await eventsFor(created.body.id);
    expect(evs.map((e) => [e.type, e.data.previousStatus, e.data.status])).toEqual([
      ["withdrawal.onchain.status_changed", null, "PENDING"],
      ["withdrawal.onchain.status_changed", "PENDING", "COMPLETED"],
    ]);
    // 5000 + 25 + 5
    expect(await balance(apiKey)).toBe(10_000 - 5_030);
    expect(await ledgerSum(db(), merchant.id)).toBe(10_000 - 5_030);
  });

  it("a pix-out to payout.fail@example.com is FAILED: the debit is credited back and the daily limit freed", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 2_000_000 });
    const failing = await api("POST", PIX_OUT, { apiKey, body: { value: 500_000, pixKey: FAIL_KEY } });
    expect(failing.status).toBe(201);
    expect((await api("POST", PIX_OUT, { apiKey, body: { value: 500_000 } })).status).toBe(201);
    expect(await balance(apiKey)).toBe(1_000_000);
    // The day is full while the failing one is PENDING.
    const blocked = await api("POST", PIX_OUT, { apiKey, body: { value: 1 } });
    expect(blocked.status).toBe(400);
    expect(blocked.body.message).toContain("Daily");

    expect(await processWithdrawal(failing.body.id)).toBe(true);
    const res = await api("GET", `/api/v1/withdrawals/${failing.body.id}`, { apiKey });
    expect(res.body.withdrawal).toMatchObject({
      status: "FAILED",
      failureReason: expect.any(String),
      pixKey: "p***@example.com",
    });
    expect(res.body.withdrawal.completedAt).toBeUndefined();
    expect(await balance(apiKey)).toBe(1_500_000);

    const reversal = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.refId, failing.body.id), eq(ledgerEntries.kind, "withdrawal_reversal")));
    expect(reversal.map((r) => r.amountCentavos)).toEqual([500_000]);
    const evs = await eventsFor(failing.body.id);
    expect(evs.map((e) => [e.type, e.data.previousStatus, e.data.status])).toEqual([
      ["withdrawal.pix_out.status_changed", null, "PENDING"],
      ["withdrawal.pix_out.status_changed", "PENDING", "FAILED"],
    ]);

    // Its share of the limit is free again: 5,000 more fits today.
    const again = await api("POST", PIX_OUT, { apiKey, body: { value: 500_000 } });
    expect(again.status).toBe(201);
    expect(await balance(apiKey)).toBe(1_000_000);
    // Processing the failed one again never credits twice.
    expect(await processWithdrawal(failing.body.id)).toBe(true);
    expect(await balance(apiKey)).toBe(1_000_000);
    expect(await ledgerSum(db(), merchant.id)).toBe(1_000_000);
  });
});

describe("GET /api/v1/withdrawals and /withdrawals/{id}", () => {
  it("lists newest first and pages with nextCursor, without gaps or repeats", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res =
        i % 2 === 0
          ? await api("POST", PIX_OUT, { apiKey, body: { value: 100 + i } })
          : await api("POST", WITHDRAW, { apiKey, body: { toAddress: TO, value: 1 + i, network: "bsc" } });
      expect(res.status).toBeLessThan(300);
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const page = await api("GET", `/api/v1/withdrawals${q}`, { apiKey });
      expect(page.status).toBe(200);
      sizes.push(page.body.withdrawals.length);
      seen.push(...page.body.withdrawals.map((w: { id: string }) => w.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());

    const all = await api("GET", "/api/v1/withdrawals", { apiKey });
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.withdrawals.map((w: { id: string }) => w.id)).toEqual([...ids].reverse());
    expect(all.body.withdrawals[0]).toMatchObject({ type: "pix_out", amount: 104, status: "PENDING" });
    expect(all.body.withdrawals[1]).toMatchObject({
      type: "onchain",
      value: 4,
      amount: 400,
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
  });

  it("→ 400 { message } on an invalid cursor or limit", async () => {
    const { apiKey } = await seedMerchant();
    for (const q of ["?cursor=not-a-cursor", "?limit=0", "?limit=abc", "?limit=101"]) {
      const res = await api("GET", `/api/v1/withdrawals${q}`, { apiKey });
      expect(res.status, q).toBe(400);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    }
  });

  it("→ 404 { message } for an unknown id and for another merchant's withdrawal, alike", async () => {
    const a = await seedMerchant({ balanceCentavos: 1_000 });
    const b = await seedMerchant();
    const created = await api("POST", PIX_OUT, { apiKey: a.apiKey, body: { value: 100 } });
    const foreign = await api("GET", `/api/v1/withdrawals/${created.body.id}`, { apiKey: b.apiKey });
    const unknown = await api("GET", "/api/v1/withdrawals/00000000-0000-4000-8000-000000000000", { apiKey: a.apiKey });
    const garbage = await api("GET", "/api/v1/withdrawals/nope", { apiKey: a.apiKey });
    for (const r of [foreign, unknown, garbage]) {
      expect(r.status).toBe(404);
      expect(specOf(r.body)).toEqual({ message: "Withdrawal not found" });
    }
    const list = await api("GET", "/api/v1/withdrawals", { apiKey: b.apiKey });
    expect(list.body).toEqual({ withdrawals: [], nextCursor: null });
    const unauth = await api("GET", "/api/v1/withdrawals");
    expect(unauth.status).toBe(401);
    expect(specOf(unauth.body)).toEqual({ message: expect.any(String) });
  });
});
