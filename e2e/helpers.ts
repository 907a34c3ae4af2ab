import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { E2E_ADMIN_TOKEN } from "../playwright.config";
import { currentTotp } from "../lib/identity/totp";
import { inbox, linkIn, newMailTo, type Mail } from "./support/inbox";

// Each dashboard test seeds its own merchant (documenso style) through the operator API, then signs
// in through the real sign-in form.

export const PASSWORD = "correct horse battery";

export function uniqueEmail(tag: string) {
  return `${tag}-${randomBytes(4).toString("hex")}@example.com`;
}

export async function seedMerchant(
  request: APIRequestContext,
  opts: { companyName?: string; openingBalance?: number } = {},
) {
  const email = uniqueEmail("seed");
  const res = await request.post("/api/v1/admin/merchants", {
    headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    data: {
      companyName: opts.companyName ?? "Loja Seed",
      pixKey: "52998224725",
      email,
      password: PASSWORD,
      openingBalance: opts.openingBalance,
    },
  });
  expect(res.status()).toBe(201);
  const body = await res.json();
  return { email, apiKey: body.apiKey as string, merchantId: body.merchant.id as string };
}

/**
 * Signs in through the real form; with `totpSecret`, answers the second-factor prompt like an
 * authenticator app (or with `{ recoveryCode }`, with one of the recovery codes).
 */
export async function signIn(
  page: Page,
  email: string,
  password = PASSWORD,
  factor?: string | { recoveryCode: string },
) {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Senha", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Entrar" }).click();
  if (factor) {
    await page
      .getByLabel("Código de autenticação")
      .fill(typeof factor === "string" ? await freshTotp(factor) : factor.recoveryCode);
    await page.getByRole("button", { name: "Entrar" }).click();
  }
  // The password hash is made to be slow, and slower still on a loaded CI machine.
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 20_000 });
}

/** The enrolment code in the mail that carries it ("Seu código: 123456"). */
const ENROL_CODE = /(?:código|code): (\d{6})\s/;

/** The newest mail to anyone matching `match` among those received after the first `since`. */
async function newMail(match: RegExp, since: number): Promise<Mail> {
  const mails = await inbox();
  await expect
    .poll(() => mails.slice(since).some((m) => match.test(m.text)), {
      timeout: 60_000,
      message: `a mail matching ${match}`,
    })
    .toBe(true);
  return mails
    .slice(since)
    .filter((m) => match.test(m.text))
    .at(-1)!;
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

/** What enrolling leaves the test holding: the authenticator's secret, the recovery codes, and whose they are. */
export type Enrolled = { secret: string; codes: string[]; email: string };

/**
 * Enrols a second factor from the Security page, as a person would: the password again, then the
 * app's code and the code mailed to the user (read from the e2e inbox). Leaves the page on the
 * session the factor was enrolled on, which never counts as stepped up.
 */
export async function enrolTwoFactor(page: Page, password = PASSWORD): Promise<Enrolled> {
  const since = (await inbox()).length;
  await page.goto("/dashboard/security");
  await page.getByTestId("enrol-password").fill(password);
  await page.getByRole("button", { name: "Ativar 2FA" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  const mail = await newMail(ENROL_CODE, since);
  await page.getByTestId("email-code").fill(ENROL_CODE.exec(mail.text)![1]);
  await page.getByLabel("Código do app").fill(await freshTotp(secret));
  await page.getByRole("button", { name: "Confirmar e ativar" }).click();
  await expect(page.getByTestId("recovery-codes").locator("li")).toHaveCount(10);
  const codes = await page.getByTestId("recovery-codes").locator("li").allTextContents();
  return { secret, codes, email: mail.to };
}

/** Follows the newest factor-change confirmation link mailed (to `to`, or to anyone) since `since` mails, in a page of its own. */
export async function confirmFactorByLink(page: Page, since: number, to?: string): Promise<void> {
  const mail = to
    ? await newMailTo(to, /confirm-factor\?token=/, since)
    : await newMail(/confirm-factor\?token=/, since);
  const other = await page.context().newPage();
  await other.goto(linkIn(mail, "/confirm-factor?"));
  await other.getByRole("button", { name: "Foi o membro: confirmar" }).click();
  await expect(other.getByTestId("factor-link-done")).toBeVisible();
  await other.close();
}

/**
 * Turns on 2FA as a person would and leaves the page ready to move money: enrolled (password and
 * mailed code), the change confirmed through the link mailed to the owners (a sole owner gets it),
 * and signed in again with the new factor, since the session it was enrolled on never steps up. The
 * new session signs in with a recovery code, so the test's first step-up need not wait for the
 * app's next code. Returns the secret the "app" holds.
 */
export async function enableTwoFactor(page: Page, password = PASSWORD): Promise<string> {
  const since = (await inbox()).length;
  const { secret, codes, email } = await enrolTwoFactor(page, password);
  await confirmFactorByLink(page, since);
  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/signin/);
  await signIn(page, email, password, { recoveryCode: codes[0] });
  return secret;
}

/**
 * Fills the step-up fields the page shows (a session stepped up within STEP_UP_MINUTES is not asked),
 * all with one code: only the form that is posted spends it.
 */
export async function stepUpIfAsked(page: Page, secret: string): Promise<void> {
  const fields = await page.getByTestId("step-up-code").all();
  const visible = [];
  for (const field of fields) if (await field.isVisible()) visible.push(field);
  if (visible.length === 0) return;
  const code = await freshTotp(secret);
  for (const field of visible) await field.fill(code);
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
