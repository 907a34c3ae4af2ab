import { afterEach, describe, expect, it, vi } from "vitest";
import { and, eq, isNull } from "drizzle-orm";
import { db } from "@/db";
import { apiKeys, merchants, users, type UserRole } from "@/db/schema";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import type { ApiScope } from "@/lib/identity/api-keys/scopes";
import type { SignedIn } from "@/lib/identity/dashboard/session";
import { resetEnvForTests } from "@/lib/env";
import { balanceOf } from "@/lib/ledger/ledger";
import { api, seedMerchant, specOf } from "./helpers";

// API key scopes (docs/security.md, "API keys"): each endpoint needs one scope and answers a key
// without it with 403 in its own error body; a dashboard member can give a key only what their role
// may do; a merchant holds at most MAX_API_KEYS_PER_MERCHANT active keys.

// What a dashboard server action sees: a signed-in member with a fresh second factor, no cookies.
const session = vi.hoisted(() => ({ current: null as SignedIn | null }));
vi.mock("next/headers", () => ({
  headers: async () => new Headers(),
  cookies: async () => ({ get: () => undefined }),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));
vi.mock("@/lib/identity/dashboard/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/identity/dashboard/session")>()),
  requireMerchant: async () => session.current!,
}));

const { createApiKeyAction } = await import("@/lib/dashboard/actions/developers");
const { createApiKey, revokeApiKey } = await import("@/lib/merchants/service");
const { idle } = await import("@/lib/forms/action-state");
const { translate } = await import("@/lib/i18n");

async function keyWith(merchantId: string, scopes: ApiScope[]) {
  const key = generateApiKey("sandbox");
  await db()
    .insert(apiKeys)
    .values({ merchantId, name: scopes.join("+"), prefix: key.prefix, keyHash: key.hash, mode: "sandbox", scopes });
  return key.key;
}

/** A paid PIX order of the merchant (made and paid with its full key). */
async function paidOrder(apiKey: string) {
  const order = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 20 } });
  await api("POST", `/api/v1/sandbox/orders/${order.body.pixOrder._id}/pay`, { apiKey });
  return order.body.pixOrder._id as string;
}

const missing = (scope: ApiScope) =>
  `This API key does not have the ${scope} scope this endpoint needs: create a key with it on the Developers page`;

describe("an API key's scopes, endpoint by endpoint", () => {
  it("a read-only key: every write is a 403 in the endpoint's own error body, naming the scope, and nothing moves", async () => {
    const { merchant, apiKey: full } = await seedMerchant({ balanceCentavos: 100_000 });
    const order = await paidOrder(full);
    const before = await balanceOf(db(), merchant.id);
    const key = await keyWith(merchant.id, ["read"]);
    expect((await api("GET", "/api/v1/account", { apiKey: key })).status).toBe(200);
    expect((await api("GET", `/api/v1/order/${order}`, { apiKey: key })).status).toBe(200);

    expect(await api("POST", "/api/v1/order/create/pix", { apiKey: key, body: { value: 10 } })).toMatchObject({
      status: 403,
      body: { message: missing("payments") },
    });
    expect(await api("POST", "/api/v1/order/create", { apiKey: key, body: { value: 10 } })).toMatchObject({
      status: 403,
      body: { success: false, error: missing("payments") },
    });
    expect(
      await api("POST", "/api/v1/onchain/deposit", {
        apiKey: key,
        body: { value: 10, asset: "USDT", network: "polygon" },
      }),
    ).toMatchObject({
      status: 403,
      body: { message: missing("payments") },
    });
    expect(await api("POST", `/api/v1/order/${order}/refund`, { apiKey: key, body: {} })).toMatchObject({
      status: 403,
      body: { success: false, error: missing("refunds") },
    });
    const pixOut = await api("POST", "/api/v1/order/pix-out", { apiKey: key, body: { value: 100 } });
    expect(pixOut).toMatchObject({
      status: 403,
      body: { message: missing("withdrawals"), error: { details: missing("withdrawals") } },
    });
    const onchain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey: key,
      body: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 10, network: "polygon" },
    });
    expect(onchain.status).toBe(403);
    expect(specOf(onchain.body)).toEqual({ message: missing("withdrawals"), error: missing("withdrawals") });
    expect(
      await api("POST", "/api/v1/webhooks", { apiKey: key, body: { url: "https://shop.example.com/h" } }),
    ).toMatchObject({ status: 403 });
    // Refused before the body is read: a malformed body is still a 403, not a 400.
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey: key, rawBody: "{not json" })).status).toBe(403);
    expect(await balanceOf(db(), merchant.id)).toBe(before);
  });

  it("a payments key takes payments but cannot read, refund or withdraw", async () => {
    const { merchant, apiKey: full } = await seedMerchant({ balanceCentavos: 100_000 });
    const order = await paidOrder(full);
    const key = await keyWith(merchant.id, ["payments"]);
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey: key, body: { value: 10 } });
    expect(created.status).toBe(200);
    expect((await api("POST", `/api/v1/sandbox/orders/${created.body.pixOrder._id}/pay`, { apiKey: key })).status).toBe(
      200,
    );
    expect(await api("GET", "/api/v1/account", { apiKey: key })).toMatchObject({
      status: 403,
      body: { message: missing("read") },
    });
    expect(await api("GET", `/api/v1/order/${order}`, { apiKey: key })).toMatchObject({
      status: 403,
      body: { success: false, error: missing("read") },
    });
    expect(await api("GET", `/api/v1/onchain/order/${order}`, { apiKey: key })).toMatchObject({
      status: 403,
      body: { success: false, error: missing("read") },
    });
    expect((await api("POST", `/api/v1/order/${order}/refund`, { apiKey: key, body: {} })).status).toBe(403);
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey: key, body: { value: 100 } })).status).toBe(403);
  });

  it("a refunds key refunds; a withdrawals key withdraws; each only that", async () => {
    const { merchant, apiKey: full } = await seedMerchant({ balanceCentavos: 100_000 });
    const order = await paidOrder(full);
    const refunds = await keyWith(merchant.id, ["refunds"]);
    const refunded = await api("POST", `/api/v1/order/${order}/refund`, { apiKey: refunds, body: { value: 5 } });
    expect(refunded.status, JSON.stringify(refunded.body)).toBeLessThan(300);
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey: refunds, body: { value: 100 } })).status).toBe(403);
    const withdrawals = await keyWith(merchant.id, ["withdrawals"]);
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey: withdrawals, body: { value: 100 } })).status).toBe(
      201,
    );
    expect(
      (await api("POST", `/api/v1/order/${order}/refund`, { apiKey: withdrawals, body: { value: 1 } })).status,
    ).toBe(403);
  });
});

async function member(merchantId: string, role: UserRole): Promise<SignedIn> {
  const [user] = await db()
    .insert(users)
    .values({ merchantId, email: `${role}-${crypto.randomUUID().slice(0, 8)}@loja.com.br`, passwordHash: "x", role })
    .returning();
  const [merchant] = await db().select().from(merchants).where(eq(merchants.id, merchantId));
  // Second factor on and proved a moment ago: only the role and the scopes decide here.
  return {
    merchant,
    userId: user.id,
    email: user.email,
    role,
    sessionId: crypto.randomUUID(),
    twoFactor: true,
    stepUpFresh: true,
    ip: "203.0.113.7",
    factorHeldUntil: null,
    factorEnrolledHere: false,
  } as SignedIn;
}

function keyForm(name: string, scopes: ApiScope[]) {
  const form = new FormData();
  form.set("name", name);
  for (const s of scopes) form.set(`scope-${s}`, "on");
  return form;
}

const activeKeys = (merchantId: string) =>
  db()
    .select({ name: apiKeys.name, scopes: apiKeys.scopes, scope: apiKeys.scope })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt)));

describe("creating a key in the dashboard", () => {
  it("a developer makes a key that reads and takes payments, which cannot withdraw", async () => {
    const { merchant } = await seedMerchant({ balanceCentavos: 100_000 });
    session.current = await member(merchant.id, "developer");
    const res = await createApiKeyAction(idle, keyForm("loja", ["read", "payments"]));
    expect(res.status).toBe("success");
    const key = (res as { data: { key: string } }).data.key;
    expect(await activeKeys(merchant.id)).toContainEqual({ name: "loja", scopes: ["read", "payments"], scope: "read" });
    expect(await api("POST", "/api/v1/order/pix-out", { apiKey: key, body: { value: 100 } })).toMatchObject({
      status: 403,
      body: { error: { details: missing("withdrawals") } },
    });
    expect(await balanceOf(db(), merchant.id)).toBe(100_000);
  });

  it("a developer cannot give a key withdrawals or refunds, whatever the form sends; nothing is created", async () => {
    const { merchant } = await seedMerchant();
    session.current = await member(merchant.id, "developer");
    const before = (await activeKeys(merchant.id)).length;
    for (const scopes of [
      ["read", "payments", "refunds", "withdrawals"],
      ["withdrawals"],
      ["refunds"],
      ["read", "withdrawals"],
    ] as ApiScope[][]) {
      const res = await createApiKeyAction(idle, keyForm("escalada", scopes));
      expect(res, scopes.join()).toMatchObject({
        status: "error",
        error: translate("pt-BR", "developers.scopeNotAllowed"),
      });
    }
    expect(await activeKeys(merchant.id)).toHaveLength(before);
  });

  it("owners and admins may give every scope; finance and viewers create no key at all; a key needs one scope", async () => {
    const { merchant } = await seedMerchant();
    for (const role of ["owner", "admin"] as const) {
      session.current = await member(merchant.id, role);
      expect(
        (await createApiKeyAction(idle, keyForm(`chave ${role}`, ["read", "payments", "refunds", "withdrawals"])))
          .status,
      ).toBe("success");
    }
    expect(await activeKeys(merchant.id)).toContainEqual({
      name: "chave owner",
      scopes: ["read", "payments", "refunds", "withdrawals"],
      scope: "full",
    });
    for (const role of ["finance", "viewer"] as const) {
      session.current = await member(merchant.id, role);
      expect(await createApiKeyAction(idle, keyForm("x", ["read"]))).toMatchObject({
        status: "error",
        error: "security.notAllowed",
      });
    }
    session.current = await member(merchant.id, "owner");
    expect(await createApiKeyAction(idle, keyForm("sem escopo", []))).toMatchObject({
      status: "error",
      fieldErrors: { scopes: [expect.any(String)] },
    });
  });
});

describe("active keys per merchant", () => {
  const saved = process.env.MAX_API_KEYS_PER_MERCHANT;
  afterEach(() => {
    if (saved === undefined) delete process.env.MAX_API_KEYS_PER_MERCHANT;
    else process.env.MAX_API_KEYS_PER_MERCHANT = saved;
    resetEnvForTests();
  });

  it("at most MAX_API_KEYS_PER_MERCHANT, refused with a clear error in the service and the dashboard; a revoked key frees its place", async () => {
    process.env.MAX_API_KEYS_PER_MERCHANT = "3";
    resetEnvForTests();
    const { merchant } = await seedMerchant(); // its first key
    await createApiKey(merchant.id, "dois");
    const third = await createApiKey(merchant.id, "três", { scopes: ["read"] });
    await expect(createApiKey(merchant.id, "quatro")).rejects.toMatchObject({
      status: 409,
      message: "A merchant can have at most 3 active API keys; revoke one first",
    });
    session.current = await member(merchant.id, "owner");
    expect(await createApiKeyAction(idle, keyForm("quatro", ["read"]))).toMatchObject({
      status: "error",
      error: translate("pt-BR", "errors.api.apiKeyMax", { max: 3 }),
    });
    // Created at once, they still cannot go past the cap.
    await revokeApiKey(merchant.id, third.id);
    const raced = await Promise.allSettled([
      createApiKey(merchant.id, "a"),
      createApiKey(merchant.id, "b"),
      createApiKey(merchant.id, "c"),
    ]);
    expect(raced.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await activeKeys(merchant.id)).toHaveLength(3);
  });
});
