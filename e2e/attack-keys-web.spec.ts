import { expect, test, type Locator, type Page } from "@playwright/test";
import { enableTwoFactor, freshTotp, PASSWORD, seedMerchant, signIn, stepUpIfAsked, uniqueEmail } from "./helpers";
import { inbox, linkIn, mailTo, newMailTo } from "./support/inbox";

// The attacks of docs/security.md ("API keys", "Sign-up and invitations", "Browser hardening"),
// replayed against the built app: each test does what the attacker did and checks it no longer works.

const missing = (scope: string) => expect.stringContaining(`does not have the ${scope} scope`);

/** Fills the step-up field of one form when it asks for one (the Developers page has two). */
async function stepUpIn(form: Locator, secret: string) {
  const field = form.getByTestId("step-up-code");
  if (await field.isVisible()) await field.fill(await freshTotp(secret));
}

test("a developer's key cannot withdraw, and a developer cannot give a key withdrawals", async ({
  page,
  request,
  browser,
}) => {
  // Two members enrol a second factor (each with its mailed code, the owners' link and a new sign-in).
  test.setTimeout(240_000);
  await inbox(); // listening before the first mail (the invitation)
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  await signIn(page, m.email);
  const ownerSecret = await enableTwoFactor(page);

  // The owner invites a developer, who joins and enrols a second factor as the attacker did.
  const devEmail = uniqueEmail("dev");
  const devPassword = "developer password 1";
  await page.goto("/dashboard/team");
  await page.getByLabel("E-mail").fill(devEmail);
  await page.getByLabel("Papel").last().selectOption("developer");
  await stepUpIfAsked(page, ownerSecret);
  await page.getByRole("button", { name: "Enviar convite" }).click();
  await expect(page.getByText(`Convite enviado para ${devEmail}.`)).toBeVisible();
  const invitation = await mailTo(devEmail, /invite\?token=/);
  const dev = await browser.newContext();
  const dp = await dev.newPage();
  await dp.goto(linkIn(invitation));
  await dp.getByLabel("Senha", { exact: true }).fill(devPassword);
  await dp.getByRole("button", { name: "Criar acesso" }).click();
  await expect(dp).toHaveURL(/\/signin\?joined=1/);
  await signIn(dp, devEmail, devPassword);
  const devSecret = await enableTwoFactor(dp, devPassword);

  // The developer makes a key as the form offers it...
  await dp.goto("/dashboard/developers");
  const keys = dp.getByRole("region", { name: "Chaves de API" });
  await dp.getByLabel("Nome da chave").fill("integração");
  await stepUpIn(keys, devSecret);
  await dp.getByRole("button", { name: "Criar chave" }).click();
  const key = (await dp.getByTestId("new-api-key").textContent())!.trim();

  // ...and tries to withdraw with it, both ways: 403 in each endpoint's own body, naming the scope.
  const headers = { authorization: `Bearer ${key}` };
  const pixOut = await request.post("/api/v1/order/pix-out", { headers, data: { value: 1000, pixKey: "52998224725" } });
  expect(pixOut.status()).toBe(403);
  expect(await pixOut.json()).toEqual({
    message: missing("withdrawals"),
    error: { details: missing("withdrawals") },
    code: "forbidden",
  });
  const onchain = await request.post("/api/v1/onchain/withdraw/initiate", {
    headers,
    data: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 10, network: "polygon" },
  });
  expect(onchain.status()).toBe(403);
  expect(await onchain.json()).toEqual({
    message: missing("withdrawals"),
    error: missing("withdrawals"),
    code: "forbidden",
  });
  // What the key may do, it does; the balance is untouched.
  const account = await request.get("/api/v1/account", { headers });
  expect(account.status()).toBe(200);
  expect((await account.json()).merchant.balance).toBe(100_000);

  // The form offered no more than the role: the key reads and takes payments.
  await expect(
    dp.getByTestId("api-key-row").filter({ hasText: "integração" }).getByTestId("api-key-access"),
  ).toHaveText("Leitura · Pagamentos");
  await expect(dp.getByTestId("scope-read")).toBeVisible();
  await expect(dp.getByTestId("scope-withdrawals")).toHaveCount(0);
  await expect(dp.getByTestId("scope-refunds")).toHaveCount(0);

  // A form doctored to ask for withdrawals anyway is refused by the server, and no key is made.
  await dp.getByLabel("Nome da chave").fill("escalada");
  await dp.locator("form:has([name='scope-read'])").evaluate((form) => {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = "scope-withdrawals";
    input.value = "on";
    form.appendChild(input);
  });
  await stepUpIn(keys, devSecret);
  await dp.getByRole("button", { name: "Criar chave" }).click();
  await expect(dp.getByText("Seu papel não pode dar este acesso a uma chave")).toBeVisible();
  await dp.reload();
  await expect(dp.getByTestId("api-key-row").filter({ hasText: "escalada" })).toHaveCount(0);
  await dev.close();
});

const HOSTILE = [
  "%2F%09%2Fevil.example",
  "%2F%09%5Cevil.example",
  "%2F%2Fevil.example",
  "%2F%5Cevil.example",
  "https%3A%2F%2Fevil.example%2F",
  "javascript%3Aalert(1)",
];

test("after sign-in the visitor stays on this site whatever callbackUrl says, and CR/LF in it is no 500", async ({
  page,
  request,
  context,
  baseURL,
}) => {
  // Were the browser sent to evil.example, it would land here (no real DNS needed to see it).
  await context.route(/^https?:\/\/evil\.example\//, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<h1>evil</h1>" }),
  );
  const origin = new URL(baseURL!).origin;
  const m = await seedMerchant(request);

  // Signing in through the form: sent on by the browser.
  await page.goto(`/signin?callbackUrl=${HOSTILE[0]}`);
  await page.getByLabel("E-mail").fill(m.email);
  await page.getByLabel("Senha", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Entrar" }).click();
  await expect(page).toHaveURL(`${origin}/dashboard`);

  // Already signed in: sent on by the server's redirect.
  for (const hostile of HOSTILE) {
    await page.goto(`/signin?callbackUrl=${hostile}`);
    expect(new URL(page.url()).origin, hostile).toBe(origin);
    await expect(page.getByRole("heading", { name: "evil" })).toHaveCount(0);
  }

  for (const crlf of ["%2Fdashboard%0D%0ASet-Cookie%3A%20x%3Dy", "%2F%0D%0A%2Fevil.example", "%0D%0A"]) {
    const res = await page.request.get(`/signin?callbackUrl=${crlf}`, { maxRedirects: 0 });
    expect(res.status(), crlf).toBeLessThan(500);
    const location = res.headers()["location"];
    if (location) expect(new URL(location, origin).origin, crlf).toBe(origin);
    expect(res.headers()["set-cookie"] ?? "").not.toContain("x=y");
  }
});

test("a server action without an Origin header is refused; the same request from this site is not", async ({
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

  // The same action with the victim's cookies, as a page that makes the browser leave Origin out would send it.
  const { origin: _origin, ...withoutOrigin } = captured.headers();
  const body = (name: string) =>
    Buffer.from(captured.postDataBuffer()!.toString("latin1").replace("Loja Editada", name), "latin1");
  const replay = (headers: Record<string, string>, name: string) =>
    page.request.post(captured.url(), { headers, data: body(name), maxRedirects: 0 });
  for (const [headers, name] of [
    [withoutOrigin, "Loja Sem Origem"],
    [{ ...withoutOrigin, origin: "null" }, "Loja Nula"],
    [{ ...withoutOrigin, "next-router-prefetch": "1" }, "Loja Prefetch"],
  ] as const) {
    const res = await replay(headers, name);
    expect(res.status(), name).toBe(403);
  }
  await page.reload();
  await expect(page.getByTestId("merchant-name")).toHaveText("Loja Editada");

  // The same bytes from our own origin go through: the refusals above were the Origin check.
  const own = await replay({ ...withoutOrigin, origin: new URL(page.url()).origin }, "Loja Replay");
  expect(own.status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("merchant-name")).toHaveText("Loja Replay");
});

/** Sends the sign-up form and returns what the visitor is left looking at, the address written out. */
async function signUp(page: Page, email: string) {
  await page.goto("/signup");
  await page.getByLabel("Nome da empresa").fill("Padaria Curiosa");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Senha", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Chave PIX para recebimentos").fill("529.982.247-25");
  await page.getByRole("button", { name: "Criar conta" }).click();
  // Whatever comes back: the "check your e-mail" message, a form error, or the dashboard.
  await expect(
    page.getByTestId("sign-up-sent").or(page.locator("form [role=alert]")).or(page.getByTestId("merchant-name")),
  ).toBeVisible({ timeout: 15_000 });
  return {
    path: new URL(page.url()).pathname,
    text: (await page.locator("body").innerText()).replaceAll(email, "<e-mail>"),
  };
}

test("sign-up with an e-mail that already has an account looks exactly like any other sign-up", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(120_000);
  const since = (await inbox()).length;
  const taken = await seedMerchant(request);
  const fresh = uniqueEmail("novo");

  const forFresh = await signUp(page, fresh);
  const other = await browser.newContext();
  const forTaken = await signUp(await other.newPage(), taken.email);
  await other.close();
  expect(forTaken).toEqual(forFresh);
  expect(forFresh.path).toBe("/signup");
  expect(forFresh.text).toContain("Confira seu e-mail");

  // The owner of the address is told instead; only a new address gets a link, and it works.
  const told = await newMailTo(taken.email, /já tem uma/, since);
  expect(told.text).not.toContain("/signup/confirm");
  const confirm = await newMailTo(fresh, /signup\/confirm\?token=/, since);
  await page.goto(/https?:\/\/\S+\/signup\/confirm\?token=[\w.-]+/.exec(confirm.text)![0]);
  await page.getByRole("button", { name: "Criar minha conta" }).click();
  await expect(page).toHaveURL(/\/signin\?created=1/);
  await signIn(page, fresh);
  await expect(page.getByTestId("merchant-name")).toHaveText("Padaria Curiosa");
});
