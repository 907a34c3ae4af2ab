import { expect, test, type Locator, type Page } from "@playwright/test";
import { api, enableTwoFactor, freshTotp, seedMerchant, signIn } from "./helpers";
import { database } from "./support/database";
import { PHONE, SIZES, noHorizontalOverflow } from "./support/sizes";

// Money to a destination nobody confirmed yet, as a merchant meets it (docs/security.md "Withdrawal
// destinations"): a PIX withdrawal to a new key and a return of unapplied funds to a new address are
// each told on their review step, before the code, that the destination is new and what will happen;
// once confirmed they show as waiting; an owner's confirmation releases them; a waiting one can be
// cancelled. Every state at 375 px and 1280 px, none wider than the window; screenshots in SHOTS.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-ux";
const NEW_KEY = "fornecedor.novo@example.com";
const OTHER_KEY = "outro.fornecedor@example.com";
// Hardhat test accounts #3 and #4: valid EIP-55 addresses, never a sender here.
const NEW_ADDRESS = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const OTHER_ADDRESS = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";

async function shootBothSizes(page: Page, name: string) {
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await noHorizontalOverflow(page, `${name}@${size}`);
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png`, fullPage: true });
  }
  await page.setViewportSize(PHONE);
}

async function stepUp(scope: Page | Locator, secret: string) {
  if (!("goto" in scope)) await expect(scope).toBeVisible();
  const field = scope.getByTestId("step-up-code");
  if (await field.first().isVisible()) await field.first().fill(await freshTotp(secret));
}

async function submit(page: Page, button: Locator) {
  const answered = page.waitForResponse(
    (r) => r.request().method() === "POST" && r.request().headers()["next-action"] !== undefined,
  );
  await button.click();
  await answered;
}

/** The history's row for a destination: the phone list or the table, whichever shows. */
const historyRow = (page: Page, destination: string) =>
  page.getByTestId("withdrawal-row").filter({ visible: true }).filter({ hasText: destination });

async function reviewPix(page: Page, value: string, key: string) {
  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("Valor (R$)").fill(value);
  await page.getByLabel("Outra chave PIX").check();
  await page.getByRole("radio", { name: "E-mail" }).check();
  await page.getByLabel("Chave PIX de destino").fill(key);
  await page.getByRole("button", { name: "Revisar saque" }).click();
}

/** A polygon order of R$ 54, expired, then 10 USDT sent to it: unapplied funds to return. */
async function lateOrder(merchant: ReturnType<typeof api>): Promise<string> {
  const sql = database();
  try {
    const late = await merchant.post("/onchain/deposit", { value: 54, asset: "USDT", network: "polygon" });
    await sql`update onchain_orders set expires_at = now() - interval '1 minute' where payment_link_id = ${late.order.paymentLinkId}`;
    await merchant.post(`/sandbox/onchain/${late.order.paymentLinkId}/transfer`, { amount: "10" });
    return late.order.id as string;
  } finally {
    await sql.end();
  }
}

async function reviewReturn(page: Page, orderId: string, to: string) {
  await page.goto(`/dashboard/orders/${orderId}`);
  const panel = page.getByTestId("unapplied-panel");
  await panel.getByRole("button", { name: "Devolver a quem enviou" }).click();
  const form = page.getByTestId("unapplied-return-form");
  await form.getByLabel(/Endereço de destino/).fill(to);
  await form.getByRole("button", { name: "Revisar devolução" }).click();
  return page.getByTestId("unapplied-return-review");
}

test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("a withdrawal to a new key and a return to a new address are told first, wait, are released by the owner, and can be cancelled", async ({
  page,
  request,
}) => {
  test.setTimeout(300_000);
  const m = await seedMerchant(request, { openingBalance: 100_000, companyName: "Loja Destinos" });
  const merchant = api(request, m.apiKey);
  const returned = await lateOrder(merchant);
  const cancelled = await lateOrder(merchant);
  await signIn(page, m.email);
  const secret = await enableTwoFactor(page);
  await page.setViewportSize(PHONE);

  // The PIX review says, before the code, that the key is new and what will happen.
  await reviewPix(page, "150", NEW_KEY);
  const notice = page.getByTestId("destination-notice");
  await expect(notice).toHaveAttribute("data-state", "new");
  await expect(notice).toContainText("Este destino é novo.");
  await expect(notice).toContainText("nada é enviado até um proprietário confirmar o destino");
  await expect(notice).toContainText("você pode cancelá-lo no histórico");
  await shootBothSizes(page, "destination-pix-review");
  await stepUp(page, secret);
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
  await expect(page.getByRole("status").filter({ hasText: "Saque registrado e valor reservado" })).toBeVisible();
  // In the history, waiting, with what releases it and a cancel button; the balance already reserves it.
  const waiting = historyRow(page, "f***@example.com").getByTestId("withdrawal-waiting");
  await expect(waiting).toContainText("Aguardando o destino: enviado quando um proprietário o confirmar, ou em");
  await expect(waiting.getByRole("button", { name: "Cancelar saque" })).toBeVisible();
  await expect(page.getByTestId("withdraw-balance")).toHaveText(/R\$\s850,00/);
  await shootBothSizes(page, "destination-pix-waiting");

  // The return's review says the same of an address that is not the sender's.
  const review = await reviewReturn(page, returned, NEW_ADDRESS);
  await expect(review.getByTestId("destination-notice")).toHaveAttribute("data-state", "new");
  await shootBothSizes(page, "destination-return-review");
  await stepUp(review, secret);
  await submit(page, review.getByRole("button", { name: /^Devolver [\d,]+ USDT$/ }));
  const returnWaiting = page.getByTestId("unapplied-waiting");
  await expect(returnWaiting).toContainText(`Aguardando o destino ${NEW_ADDRESS}`);
  await expect(page.getByTestId("unapplied-resolution")).toContainText("aguardando o destino");
  await shootBothSizes(page, "destination-return-waiting");

  // The owner confirms both destinations: each leaves at once.
  await page.goto("/dashboard/withdrawals/destinations");
  for (const value of [NEW_KEY, NEW_ADDRESS.toLowerCase()]) {
    const row = page.locator(`[data-testid="destination-row"][data-value="${value}"]`);
    await expect(row).toHaveAttribute("data-status", "held");
    await stepUp(row, secret);
    await submit(page, row.getByRole("button", { name: `Confirmar ${value}` }));
    await expect(row).toHaveAttribute("data-status", "confirmed");
  }
  await page.goto("/dashboard/withdrawals");
  await expect(historyRow(page, "f***@example.com").getByTestId("withdrawal-waiting")).toHaveCount(0);
  await expect(historyRow(page, "f***@example.com")).toContainText(/Concluído|Pendente/, { timeout: 30_000 });
  await shootBothSizes(page, "destination-pix-released");
  await page.goto(`/dashboard/orders/${returned}`);
  await expect(page.getByTestId("unapplied-waiting")).toHaveCount(0);
  await expect(page.getByTestId("unapplied-resolution")).toHaveAttribute("data-status", "return:COMPLETED", {
    timeout: 60_000,
  });
  await shootBothSizes(page, "destination-return-released");

  // A withdrawal to another new key, cancelled while it waits: the balance comes back.
  await reviewPix(page, "200", OTHER_KEY);
  await expect(page.getByTestId("destination-notice")).toHaveAttribute("data-state", "new");
  await stepUp(page, secret);
  await submit(page, page.getByRole("button", { name: "Confirmar saque" }));
  const other = historyRow(page, "o***@example.com");
  await expect(other.getByTestId("withdrawal-waiting")).toBeVisible();
  await submit(page, other.getByRole("button", { name: "Cancelar saque" }));
  await expect(other.getByTestId("withdrawal-waiting")).toHaveCount(0);
  await expect(other).toContainText("Falhou");
  await expect(other).toContainText("Cancelado enquanto aguardava a confirmação do destino");
  await expect(page.getByTestId("withdraw-balance")).toHaveText(/R\$\s850,00/);
  await shootBothSizes(page, "destination-pix-cancelled");

  // A return to another new address, cancelled: the funds wait for a decision again.
  const second = await reviewReturn(page, cancelled, OTHER_ADDRESS);
  await stepUp(second, secret);
  await submit(page, second.getByRole("button", { name: /^Devolver [\d,]+ USDT$/ }));
  const secondWaiting = page.getByTestId("unapplied-waiting");
  await expect(secondWaiting).toBeVisible();
  await submit(page, secondWaiting.getByRole("button", { name: "Cancelar devolução" }));
  await expect(page.getByTestId("unapplied-resolution")).toHaveCount(0);
  await expect(
    page.getByTestId("unapplied-panel").getByRole("button", { name: "Aceitar como pagamento" }),
  ).toBeVisible();
  await shootBothSizes(page, "destination-return-cancelled");

  // Each step is in the audit trail.
  await page.goto("/dashboard/audit");
  const trail = page.getByTestId("audit-table");
  for (const action of [
    "withdrawal.released",
    "withdrawal.cancelled",
    "unapplied.returnReleased",
    "unapplied.returnCancelled",
  ])
    await expect(trail.locator(`tr[data-action="${action}"]`)).toHaveCount(1);
});
