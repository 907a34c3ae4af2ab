import { afterEach, describe, expect, it, vi } from "vitest";
import { and, eq, isNull } from "drizzle-orm";
import { db } from "@/db";
import { apiKeys, merchants, users, webhookEndpoints } from "@/db/schema";
import type { SignedIn } from "@/lib/identity/dashboard/session";
import { resetEnvForTests } from "@/lib/env";
import { SANDBOX_DEPOSIT_XPUB } from "@/lib/chain/sandbox-keys";
import { saveEnv } from "./support/env";
import { api, seedMerchant } from "./helpers";

// Sandbox keys and webhooks need no second factor; live ones still need 2FA and a fresh step-up
// (docs/security.md#sandbox-keys-and-webhooks). What keeps a sandbox key away from live money is
// checked here too: a live server refuses it whoever made it.

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

const { createApiKeyAction, createWebhookAction } = await import("@/lib/dashboard/actions/developers");
const { idle } = await import("@/lib/forms/action-state");

/** An admin of the merchant, signed in with the password only unless told otherwise. */
async function admin(merchantId: string, factor: { twoFactor: boolean; stepUpFresh: boolean }): Promise<SignedIn> {
  const [user] = await db()
    .insert(users)
    .values({
      merchantId,
      email: `admin-${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
      passwordHash: "x",
      role: "admin",
    })
    .returning();
  const [merchant] = await db().select().from(merchants).where(eq(merchants.id, merchantId));
  return {
    merchant,
    userId: user.id,
    email: user.email,
    role: "admin",
    sessionId: crypto.randomUUID(),
    ip: "203.0.113.7",
    factorHeldUntil: null,
    factorEnrolledHere: false,
    ...factor,
  } as SignedIn;
}

function keyForm(name: string) {
  const form = new FormData();
  form.set("name", name);
  for (const s of ["read", "payments", "refunds", "withdrawals"]) form.set(`scope-${s}`, "on");
  return form;
}

function webhookForm(url: string) {
  const form = new FormData();
  form.set("url", url);
  return form;
}

const keysNamed = (merchantId: string, name: string) =>
  db()
    .select({ prefix: apiKeys.prefix, mode: apiKeys.mode })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.name, name), isNull(apiKeys.revokedAt)));

const endpointsOf = (merchantId: string) =>
  db().select({ url: webhookEndpoints.url }).from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, merchantId));

function goLive() {
  process.env.PAYMENTS_MODE = "live";
  process.env.AUTH_SECRET = "x".repeat(40);
  process.env.DEPOSIT_XPUB = SANDBOX_DEPOSIT_XPUB;
  process.env.PUBLIC_BASE_URL = "https://pay.example.com";
  process.env.WEBHOOK_ALLOW_PRIVATE = "true";
  resetEnvForTests();
}

describe("API keys and webhooks from the Developers page, sandbox and live", () => {
  const env = saveEnv();
  afterEach(() => env.restore());

  it("sandbox: a member without 2FA creates a key that works in sandbox, and a webhook", async () => {
    const { merchant } = await seedMerchant({ balanceCentavos: 10_000 });
    session.current = await admin(merchant.id, { twoFactor: false, stepUpFresh: false });

    const created = await createApiKeyAction(idle, keyForm("sandbox sem 2fa"));
    expect(created.status, JSON.stringify(created)).toBe("success");
    const key = (created as { data: { key: string } }).data.key;
    expect(key).toMatch(/^sk_test_/);
    expect(await keysNamed(merchant.id, "sandbox sem 2fa")).toEqual([
      { prefix: expect.stringMatching(/^sk_test_/), mode: "sandbox" },
    ]);
    expect(await api("GET", "/api/v1/account", { apiKey: key })).toMatchObject({
      status: 200,
      body: { merchant: { balance: 10_000 } },
    });
    expect((await api("POST", "/api/v1/order/create/pix", { apiKey: key, body: { value: 10 } })).status).toBe(200);

    const hook = await createWebhookAction(idle, webhookForm("http://127.0.0.1:9/hooks"));
    expect(hook.status, JSON.stringify(hook)).toBe("success");
    expect(await endpointsOf(merchant.id)).toEqual([{ url: "http://127.0.0.1:9/hooks" }]);

    // The same key against a live server: refused before any lookup, so it never reaches live money.
    goLive();
    expect(await api("GET", "/api/v1/account", { apiKey: key })).toMatchObject({
      status: 401,
      body: { message: expect.stringContaining("not a live key") },
    });
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey: key, body: { value: 100 } })).status).toBe(401);
  });

  it("live: a key or a webhook needs 2FA turned on, then a fresh second factor; nothing is created before", async () => {
    const { merchant } = await seedMerchant();
    goLive();

    session.current = await admin(merchant.id, { twoFactor: false, stepUpFresh: false });
    expect(await createApiKeyAction(idle, keyForm("live sem 2fa"))).toMatchObject({
      status: "error",
      error: "security.twoFactorNeeded",
    });
    expect(await createWebhookAction(idle, webhookForm("https://loja.example.com/hooks"))).toMatchObject({
      status: "error",
      error: "security.twoFactorNeeded",
    });

    session.current = await admin(merchant.id, { twoFactor: true, stepUpFresh: false });
    expect(await createApiKeyAction(idle, keyForm("live sem código"))).toMatchObject({
      status: "error",
      error: "security.stepUpNeeded",
      fieldErrors: { otp: ["security.wrongCode"] },
    });
    expect(await createWebhookAction(idle, webhookForm("https://loja.example.com/hooks"))).toMatchObject({
      status: "error",
      error: "security.stepUpNeeded",
    });
    expect(await keysNamed(merchant.id, "live sem 2fa")).toEqual([]);
    expect(await keysNamed(merchant.id, "live sem código")).toEqual([]);
    expect(await endpointsOf(merchant.id)).toEqual([]);

    session.current = await admin(merchant.id, { twoFactor: true, stepUpFresh: true });
    const created = await createApiKeyAction(idle, keyForm("live com código"));
    expect(created.status, JSON.stringify(created)).toBe("success");
    expect((created as { data: { key: string } }).data.key).toMatch(/^sk_live_/);
    expect(await keysNamed(merchant.id, "live com código")).toEqual([
      { prefix: expect.stringMatching(/^sk_live_/), mode: "live" },
    ]);
  });
});
