import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { enableTwoFactor, freshTotp, seedMerchant, signIn } from "./helpers";
import { database } from "./support/database";
import { inbox, linkIn, newMailTo } from "./support/inbox";

// The attack of docs/security.md "Withdrawal destinations", replayed in a browser against the built
// app: someone who took over an admin's session (password, second factor, a step-up just proved)
// sends the balance by PIX to a key of theirs, on-chain to an address of theirs, returns unapplied
// funds to that address, and mints an API key to do it over the API. The withdrawals and the return
// are recorded and wait, the minted key is refused, nothing reaches them, and the owners are mailed;
// only once an owner confirms (here through the link mailed to them) does the money go, and the
// owner can cancel what they do not know. With the API allow-list on, the API's pix-out
// to a key no owner confirmed is its own 400. What the defence promises is asserted with
// expect.soft, so a build without it reports each promise it breaks rather than only the first.

test.beforeAll(async () => {
  await inbox();
});

const NEW_KEY = "recebedor.novo@example.com";
// Hardhat test account #2: a valid EIP-55 address.
const NEW_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const NEW_ADDRESS_STORED = NEW_ADDRESS.toLowerCase();
// Hardhat test account #5: where the attacker asks unapplied funds to go (the sandbox's sender is #2's address).
const RETURN_ADDRESS = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";

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

/** The attacker: an admin of the merchant (may move money, may not confirm destinations), who knows the password. */
async function admin(merchantId: string, ownerEmail: string): Promise<string> {
  const email = ownerEmail.replace("@", "+admin@");
  const sql = database();
  try {
    await sql`insert into users (merchant_id, email, password_hash, role)
      select merchant_id, ${email}, password_hash, 'admin' from users where email = ${ownerEmail}`;
  } finally {
    await sql.end();
  }
  return email;
}

/** A polygon deposit order, expired, then 10 USDT sent to it: unapplied funds a return could send out. */
async function lateOrder(request: APIRequestContext, apiKey: string): Promise<string> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const res = await request.post("/api/v1/onchain/deposit", {
    headers,
    data: { value: 54, asset: "USDT", network: "polygon" },
  });
  const { order } = await res.json();
  const sql = database();
  try {
    await sql`update onchain_orders set expires_at = now() - interval '1 minute' where id = ${order.id}`;
  } finally {
    await sql.end();
  }
  await request.post(`/api/v1/sandbox/onchain/${order.paymentLinkId}/transfer`, { headers, data: { amount: "10" } });
  return order.id;
}

async function withdrawal(request: APIRequestContext, apiKey: string, destination: RegExp) {
  const res = await request.get("/api/v1/withdrawals", { headers: { authorization: `Bearer ${apiKey}` } });
  const list: { withdrawals: Record<string, string>[] } = await res.json();
  return list.withdrawals.find((w) => destination.test(w.pixKey ?? w.toAddress ?? ""));
}

test("a stepped-up session sends nothing to an address no owner confirmed, by any path: withdrawals and returns wait, a minted key is refused", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(300_000);
  const m = await seedMerchant(request, { openingBalance: 100_000 });
  const lateId = await lateOrder(request, m.apiKey);
  const attacker = await admin(m.merchantId, m.email);
  const since = (await inbox()).length;
  // Only the password and a second factor proved just now.
  await signIn(page, attacker);
  const secret = await enableTwoFactor(page);

  // PIX to a key of theirs and on-chain to an address of theirs: accepted, reserved, and waiting.
  await withdrawByPix(page, secret, "400", NEW_KEY);
  await expect(page.getByRole("status").filter({ hasText: "Saque registrado e valor reservado" })).toBeVisible();
  await withdrawOnchain(page, secret, "300", NEW_ADDRESS);
  await expect(page.getByRole("status").filter({ hasText: "Saque registrado e valor reservado" })).toBeVisible();
  // A return of unapplied funds to their address, not the sender's: waits too.
  await page.goto(`/dashboard/orders/${lateId}`);
  await page.getByTestId("unapplied-panel").getByRole("button", { name: "Devolver a quem enviou" }).click();
  await page
    .getByTestId("unapplied-return-form")
    .getByLabel(/Endereço de destino/)
    .fill(RETURN_ADDRESS);
  await page.getByRole("button", { name: "Revisar devolução" }).click();
  const review = page.getByTestId("unapplied-return-review");
  await expect(review.getByTestId("destination-notice")).toHaveAttribute("data-state", "new");
  await stepUp(review, secret);
  await submit(page, review.getByRole("button", { name: /^Devolver [\d,]+ USDT$/ }));
  await expect(page.getByTestId("unapplied-waiting")).toBeVisible();
  // A key minted now pays no new destination over the API either.
  await page.goto("/dashboard/developers");
  await page.getByLabel("Nome da chave").fill("atalho");
  await stepUp(page, secret);
  await page.getByRole("button", { name: "Criar chave" }).click();
  const minted = (await page.getByTestId("new-api-key").textContent())!.trim();
  const headers = { authorization: `Bearer ${minted}` };
  const viaApi = await request.post("/api/v1/order/pix-out", {
    headers,
    data: { value: 1000, pixKey: "outra.ladra@example.com" },
  });
  expect.soft(viaApi.status(), await viaApi.text()).toBeGreaterThanOrEqual(400);
  const chainApi = await request.post("/api/v1/onchain/withdraw/initiate", {
    headers,
    data: { toAddress: NEW_ADDRESS, value: 10, network: "polygon" },
  });
  expect.soft(chainApi.status(), await chainApi.text()).toBeGreaterThanOrEqual(400);

  // Several sweeps later (every 2 s) nothing has left: both withdrawals wait, with no transaction; the return has none.
  await page.waitForTimeout(8_000);
  const pix = await withdrawal(request, m.apiKey, /^r\*\*\*@example\.com$/);
  const chain = await withdrawal(request, m.apiKey, new RegExp(`^${NEW_ADDRESS}$`, "i"));
  expect
    .soft(pix)
    .toMatchObject({ status: "PENDING", waitingReason: expect.stringMatching(/^waiting for destination/) });
  expect
    .soft(chain)
    .toMatchObject({ status: "PENDING", waitingReason: expect.stringMatching(/^waiting for destination/) });
  expect.soft(chain?.transactionHash).toBeUndefined();
  expect.soft(await withdrawal(request, m.apiKey, /outra\.ladra|o\*\*\*@/)).toBeUndefined();
  const sql = database();
  try {
    const sent = await sql`select count(*)::int as n from chain_txs
      where lower(to_address) in (${NEW_ADDRESS_STORED}, ${RETURN_ADDRESS.toLowerCase()})`;
    expect.soft(sent[0].n, "no transaction to the attacker's addresses").toBe(0);
    const payouts = await sql`select count(*)::int as n from pix_payouts where pix_key = ${NEW_KEY}`;
    expect.soft(payouts[0].n, "no payout to the attacker's key").toBe(0);
  } finally {
    await sql.end();
  }

  // The owners heard of each request, with the amount and the destination, and of each new destination, with the link.
  await newMailTo(m.email, /saque de R\$\s400,00 [\s\S]*?recebedor\.novo@example\.com\.\s+O destino é novo/, since);
  await newMailTo(m.email, new RegExp(`saque de R\\$\\s300,00 .* para ${NEW_ADDRESS} \\(Polygon`), since);
  await newMailTo(
    m.email,
    new RegExp(`devolução de [\\d,]+ USDT recebidos por .* para ${RETURN_ADDRESS} \\(Polygon\\)`),
    since,
  );
  const keyMail = await newMailTo(
    m.email,
    /Subject: Novo destino de saque[\s\S]*Chave PIX recebedor\.novo@example\.com/,
    since,
  );
  expect(keyMail.text).toMatch(/confirm-destination\?token=/);

  // The real owner cancels the on-chain withdrawal (its money comes back) and confirms the key through the link: only then does it leave.
  const owner = await browser.newContext();
  const op = await owner.newPage();
  await signIn(op, m.email);
  await op.goto("/dashboard/withdrawals");
  const chainRow = op.getByTestId("withdrawal-row").filter({ visible: true }).filter({ hasText: NEW_ADDRESS });
  await submit(op, chainRow.getByRole("button", { name: "Cancelar saque" }));
  await expect(chainRow).toContainText("Falhou");
  await op.goto(linkIn(keyMail, "/confirm-destination?"));
  await op.getByRole("button", { name: "Confirmar este destino" }).click();
  await expect(op.getByRole("status").filter({ hasText: "Destino confirmado" })).toBeVisible();
  await expect(async () => {
    expect((await withdrawal(request, m.apiKey, /^r\*\*\*@example\.com$/))?.status).toBe("COMPLETED");
  }).toPass({ timeout: 30_000 });
  await owner.close();
  expect(await balance(request, m.apiKey)).toBe(100_000 - 40_000);

  await page.goto("/dashboard/audit");
  const trail = page.getByTestId("audit-table");
  await expect(trail.locator('tr[data-action="withdrawal.requested"]')).toHaveCount(2);
  await expect(trail.locator('tr[data-action="withdrawal.cancelled"]')).toHaveCount(1);
  await expect(trail.locator('tr[data-action="withdrawal.released"]')).toHaveCount(1);
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
    expect(Object.keys(body).sort()).toEqual(["code", "error", "message"]);
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
