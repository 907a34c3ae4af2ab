import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { apiKeys, ledgerEntries, merchants, users } from "@/db/schema";
import { authenticateMerchant } from "@/lib/identity/api-keys/authenticate";
import { hashPassword, verifyPassword } from "@/lib/identity/password-hash";
import { resetEnvForTests } from "@/lib/env";
import { ledgerSum } from "@/lib/ledger/ledger";
import {
  createMerchantEndpoint as adminCreateMerchant,
  updateMerchantEndpoint as adminUpdateMerchant,
} from "@/lib/merchants/endpoints";
import {
  createApiKey,
  createDemoMerchant,
  createMerchant,
  DEMO_EMAIL,
  listApiKeys,
  revokeApiKey,
  seedDemoMerchant,
  signUpMerchant,
  updateMerchant,
} from "@/lib/merchants/service";
import { call, seedMerchant, specOf } from "./helpers";

const ADMIN = process.env.ADMIN_TOKEN!;
const PATH = "/api/v1/admin/merchants";

const create = (body: unknown, token = ADMIN) =>
  call(adminCreateMerchant, { method: "POST", path: PATH, body, apiKey: token });
const patch = (id: string, body: unknown, token = ADMIN) =>
  call(adminUpdateMerchant, { method: "PATCH", path: `${PATH}/${id}`, body, params: { id }, apiKey: token });

const uniqueEmail = () => `owner-${randomUUID().slice(0, 8)}@Example.com`;

async function merchantCount(): Promise<number> {
  const [row] = await db()
    .select({ n: sql<number>`count(*)::int` })
    .from(merchants);
  return row.n;
}

function keyRequest(key: string): Request {
  return new Request("http://localhost:3000/api/v1/account", { headers: { authorization: `Bearer ${key}` } });
}

describe("POST /api/v1/admin/merchants", () => {
  it("→ 201 with { merchant, apiKey }", async () => {
    const res = await create({ companyName: "  Padaria Central  ", pixKey: "529.982.247-25", accountType: "verified" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["apiKey", "merchant"]);
    expect(res.body.merchant).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      companyName: "Padaria Central",
      pixKey: "52998224725",
      accountType: "verified",
      balance: 0,
    });
    const [row] = await db().select().from(merchants).where(eq(merchants.id, res.body.merchant.id));
    expect(row.pixKeyType).toBe("cpf");
  });

  it("→ 201 defaults accountType to standard and pixKey to null", async () => {
    const res = await create({ companyName: "Sem Chave" });
    expect(res.status).toBe(201);
    expect(res.body.merchant.accountType).toBe("standard");
    expect(res.body.merchant.pixKey).toBeNull();
  });

  it("returns a sandbox key that authenticates as the new merchant and is stored only as a hash", async () => {
    const res = await create({ companyName: "Chave Nova" });
    expect(res.body.apiKey).toMatch(/^sk_test_[0-9A-Za-z]{32,}$/);
    const merchant = await authenticateMerchant(keyRequest(res.body.apiKey));
    expect(merchant.id).toBe(res.body.merchant.id);
    const keys = await db().select().from(apiKeys).where(eq(apiKeys.merchantId, merchant.id));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ name: "default", mode: "sandbox", prefix: res.body.apiKey.slice(0, 12) });
    expect(keys[0].keyHash).not.toContain(res.body.apiKey);
  });

  it("→ 401 { message } with a wrong admin token, and creates nothing", async () => {
    const before = await merchantCount();
    const res = await create({ companyName: "Intrusa" }, "wrong-token-wrong-token-wrong-token-00");
    expect(res.status).toBe(401);
    expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    expect(await merchantCount()).toBe(before);
  });

  it("→ 404 when ADMIN_TOKEN is unset: the operator API does not exist", async () => {
    delete process.env.ADMIN_TOKEN;
    resetEnvForTests();
    try {
      const res = await create({ companyName: "X" }, "anything-anything-anything-anything");
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    } finally {
      process.env.ADMIN_TOKEN = ADMIN;
      resetEnvForTests();
    }
  });

  it("→ 401 without any token", async () => {
    const res = await call(adminCreateMerchant, { method: "POST", path: PATH, body: { companyName: "X" } });
    expect(res.status).toBe(401);
  });

  it("→ 401 with a merchant API key instead of the admin token", async () => {
    const { apiKey } = await seedMerchant();
    const res = await create({ companyName: "X" }, apiKey);
    expect(res.status).toBe(401);
  });

  it.each([
    [{}, "companyName"],
    [{ companyName: "" }, "companyName"],
    [{ companyName: "x".repeat(121) }, "companyName"],
    [{ companyName: 42 }, "companyName"],
    [{ companyName: "Loja", accountType: "gold" }, "accountType"],
    [{ companyName: "Loja", email: "not-an-email", password: "password123" }, "email"],
    [{ companyName: "Loja", email: "a@example.com" }, "password"],
    [{ companyName: "Loja", email: "a@example.com", password: "short" }, "password"],
    [{ companyName: "Loja", openingBalance: -1 }, "openingBalance"],
    [{ companyName: "Loja", openingBalance: 10.5 }, "openingBalance"],
    [{ companyName: "Loja", openingBalance: "100" }, "openingBalance"],
  ])("→ 400 { message } naming the field for %j", async (body, field) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(Object.keys(specOf(res.body) as object)).toEqual(["message"]);
    expect(res.body.message).toContain(field);
  });

  it("→ 400 for an invalid pixKey, the message listing the accepted kinds", async () => {
    const res = await create({ companyName: "Loja", pixKey: "123.456.789-00" });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("pixKey");
    expect(res.body.message).toMatch(/CPF.*CNPJ.*e-mail.*phone.*random/);
  });

  it("→ 400 for malformed JSON", async () => {
    const res = await call(adminCreateMerchant, { method: "POST", path: PATH, rawBody: "{nope", apiKey: ADMIN });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.any(String) });
  });

  it("creates the dashboard user with a slow password hash", async () => {
    const email = uniqueEmail();
    const res = await create({ companyName: "Com Usuário", email, password: "password123" });
    expect(res.status).toBe(201);
    const [user] = await db().select().from(users).where(eq(users.merchantId, res.body.merchant.id));
    expect(user.email).toBe(email);
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword("password123", user.passwordHash)).toBe(true);
  });

  it("→ 400 for an e-mail already in use (any case), adding no merchant", async () => {
    const email = uniqueEmail();
    expect((await create({ companyName: "Primeira", email, password: "password123" })).status).toBe(201);
    const before = await merchantCount();
    const res = await create({ companyName: "Segunda", email: email.toUpperCase(), password: "password123" });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: "A user with this e-mail already exists" });
    expect(await merchantCount()).toBe(before);
    const [{ n }] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(merchants)
      .where(eq(merchants.companyName, "Segunda"));
    expect(n).toBe(0);
  });

  it("records openingBalance as a ledger adjustment and shows it in the balance", async () => {
    const res = await create({ companyName: "Com Saldo", openingBalance: 12_345 });
    expect(res.status).toBe(201);
    const id = res.body.merchant.id;
    expect(res.body.merchant.balance).toBe(12_345);
    const entries = await db().select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: "adjustment",
      amountCentavos: 12_345,
      refType: "opening_balance",
      refId: id,
    });
    expect(await ledgerSum(db(), id)).toBe(12_345);
  });

  it("openingBalance 0 writes no ledger entry", async () => {
    const res = await create({ companyName: "Saldo Zero", openingBalance: 0 });
    expect(res.status).toBe(201);
    expect(res.body.merchant.balance).toBe(0);
    expect(await ledgerSum(db(), res.body.merchant.id)).toBe(0);
  });

  it("refuses openingBalance in live mode, writing nothing", async () => {
    const before = await merchantCount();
    await expect(
      createMerchant({ companyName: "Ao Vivo", accountType: "standard", openingBalance: 100 }, { mode: "live" }),
    ).rejects.toThrow("openingBalance is accepted in sandbox mode only");
    expect(await merchantCount()).toBe(before);
  });

  it("issues an sk_live_ key in live mode", async () => {
    const created = await createMerchant({ companyName: "Chave Live", accountType: "business" }, { mode: "live" });
    expect(created.apiKey).toMatch(/^sk_live_/);
  });
});

describe("PATCH /api/v1/admin/merchants/{id}", () => {
  it("→ 200 { merchant } with the new accountType", async () => {
    const { merchant } = await seedMerchant({ balanceCentavos: 500 });
    const res = await patch(merchant.id, { accountType: "business" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      merchant: {
        id: merchant.id,
        companyName: merchant.companyName,
        pixKey: merchant.pixKey,
        accountType: "business",
        balance: 500,
      },
    });
    const [row] = await db().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row.accountType).toBe("business");
  });

  it("changes companyName and normalises pixKey", async () => {
    const { merchant } = await seedMerchant();
    const res = await patch(merchant.id, { companyName: " Novo Nome ", pixKey: "Loja@Example.COM" });
    expect(res.status).toBe(200);
    expect(res.body.merchant).toMatchObject({ companyName: "Novo Nome", pixKey: "loja@example.com" });
    const [row] = await db().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row.pixKeyType).toBe("email");
  });

  it.each([randomUUID(), "not-a-uuid", "1; drop table merchants"])(
    "→ 404 { message } for unknown id %s",
    async (id) => {
      const res = await patch(id, { accountType: "verified" });
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: "Merchant not found" });
    },
  );

  it("→ 400 for an empty patch or a bad accountType", async () => {
    const { merchant } = await seedMerchant();
    const empty = await patch(merchant.id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain("accountType");
    const bad = await patch(merchant.id, { accountType: "platinum" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("accountType");
  });

  it("→ 401 with a wrong admin token, changing nothing", async () => {
    const { merchant } = await seedMerchant();
    const res = await patch(merchant.id, { accountType: "business" }, "x".repeat(40));
    expect(res.status).toBe(401);
    const [row] = await db().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row.accountType).toBe("standard");
  });

  it("service: updateMerchant throws NotFound for a non-UUID id", async () => {
    await expect(updateMerchant("nope", { accountType: "verified" })).rejects.toMatchObject({ status: 404 });
  });
});

describe("API keys", () => {
  it("creates, lists (without hashes) and revokes a merchant's keys", async () => {
    const { merchant } = await seedMerchant();
    const created = await createApiKey(merchant.id, "checkout");
    expect(created.key).toMatch(/^sk_test_/);
    expect((await authenticateMerchant(keyRequest(created.key))).id).toBe(merchant.id);

    const listed = await listApiKeys(merchant.id);
    expect(listed.map((k) => k.name)).toEqual(["test", "checkout"]);
    for (const k of listed) {
      expect(Object.keys(k).sort()).toEqual([
        "createdAt",
        "id",
        "lastFour",
        "lastUsedAt",
        "name",
        "prefix",
        "revokedAt",
        "scopes",
      ]);
    }

    const revoked = await revokeApiKey(merchant.id, created.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    await expect(authenticateMerchant(keyRequest(created.key))).rejects.toMatchObject({ status: 401 });
    // Revoking again keeps the first time.
    expect((await revokeApiKey(merchant.id, created.id)).revokedAt).toEqual(revoked.revokedAt);
  });

  it("another merchant's key, an unknown key or a malformed id is NotFound", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const [bKey] = await listApiKeys(b.merchant.id);
    await expect(revokeApiKey(a.merchant.id, bKey.id)).rejects.toMatchObject({ status: 404 });
    await expect(revokeApiKey(a.merchant.id, randomUUID())).rejects.toMatchObject({ status: 404 });
    await expect(revokeApiKey(a.merchant.id, "x")).rejects.toMatchObject({ status: 404 });
    const [stillActive] = await db()
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, bKey.id)));
    expect(stillActive.revokedAt).toBeNull();
    await expect(listApiKeys(randomUUID())).rejects.toMatchObject({ status: 404 });
    await expect(createApiKey("nope", "x")).rejects.toMatchObject({ status: 404 });
  });
});

describe("dashboard sign-up (signUpMerchant)", () => {
  it("creates a standard merchant with its PIX key and first user, and no API key: one is made where it is shown", async () => {
    const email = uniqueEmail();
    const passwordHash = await hashPassword("correct horse battery");
    const merchant = await signUpMerchant(
      { companyName: "Padaria Cadastro", pixKey: "52998224725", email, passwordHash },
      { mode: "sandbox" },
    );
    expect(merchant).toMatchObject({
      companyName: "Padaria Cadastro",
      pixKey: "52998224725",
      accountType: "standard",
      balance: 0,
    });
    expect(await listApiKeys(merchant.id)).toEqual([]);
    const [user] = await db().select().from(users).where(eq(users.merchantId, merchant.id));
    expect(user.email).toBe(email);
    expect(await verifyPassword("correct horse battery", user.passwordHash)).toBe(true);
  });
});

describe("seedDemoMerchant", () => {
  it("returns null when any merchant exists, even when called concurrently", async () => {
    await seedMerchant();
    const results = await Promise.all([seedDemoMerchant(), seedDemoMerchant(), seedDemoMerchant()]);
    expect(results).toEqual([null, null, null]);
    expect((await seedDemoMerchant()) ?? null).toBeNull();
  });

  it("creation path: Loja Demo with a working key and a dashboard login (rolled back afterwards)", async () => {
    class Rollback extends Error {}
    let seeded: Awaited<ReturnType<typeof createDemoMerchant>> | null = null;
    // Run inside a transaction that is rolled back, so the shared test database keeps no demo user.
    await expect(
      db().transaction(async (tx) => {
        seeded = await createDemoMerchant(tx, "sandbox");
        expect(seeded.password).toMatch(/^[0-9A-Za-z]{16}$/);
        const [row] = await tx.select().from(merchants).where(eq(merchants.id, seeded.merchantId));
        expect(row).toMatchObject({
          companyName: "Loja Demo",
          accountType: "standard",
          pixKey: "demo@lojademo.com.br",
          pixKeyType: "email",
          balanceCentavos: 0,
        });
        const [user] = await tx.select().from(users).where(eq(users.merchantId, seeded.merchantId));
        expect(user.email).toBe(DEMO_EMAIL);
        expect(await verifyPassword(seeded.password, user.passwordHash)).toBe(true);
        const [key] = await tx.select().from(apiKeys).where(eq(apiKeys.merchantId, seeded.merchantId));
        expect(seeded.apiKey.slice(0, 12)).toBe(key.prefix);
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(seeded).toMatchObject({ email: DEMO_EMAIL, apiKey: expect.stringMatching(/^sk_test_/) });
    const [{ n }] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.email, DEMO_EMAIL));
    expect(n).toBe(0);
  });
});
