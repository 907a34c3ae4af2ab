import { expect, test, type Locator, type Page } from "@playwright/test";
import { api, freshTotp, PASSWORD, seedMerchant, signIn } from "./helpers";
import { inbox, linkIn, newMailTo } from "./support/inbox";

// The account-takeover attacks of docs/security.md ("Second-factor changes", "Step-up and money
// moves", "Wrong codes"), replayed in a browser against the built app; each must be refused. The
// attacker has a password and the session it opens, never the victim's mailbox or authenticator.
// Steps the attack itself takes are written to run on builds with and without the defence (a field
// the defence adds is filled only when it is there), and what the defence promises is asserted with
// expect.soft, so a build without it reports every promise it breaks rather than the first.

test.beforeAll(async () => {
  await inbox();
});

const ENROL_CODE = /(?:código|code): (\d{6})\s/;
const WRONG = "000000";

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/signin/);
}

/** A server action's answer has arrived (the form then shows it). */
async function submit(page: Page, button: Locator) {
  const answered = page.waitForResponse(
    (r) => r.request().method() === "POST" && r.request().headers()["next-action"] !== undefined,
  );
  await button.click();
  await answered;
}

/** Types a code and posts it, once React has reset the form after the previous answer (else the reset may empty the field typed into). */
async function tryCode(page: Page, field: Locator, code: string, button: Locator) {
  await expect(field).toHaveValue("");
  await field.fill(code);
  await submit(page, button);
}

/**
 * Enrols an authenticator from the Security page the way this build asks: the password when there is
 * a password field, the mailed code when there is a field for it (`mailedCode` says whether the
 * enroller has the mailbox). Resolves to the secret and recovery codes when 2FA came on, else null.
 */
async function enrol(
  page: Page,
  email: string,
  mailedCode: boolean,
): Promise<{ secret: string; codes: string[] } | null> {
  const since = (await inbox()).length;
  await page.goto("/dashboard/security");
  const password = page.getByTestId("enrol-password");
  if (await password.isVisible()) await password.fill(PASSWORD);
  await page.getByRole("button", { name: "Ativar 2FA" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  const emailField = page.getByTestId("email-code");
  if (await emailField.isVisible()) {
    const code = mailedCode ? ENROL_CODE.exec((await newMailTo(email, ENROL_CODE, since)).text)![1] : WRONG;
    await emailField.fill(code);
  }
  await page.getByLabel("Código do app").fill(await freshTotp(secret));
  await submit(page, page.getByRole("button", { name: "Confirmar e ativar" }));
  // Either the recovery codes (on) or the form's refusal, once React has shown the answer.
  const codes = page.getByTestId("recovery-codes").locator("li");
  const refused = page.locator('[aria-labelledby="twofactor-title"]').getByRole("alert");
  await expect(page.getByTestId("recovery-codes").or(refused)).toBeVisible();
  if ((await codes.count()) === 0) return null;
  return { secret, codes: await codes.allTextContents() };
}

/** Follows the confirmation link mailed to `owner` since `since` mails (when this build sends one); false when none came. */
async function followOwnersLink(page: Page, owner: string, since: number): Promise<string | null> {
  const mail = await newMailTo(owner, /confirm-factor\?token=/, since).catch(() => null);
  if (!mail) return null;
  const link = linkIn(mail, "/confirm-factor?");
  const other = await page.context().newPage();
  await other.goto(link);
  await other.getByRole("button", { name: "Foi o membro: confirmar" }).click();
  await expect(other.getByTestId("factor-link-done")).toBeVisible();
  await other.close();
  return link;
}

/** A member with a settled factor, signed in on a fresh session: enrolled with the mailbox, confirmed by the owners' link, signed in again. */
async function memberWithFactor(page: Page, email: string) {
  await signIn(page, email);
  const since = (await inbox()).length;
  const enrolled = await enrol(page, email, true);
  expect(enrolled, "the member enrols with the mailed code").not.toBeNull();
  await followOwnersLink(page, email, since);
  await signOut(page);
  await signIn(page, email, PASSWORD, { recoveryCode: enrolled!.codes[0] });
  return enrolled!;
}

async function reviewWithdrawal(page: Page, value = "10") {
  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("Valor (R$)").fill(value);
  await page.getByRole("button", { name: "Revisar saque" }).click();
}

async function auditCount(page: Page, action: string): Promise<number> {
  await page.goto("/dashboard/audit");
  return page.getByTestId("audit-table").locator(`tr[data-action="${action}"]`).count();
}

test("a password-only user cannot enrol an authenticator without the code mailed to them", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  await signIn(page, m.email);
  const enrolled = await enrol(page, m.email, false);
  expect.soft(enrolled, "2FA turned on without the mailed code").toBeNull();
  await page.goto("/dashboard/security");
  await expect.soft(page.getByTestId("two-factor-status")).toContainText("Desativada");
});

test("the session that enrolled an authenticator cannot step up with it: no withdrawal leaves", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  await signIn(page, m.email);
  const enrolled = await enrol(page, m.email, true);
  expect(enrolled).not.toBeNull();
  // Even with the owners' confirmation (when this build mails one), this session's codes prove nothing.
  await followOwnersLink(page, m.email, 0);
  await reviewWithdrawal(page);
  const code = page.getByTestId("step-up-code");
  if (await code.isVisible()) await code.fill(await freshTotp(enrolled!.secret));
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
  await expect
    .soft(page.getByRole("status").filter({ hasText: "Saque solicitado" }), "a withdrawal on the enrolling session")
    .toHaveCount(0);
  await expect.soft(page.getByRole("alert").filter({ hasText: "ativada nesta sessão" })).toBeVisible();
  await expect.soft(page.getByTestId("withdraw-balance")).toHaveText(/R\$\s1\.000,00/);
});

test("a withdrawal right after enrolling waits for an owner's confirmation; the mailed link confirms once", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  await signIn(page, m.email);
  const since = (await inbox()).length;
  const enrolled = await enrol(page, m.email, true);
  expect(enrolled).not.toBeNull();
  // A new session, signed in with the new factor (not the enrolling one).
  await signOut(page);
  await signIn(page, m.email, PASSWORD, { recoveryCode: enrolled!.codes[0] });

  await reviewWithdrawal(page);
  const code = page.getByTestId("step-up-code");
  if (await code.isVisible()) await code.fill(await freshTotp(enrolled!.secret));
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
  await expect
    .soft(page.getByRole("status").filter({ hasText: "Saque solicitado" }), "a withdrawal right after enrolling")
    .toHaveCount(0);
  await expect.soft(page.getByRole("alert").filter({ hasText: "Seu segundo fator mudou há pouco" })).toBeVisible();
  await expect.soft(page.getByTestId("withdraw-balance")).toHaveText(/R\$\s1\.000,00/);

  // The owners' link (a sole owner gets it) confirms the change, once.
  const link = await followOwnersLink(page, m.email, since);
  expect.soft(link, "a confirmation link mailed to the owners").not.toBeNull();
  if (!link) return;
  await page.goto(link);
  await expect.soft(page.getByTestId("factor-link-invalid")).toBeVisible();

  // Now the same withdrawal goes, with a fresh code.
  await reviewWithdrawal(page);
  await page.getByTestId("step-up-code").fill(await freshTotp(enrolled!.secret));
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
  await expect(page.getByRole("status").filter({ hasText: "Saque solicitado" })).toBeVisible();
  expect.soft(await auditCount(page, "twoFactor.changeConfirmed")).toBe(1);
});

test("a password-only session cannot refund, and a refund is not one tap on a prefilled total", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  const order = await api(request, m.apiKey).post("/order/create/pix", { value: 20 });
  await api(request, m.apiKey).post(`/sandbox/orders/${order.pixOrder._id}/pay`);
  await signIn(page, m.email);
  await page.goto(`/dashboard/orders/${order.pixOrder._id}`);
  const value = page.getByLabel("Valor a devolver (R$)");
  await expect.soft(value, "the amount is not prefilled with everything left").toHaveValue("");
  await value.fill("20,00");
  await page.getByRole("button", { name: /^(Revisar devolução|Devolver ao pagador)$/ }).click();
  // The confirmation names the amount and reason before anything is sent.
  const confirm = page.getByTestId("refund-confirm");
  await expect.soft(confirm, "a confirmation step").toBeVisible();
  if (await confirm.isVisible()) {
    await expect.soft(page.getByTestId("refund-confirm-amount")).toHaveText(/R\$\s20,00/);
    await expect.soft(page.getByTestId("refund-confirm-reason")).toHaveText("Sem motivo informado");
    await submit(page, page.getByRole("button", { name: /^Devolver R\$\s20,00 ao pagador$/ }));
    await expect
      .soft(page.getByRole("alert").filter({ hasText: "Ative a autenticação em dois fatores" }))
      .toBeVisible();
  }
  await page.reload();
  await expect.soft(page.getByTestId("refund"), "a refund made with a password only").toHaveCount(0);
});

test("a refund with a fresh second factor shows its amount and reason, then goes", async ({ page, request }) => {
  test.setTimeout(120_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  const order = await api(request, m.apiKey).post("/order/create/pix", { value: 20 });
  await api(request, m.apiKey).post(`/sandbox/orders/${order.pixOrder._id}/pay`);
  const { secret } = await memberWithFactor(page, m.email);
  await page.goto(`/dashboard/orders/${order.pixOrder._id}`);
  await page.getByLabel("Valor a devolver (R$)").fill("7,50");
  await page.getByLabel("Motivo").fill("produto devolvido");
  await page.getByRole("button", { name: "Revisar devolução" }).click();
  await expect(page.getByTestId("refund-confirm-amount")).toHaveText(/R\$\s7,50/);
  await expect(page.getByTestId("refund-confirm-reason")).toHaveText("produto devolvido");
  await page.getByTestId("step-up-code").fill(await freshTotp(secret));
  await submit(page, page.getByRole("button", { name: /^Devolver R\$\s7,50 ao pagador$/ }));
  await expect(page.getByRole("status").filter({ hasText: "Devolução feita" })).toBeVisible();
  await expect(page.getByTestId("refund")).toContainText(/R\$\s7,50/);
});

test("22 wrong step-up codes lock the checks: audited, and the right code is refused while locked", async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  const { secret } = await memberWithFactor(page, m.email);
  await reviewWithdrawal(page);
  const code = page.getByTestId("step-up-code");
  const confirm = page.getByRole("button", { name: "Confirmar saque" });
  for (let i = 0; i < 22; i++) await tryCode(page, code, WRONG, confirm);
  await expect
    .soft(page.getByRole("alert").filter({ hasText: "Muitos códigos errados" }).first(), "locked after wrong codes")
    .toBeVisible();
  // The right code, while locked: refused, nothing leaves.
  await tryCode(page, code, await freshTotp(secret), confirm);
  await expect
    .soft(page.getByRole("status").filter({ hasText: "Saque solicitado" }), "the right code during the lock")
    .toHaveCount(0);
  await expect.soft(page.getByRole("alert").filter({ hasText: "Muitos códigos errados" }).first()).toBeVisible();
  await expect.soft(page.getByTestId("withdraw-balance")).toHaveText(/R\$\s1\.000,00/);
  // Each wrong code that was looked at is on the trail, and the lock; the user was mailed.
  expect.soft(await auditCount(page, "twoFactor.failed")).toBe(5);
  expect.soft(await auditCount(page, "twoFactor.locked")).toBe(1);
  expect
    .soft(
      (await inbox()).some(
        (mail) => mail.to === m.email && /5 c.digos de segundo fator errados seguidos/.test(mail.text),
      ),
    )
    .toBe(true);
});

test("22 wrong codes to turn 2FA off lock the checks: the right code then does not turn it off", async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const m = await seedMerchant(request);
  const { secret } = await memberWithFactor(page, m.email);
  await page.goto("/dashboard/security");
  const code = page.getByTestId("totp-code");
  const disable = page.getByRole("button", { name: "Desativar 2FA" });
  for (let i = 0; i < 22; i++) await tryCode(page, code, WRONG, disable);
  await expect
    .soft(page.getByRole("alert").filter({ hasText: "Muitos códigos errados" }), "locked after wrong codes")
    .toBeVisible();
  await tryCode(page, code, await freshTotp(secret), disable);
  await page.goto("/dashboard/security");
  await expect.soft(page.getByTestId("two-factor-status"), "2FA turned off during the lock").toContainText("Ativada");
  expect.soft(await auditCount(page, "twoFactor.failed")).toBe(5);
  expect.soft(await auditCount(page, "twoFactor.locked")).toBe(1);
});
