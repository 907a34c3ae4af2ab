import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { enableTwoFactor, freshTotp, seedMerchant, signIn } from "./helpers";
import { inbox, linkIn, newMailTo } from "./support/inbox";

// The attack of docs/security.md "Withdrawal destinations", replayed in a browser against the built
// app: someone who took over a session (password, second factor, a step-up just proved) sends the
// balance by PIX to a key of theirs and on-chain to an address of theirs. Each must be held and
// refused, nothing debited, and the owners mailed; only once an owner confirms (in the dashboard, or
// through the link mailed to them) does the money go. With the API allow-list on, the API's pix-out
// to a key no owner confirmed is its own 400. What the defence promises is asserted with
// expect.soft, so a build without it reports each promise it breaks rather than only the first.

test.beforeAll(async () => {
  await inbox();
});

const NEW_KEY = "recebedor.novo@example.com";
// Hardhat test account #2: a valid EIP-55 address.
const NEW_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const NEW_ADDRESS_STORED = NEW_ADDRESS.toLowerCase();

/** Fills the step-up field inside `scope` when the form asks for one (a session stepped up within STEP_UP_MINUTES is not asked). */
async function stepUp(scope: Page | Locator, secret: string) {
  // A streamed page holds its content hidden until it is swapped in: look only once it shows.
  if (!("goto" in scope)) await expect(scope).toBeVisible();
  const field = scope.getByTestId("step-up-code");
  if (await field.first().isVisible()) await field.first().fill(await freshTotp(secret));
}

/** Posts a server action and waits for its answer. */
async function submit(page: Page, button: Locator) {
  const answered = page.waitForResponse(
    (r) => r.request().method() === "POST" && r.request().headers()["next-action"] !== undefined,
  );
  await button.click();
  await answered;
}

async function withdrawByPix(page: Page, secret: string, value: string, key: string) {
  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("Valor (R$)").fill(value);
  await page.getByLabel("Outra chave PIX").check();
  await page.getByRole("radio", { name: "E-mail" }).check();
  await page.getByLabel("Chave PIX de destino").fill(key);
  await page.getByRole("button", { name: "Revisar saque" }).click();
  await stepUp(page, secret);
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
}

async function withdrawOnchain(page: Page, secret: string, value: string, address: string) {
  await page.goto("/dashboard/withdrawals");
  await page.getByRole("button", { name: "Sacar on-chain" }).click();
  await page.getByLabel("Endereço da carteira (0x…)").fill(address);
  await page.getByLabel("Valor (R$)").fill(value);
  await page.getByRole("button", { name: "Revisar saque" }).click();
  await stepUp(page, secret);
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
}

async function balance(request: APIRequestContext, apiKey: string): Promise<number> {
  const res = await request.get("/api/v1/account", { headers: { authorization: `Bearer ${apiKey}` } });
  return (await res.json()).merchant.balance;
}

const requested = (page: Page) => page.getByRole("status").filter({ hasText: "Saque solicitado" });
const heldAlert = (page: Page, destination: string) =>
  page
    .getByRole("alert")
    .filter({ hasText: `${destination} é um destino de saque novo: saques para ele aguardam até` });

test("a stepped-up session's withdrawals to a new PIX key and a new address are held until an owner confirms them, and the owners hear of each", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(300_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  await signIn(page, m.email);
  const secret = await enableTwoFactor(page);
  const since = (await inbox()).length;

  // PIX to a key this account never paid: refused, saying until when and how to release it; nothing leaves.
  await withdrawByPix(page, secret, "400", NEW_KEY);
  await expect.soft(heldAlert(page, NEW_KEY)).toBeVisible();
  await expect
    .soft(heldAlert(page, NEW_KEY))
    .toContainText(
      "a menos que um proprietário o confirme (Saques → Destinos, ou o link enviado por e-mail aos proprietários)",
    );
  await expect.soft(requested(page)).toHaveCount(0);
  // On-chain to an address this account never paid: the same.
  await withdrawOnchain(page, secret, "300", NEW_ADDRESS);
  await expect.soft(heldAlert(page, NEW_ADDRESS_STORED)).toBeVisible();
  await expect.soft(requested(page)).toHaveCount(0);
  expect.soft(await balance(request, m.apiKey), "nothing was debited").toBe(100_000);

  // The owners were mailed about each destination, with the link that confirms it.
  const keyMail = await newMailTo(m.email, /Chave PIX recebedor\.novo@example\.com/, since).catch(() => null);
  expect.soft(keyMail?.text).toContain("Nada é enviado a ele até");
  expect.soft(keyMail?.text).toMatch(/confirm-destination\?token=/);
  const addressMail = await newMailTo(m.email, new RegExp(`Endereço da carteira ${NEW_ADDRESS_STORED}`), since).catch(
    () => null,
  );
  expect.soft(addressMail?.text).toMatch(/confirm-destination\?token=/);

  // The address book lists both as held.
  await page.goto("/dashboard/withdrawals");
  await expect(page.getByTestId("destinations-link")).toBeVisible();
  await page.getByTestId("destinations-link").click();
  await expect(page).toHaveURL(/\/dashboard\/withdrawals\/destinations$/);
  const keyRow = page.locator(`[data-testid="destination-row"][data-value="${NEW_KEY}"]`);
  const addressRow = page.locator(`[data-testid="destination-row"][data-value="${NEW_ADDRESS_STORED}"]`);
  await expect(keyRow).toHaveAttribute("data-status", "held");
  await expect(addressRow).toHaveAttribute("data-status", "held");

  // An owner confirms the key here, with a fresh second factor...
  await stepUp(keyRow, secret);
  await submit(page, keyRow.getByRole("button", { name: `Confirmar ${NEW_KEY}` }));
  await expect(keyRow).toHaveAttribute("data-status", "confirmed");
  // ...and the address through the mailed link, from a browser with no session: the page shows what it
  // confirms and confirms nothing until asked; the link works once.
  const link = linkIn(addressMail!, "/confirm-destination?");
  const mailbox = await browser.newContext();
  const linkPage = await mailbox.newPage();
  await linkPage.goto(link);
  await expect(linkPage.getByTestId("link-destination")).toHaveText(NEW_ADDRESS_STORED);
  await page.reload();
  await expect(addressRow).toHaveAttribute("data-status", "held");
  await linkPage.getByRole("button", { name: "Confirmar este destino" }).click();
  await expect(
    linkPage.getByRole("status").filter({ hasText: "Destino confirmado: saques para ele já podem sair." }),
  ).toBeVisible();
  await linkPage.goto(link);
  await expect(linkPage.getByTestId("link-invalid")).toBeVisible();
  await mailbox.close();
  await page.reload();
  await expect(addressRow).toHaveAttribute("data-status", "confirmed");

  // Confirmed: both withdrawals go, and each is mailed to the owners.
  await withdrawByPix(page, secret, "400", NEW_KEY);
  await expect(requested(page)).toBeVisible();
  await withdrawOnchain(page, secret, "300", NEW_ADDRESS);
  await expect(requested(page)).toBeVisible();
  expect(await balance(request, m.apiKey)).toBeLessThan(100_000 - 40_000 - 30_000 + 1);
  await newMailTo(
    m.email,
    /Foi solicitado um saque de R\$\s400,00 .*, para Chave PIX recebedor\.novo@example\.com\./,
    since,
  );
  await newMailTo(
    m.email,
    new RegExp(`Foi solicitado um saque de R\\$\\s300,00 .*, para ${NEW_ADDRESS} \\(Polygon`),
    since,
  );

  await page.goto("/dashboard/audit");
  const trail = page.getByTestId("audit-table");
  await expect(trail.locator('tr[data-action="destination.confirmed"]')).toHaveCount(2);
  await expect(trail.locator('tr[data-action="withdrawal.requested"]')).toHaveCount(2);
});

test("with the allow-list on, the API's pix-out to a key no owner confirmed is its own 400; once confirmed it goes", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  const headers = { authorization: `Bearer ${m.apiKey}` };
  const pixOut = (pixKey?: string) =>
    request.post("/api/v1/order/pix-out", { headers, data: { value: 1000, ...(pixKey ? { pixKey } : {}) } });

  // Off, the default: the API pays any valid key, as the spec says (a marketplace pays many sellers).
  expect((await pixOut("vendedor@example.com")).status()).toBe(201);

  await signIn(page, m.email);
  const secret = await enableTwoFactor(page);
  await page.goto("/dashboard/withdrawals/destinations");
  const allowlist = page.getByTestId("allowlist");
  await expect(allowlist).toHaveAttribute("data-enabled", "false");
  await stepUp(allowlist, secret);
  await submit(page, allowlist.getByRole("button", { name: "Ativar a lista de permissões" }));
  await expect(allowlist).toHaveAttribute("data-enabled", "true");

  // A key no owner confirmed, even one the API paid before: pix-out's 400, `{ message, error: { details } }`, naming it.
  for (const key of ["outro@example.com", "vendedor@example.com"]) {
    const refused = await pixOut(key);
    expect(refused.status()).toBe(400);
    const body = await refused.json();
    expect(Object.keys(body).sort()).toEqual(["error", "message"]);
    expect(body.message).toBe(
      `pixKey ${key} is not a confirmed withdrawal destination: the API allow-list is on, so API withdrawals go only to ` +
        "destinations an owner has confirmed in the dashboard (Withdrawals → Destinations) and to the registered payout key",
    );
    expect(body.error).toEqual({ details: body.message });
  }
  // The registered payout key counts as a destination.
  expect((await pixOut()).status()).toBe(201);

  // An owner confirms the seller's key: the API pays it again.
  await page.reload();
  const row = page.locator('[data-testid="destination-row"][data-value="vendedor@example.com"]');
  await expect(row).toHaveAttribute("data-status", "released");
  await stepUp(row, secret);
  await submit(page, row.getByRole("button", { name: "Confirmar vendedor@example.com" }));
  await expect(row).toHaveAttribute("data-status", "confirmed");
  expect((await pixOut("vendedor@example.com")).status()).toBe(201);

  // The owners were told the allow-list was turned on.
  await newMailTo(m.email, /A lista de permissões da API foi ativada/, 0);
});
