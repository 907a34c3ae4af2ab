import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { api, enableTwoFactor, freshTotp, PASSWORD, seedMerchant, signIn, stepUpIfAsked, uniqueEmail } from "./helpers";
import { inbox, linkIn, mailTo } from "./support/inbox";

// Account security (docs/security.md) in a real browser: a password alone cannot move money or change where it goes. The
// server mails through SMTP to the inbox e2e/support/inbox.ts keeps, and the tests read what arrives.

// The inbox listens before any test mails (a test run alone included).
test.beforeAll(async () => {
  await inbox();
});

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/signin/);
}

test("2FA: turned on from the Security page, then sign-in asks for the code and refuses a wrong one", async ({
  page,
  request,
  context,
}) => {
  test.setTimeout(120_000);
  const m = await seedMerchant(request);
  await signIn(page, m.email);
  const secret = await enableTwoFactor(page);
  await page.goto("/dashboard/security");
  await expect(page.getByTestId("two-factor-status")).toContainText("Ativada");

  // The session cookie: HttpOnly and SameSite=Lax (Secure needs https; see lib/identity/dashboard/options.test.ts).
  const cookie = (await context.cookies()).find((c) => c.name.endsWith("next-auth.session-token"))!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });

  await signOut(page);
  await page.getByLabel("E-mail").fill(m.email);
  await page.getByLabel("Senha", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Entrar" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Digite o código do seu app autenticador." })).toBeVisible();
  await page.getByLabel("Código de autenticação").fill("000000");
  await page.getByRole("button", { name: "Entrar" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Código errado ou já usado." })).toBeVisible();
  await page.getByLabel("Código de autenticação").fill(await freshTotp(secret));
  await page.getByRole("button", { name: "Entrar" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.goto("/dashboard/audit");
  const table = page.getByTestId("audit-table");
  await expect(table.locator('tr[data-action="twoFactor.enabled"]')).toHaveCount(1);
  await expect(table.locator('tr[data-action="auth.signInFailed"]')).toHaveCount(1);
  // The first sign-in, the one enableTwoFactor makes with the new factor, and this one.
  await expect(table.locator('tr[data-action="auth.signIn"]')).toHaveCount(3);
});

test("a withdrawal needs 2FA and then a fresh code; it is audited, and a new payout key is held and alerts the owners", async ({
  page,
  request,
}) => {
  // Three codes in a row: each must come from a new 30-second step (a code is good once).
  test.setTimeout(150_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  await signIn(page, m.email);

  // Password only: the review step says 2FA must be turned on first, and nothing leaves.
  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("Valor (R$)").fill("10");
  await page.getByRole("button", { name: "Revisar saque" }).click();
  await expect(
    page.getByText("Ative a autenticação em dois fatores (página Segurança) antes de fazer isto."),
  ).toBeVisible();
  await page.getByRole("button", { name: "Confirmar saque" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Ative a autenticação em dois fatores" })).toBeVisible();

  const secret = await enableTwoFactor(page);
  await signOut(page);
  await signIn(page, m.email, PASSWORD, secret);

  // A fresh session: the withdrawal asks for a code of its own; a wrong one is refused.
  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("Valor (R$)").fill("10");
  await page.getByRole("button", { name: "Revisar saque" }).click();
  await page.getByTestId("step-up-code").fill("123456");
  await page.getByRole("button", { name: "Confirmar saque" }).click();
  await expect(page.getByText("Código errado ou já usado.")).toBeVisible();
  await page.getByTestId("step-up-code").fill(await freshTotp(secret));
  await page.getByRole("button", { name: "Confirmar saque" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saque solicitado" })).toBeVisible();
  await expect(page.getByTestId("withdraw-balance")).toHaveText(/R\$\s990,00/);

  // Changing the payout key: a code (still fresh: within the step-up window), an alert mail to the
  // owner, and the new key is held for withdrawals until an owner confirms it.
  await page.goto("/dashboard/settings");
  await page.getByLabel("Chave PIX para recebimentos e saques").fill("novo-destino@example.com");
  await page.getByRole("button", { name: "Salvar" }).nth(1).click();
  await expect(page.getByRole("status").filter({ hasText: "Salvo." })).toBeVisible();
  await expect(page.getByTestId("payout-hold")).toBeVisible();
  const alert = await mailTo(m.email, /novo-destino@example\.com/);
  expect(alert.text).toContain("A chave PIX de recebimento foi alterada para novo-destino@example.com.");
  expect(alert.text).toContain(`Por: ${m.email}`);

  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("Valor (R$)").fill("10");
  await page.getByRole("button", { name: "Revisar saque" }).click();
  await page.getByRole("button", { name: "Confirmar saque" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "A chave PIX cadastrada foi alterada recentemente" }),
  ).toBeVisible();

  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Confirmar a nova chave" }).click();
  await expect(page.getByTestId("payout-hold")).toHaveCount(0);

  await page.goto("/dashboard/audit");
  for (const action of ["withdrawal.requested", "payoutKey.changed", "payoutKey.confirmed"]) {
    await expect(page.getByTestId("audit-table").locator(`tr[data-action="${action}"]`)).toHaveCount(1);
  }
});

test("a viewer invited by e-mail can read but cannot withdraw or manage the team", async ({
  page,
  request,
  browser,
}) => {
  const m = await seedMerchant(request, { openingBalance: 50_000 });
  const secret = await (async () => {
    await signIn(page, m.email);
    return enableTwoFactor(page);
  })();
  const viewerEmail = uniqueEmail("viewer");
  await page.goto("/dashboard/team");
  await page.getByLabel("E-mail").fill(viewerEmail);
  await page.getByLabel("Papel").last().selectOption("viewer");
  await stepUpIfAsked(page, secret);
  await page.getByRole("button", { name: "Enviar convite" }).click();
  await expect(page.getByText(`Convite enviado para ${viewerEmail}.`)).toBeVisible();
  const invitation = await mailTo(viewerEmail, /token=/);

  const viewer = await browser.newContext();
  const vp = await viewer.newPage();
  await vp.goto(linkIn(invitation));
  await vp.getByLabel("Senha", { exact: true }).fill("viewer password 1");
  await vp.getByRole("button", { name: "Criar acesso" }).click();
  await expect(vp).toHaveURL(/\/signin\?joined=1/);
  await signIn(vp, viewerEmail, "viewer password 1");

  await vp.goto("/dashboard/withdrawals");
  await expect(vp.getByTestId("withdraw-not-allowed")).toBeVisible();
  await expect(vp.getByRole("button", { name: "Revisar saque" })).toHaveCount(0);
  await expect(vp.getByRole("link", { name: "Equipe" })).toHaveCount(0);
  const team = await vp.goto("/dashboard/team");
  expect(team!.status()).toBe(404);
  await vp.goto("/dashboard/developers");
  await expect(vp.getByRole("button", { name: "Criar chave" })).toHaveCount(0);

  // The server action itself checks the role: the owner's own request, replayed with the viewer's
  // session, is refused and changes nothing.
  await page.goto("/dashboard/settings");
  const posted = page.waitForRequest((r) => r.method() === "POST" && r.headers()["next-action"] !== undefined);
  await page.getByLabel("Nome da empresa").fill("Loja do Dono");
  await page.getByRole("button", { name: "Salvar" }).first().click();
  const captured = await posted;
  await expect(page.getByTestId("merchant-name")).toHaveText("Loja do Dono");
  const replay = await vp.request.post(captured.url(), {
    // From our own origin, as the viewer's browser would send it (a request without Origin is refused first: proxy.ts).
    headers: { ...captured.headers(), origin: new URL(page.url()).origin },
    data: Buffer.from(
      captured.postDataBuffer()!.toString("latin1").replace("Loja do Dono", "Loja do Leitor"),
      "latin1",
    ),
  });
  expect(replay.status()).toBe(200);
  expect(await replay.text()).toContain("security.notAllowed");
  await vp.goto("/dashboard");
  await expect(vp.getByTestId("merchant-name")).toHaveText("Loja do Dono");
  await viewer.close();

  // The owner heard of the new member, and the trail shows who joined.
  await mailTo(m.email, new RegExp(viewerEmail.replace(/[.]/g, "\\.")));
  await page.goto("/dashboard/audit");
  await expect(page.getByTestId("audit-table").locator('tr[data-action="team.joined"]')).toContainText(viewerEmail);
  expect(secret).toHaveLength(32);
});

test("a revoked session is refused: signed out from another browser, and a copied cookie after Sair", async ({
  page,
  request,
  browser,
}) => {
  const m = await seedMerchant(request);
  await signIn(page, m.email);

  // A second browser signs in; the first ends that session from its sessions list.
  const other = await browser.newContext();
  const op = await other.newPage();
  await signIn(op, m.email);
  await page.goto("/dashboard/security");
  await expect(page.getByTestId("session-row")).toHaveCount(2);
  await page
    .getByTestId("session-row")
    .filter({ hasNotText: "Esta sessão" })
    .getByRole("button", { name: "Encerrar" })
    .click();
  await expect(page.getByTestId("session-row")).toHaveCount(1);
  await op.goto("/dashboard");
  await expect(op).toHaveURL(/\/signin/);

  // Signed in again there, then "sign out everywhere else" from here.
  await signIn(op, m.email);
  await page.reload();
  await expect(page.getByTestId("session-row")).toHaveCount(2);
  await page.getByRole("button", { name: "Sair de todos os outros lugares" }).click();
  await expect(page.getByText("1 outra sessão encerrada.")).toBeVisible();
  await op.goto("/dashboard");
  await expect(op).toHaveURL(/\/signin/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard$/);
  await other.close();

  // A copy of this browser's cookie works until this browser signs out, then it is refused too.
  const copy: BrowserContext = await browser.newContext();
  await copy.addCookies(await page.context().cookies());
  const cp = await copy.newPage();
  await cp.goto("/dashboard");
  await expect(cp).toHaveURL(/\/dashboard$/);
  await signOut(page);
  await cp.goto("/dashboard/withdrawals");
  await expect(cp).toHaveURL(/\/signin/);
  const json = await cp.request.get("/dashboard/api/overview");
  expect(json.status()).toBe(401);
  await copy.close();
});

test("a reset e-mail arrives, its link works once, and it ends the old sessions", async ({
  page,
  request,
  browser,
}) => {
  const m = await seedMerchant(request);
  const old = await browser.newContext();
  const oldPage = await old.newPage();
  await signIn(oldPage, m.email);

  await page.goto("/signin");
  await page.getByRole("link", { name: "Esqueceu a senha?" }).click();
  await expect(page.getByRole("heading", { name: "Redefinir a senha" })).toBeVisible();
  await page.getByLabel("E-mail").fill(m.email.toUpperCase());
  await page.getByRole("button", { name: "Enviar link" }).click();
  await expect(page.getByRole("status")).toContainText("está a caminho");
  const mail = await mailTo(m.email, /reset-password\?token=/);
  const link = linkIn(mail);

  await page.goto(link);
  await page.getByLabel("Nova senha").fill("a brand new password");
  await page.getByRole("button", { name: "Salvar nova senha" }).click();
  await expect(page).toHaveURL(/\/signin\?reset=1/);
  await expect(page.getByRole("status")).toHaveText("Senha alterada. Entre com a nova senha.");
  await signIn(page, m.email, "a brand new password");

  // Once only.
  await page.goto(link);
  await expect(page.getByTestId("reset-invalid")).toBeVisible();
  // The session opened with the old password is over.
  await oldPage.goto("/dashboard");
  await expect(oldPage).toHaveURL(/\/signin/);
  await old.close();
  // An unknown address gets the same answer and no mail.
  await page.context().clearCookies();
  await page.goto("/forgot-password");
  const nobody = uniqueEmail("nobody");
  await page.getByLabel("E-mail").fill(nobody);
  await page.getByRole("button", { name: "Enviar link" }).click();
  await expect(page.getByRole("status")).toContainText("está a caminho");
  expect((await inbox()).some((x) => x.to === nobody)).toBe(false);
});

test("no page reports a CSP violation, and every script carries the request's nonce", async ({ page, request }) => {
  test.setTimeout(180_000);
  const m = await seedMerchant(request, { openingBalance: 20_000 });
  const order = await api(request, m.apiKey).post("/order/create/pix", { value: 12.5 });
  const violations: string[] = [];
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(msg.text()))
      violations.push(`${page.url()}: ${msg.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __csp: string[] }).__csp ??= [];
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const check = async (url: string) => {
    const res = await page.goto(url);
    const csp = res!.headers()["content-security-policy"];
    expect(csp, url).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    // Every script the server wrote carries this request's nonce (those the app's own chunks add
    // later run under 'strict-dynamic').
    const tags = (await res!.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(tags.length, url).toBeGreaterThan(0);
    for (const tag of tags) expect(tag, url).toContain(`nonce="${nonce}"`);
    await page.waitForLoadState("load");
    await page.waitForTimeout(300);
    const seen = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
    violations.push(...seen.map((v) => `${url}: ${v}`));
  };
  for (const url of [
    "/",
    "/signin",
    "/signup",
    "/forgot-password",
    "/reset-password?token=x",
    "/invite?token=x",
    "/docs",
    `/pay/${order.pixOrder.paymentLinkId}`,
  ])
    await check(url);
  await signIn(page, m.email);
  for (const url of [
    "/dashboard",
    "/dashboard/orders",
    `/dashboard/orders/${order.pixOrder._id}`,
    "/dashboard/orders/new",
    "/dashboard/withdrawals",
    "/dashboard/developers",
    "/dashboard/settings",
    "/dashboard/security",
    "/dashboard/team",
    "/dashboard/audit",
  ])
    await check(url);
  // The pages work, not merely load: a client-side interaction after hydration.
  await page.goto("/dashboard/security");
  await page.getByTestId("enrol-password").fill(PASSWORD);
  await page.getByRole("button", { name: "Ativar 2FA" }).click();
  await expect(page.getByTestId("totp-secret")).toBeVisible();
  expect(violations).toEqual([]);
});

test("a server action posted from another origin is refused; the same request from this origin is not", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Loja Original" });
  await signIn(page, m.email);
  await page.goto("/dashboard/settings");
  const posted = page.waitForRequest((r) => r.method() === "POST" && r.headers()["next-action"] !== undefined);
  await page.getByLabel("Nome da empresa").fill("Loja Editada");
  await page.getByRole("button", { name: "Salvar" }).first().click();
  const captured = await posted;
  await expect(page.getByTestId("merchant-name")).toHaveText("Loja Editada");

  const headers = { ...captured.headers() };
  const body = captured.postDataBuffer()!;
  const replay = (origin: string, name: string) =>
    page.request.post(captured.url(), {
      headers: { ...headers, origin },
      data: Buffer.from(body.toString("latin1").replace("Loja Editada", name), "latin1"),
      maxRedirects: 0,
    });
  const foreign = await replay("https://evil.example", "Loja Hackeada");
  expect(foreign.status()).toBeGreaterThanOrEqual(400);
  await page.reload();
  await expect(page.getByTestId("merchant-name")).toHaveText("Loja Editada");

  // The same bytes from our own origin go through: the refusal above was the origin check.
  const own = await replay(new URL(page.url()).origin, "Loja Replay");
  expect(own.status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("merchant-name")).toHaveText("Loja Replay");
});
