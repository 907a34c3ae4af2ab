import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { E2E_ADMIN_TOKEN } from "../playwright.config";

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

export async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Senha", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Entrar" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
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
