import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { E2E_ADMIN_TOKEN } from "../playwright.config";
import { currentTotp } from "../lib/security/totp";

// Each dashboard test seeds its own merchant (documenso style) through the operator API, then signs
// in through the real sign-in form.

export const PASSWORD = "correct horse battery";

export function uniqueEmail(tag: string) {
  return `${tag}-${randomBytes(4).toString("hex")}@example.com`;
}

export async function seedMerchant(request: APIRequestContext, opts: { companyName?: string; openingBalance?: number } = {}) {
  const email = uniqueEmail("seed");
  const res = await request.post("/api/v1/admin/merchants", {
    headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    data: { companyName: opts.companyName ?? "Loja Seed", pixKey: "52998224725", email, password: PASSWORD, openingBalance: opts.openingBalance },
  });
  expect(res.status()).toBe(201);
  const body = await res.json();
  return { email, apiKey: body.apiKey as string, merchantId: body.merchant.id as string };
}

/** Signs in through the real form; with `totpSecret`, answers the second-factor prompt like an authenticator app. */
export async function signIn(page: Page, email: string, password = PASSWORD, totpSecret?: string) {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Senha", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Entrar" }).click();
  if (totpSecret) {
    await page.getByLabel("Código de autenticação").fill(await freshTotp(totpSecret));
    await page.getByRole("button", { name: "Entrar" }).click();
  }
  await expect(page).toHaveURL(/\/dashboard$/);
}

// A code is good once (the server records its time step): wait for the next step rather than
// reuse one the test has already spent.
const spent = new Map<string, string>();
export async function freshTotp(secret: string): Promise<string> {
  for (;;) {
    const code = currentTotp(secret);
    if (spent.get(secret) !== code) {
      spent.set(secret, code);
      return code;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Turns on 2FA from the Security page, as a person would; returns the secret the "app" holds. */
export async function enableTwoFactor(page: Page): Promise<string> {
  await page.goto("/dashboard/security");
  await page.getByRole("button", { name: "Ativar 2FA" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  await page.getByLabel("Código do app").fill(await freshTotp(secret));
  await page.getByRole("button", { name: "Confirmar e ativar" }).click();
  await expect(page.getByTestId("recovery-codes").locator("li")).toHaveCount(10);
  return secret;
}

export function api(request: APIRequestContext, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}` };
  return {
    post: async (path: string, data?: unknown) => {
      const res = await request.post(`/api/v1${path}`, { headers, data });
      expect(res.ok(), `${path}: ${res.status()} ${await res.text()}`).toBe(true);
      return res.json();
    },
  };
}
