import { expect, test, type Page } from "@playwright/test";
import { api, enableTwoFactor, freshTotp, seedMerchant, signIn, stepUpIfAsked } from "./helpers";
import { PHONE, DESKTOP, SIZES, noHorizontalOverflow } from "./support/sizes";
import { database } from "./support/database";

// An on-chain order's unapplied funds on the merchant's order page (docs/dashboard.md#unapplied-on-chain-funds):
// an overpayment accepted as payment and a late payment returned to its sender, each through a review that
// says what will happen and a fresh second factor; the order page and the payer's page then say what became
// of the money. Every state at 375 px and 1280 px, none wider than the window; screenshots in SHOTS.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-ux";

/** The page as it stands (a review open in it stays open) at each size, checked and kept as a screenshot. */
async function shootBothSizes(page: Page, name: string) {
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await noHorizontalOverflow(page, `${name}@${size}`);
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png`, fullPage: true });
  }
}

/** Opens `url` at each size, checks it, and keeps a screenshot of each. */
async function atBothSizes(page: Page, name: string, url: string, check: () => Promise<void>) {
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await page.goto(url);
    await check();
    await noHorizontalOverflow(page, `${name}@${size}`);
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png`, fullPage: true });
  }
}

test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("unapplied on-chain funds: an overpayment accepted and a late payment returned, each reviewed and stepped up; the payer is told", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const m = await seedMerchant(request, { companyName: "Loja Cripto" });
  const merchant = api(request, m.apiKey);
  const sql = database();
  let late: { order: { id: string; paymentLinkId: string } };
  let over: { order: { id: string; paymentLinkId: string; amount: number } };
  try {
    late = await merchant.post("/onchain/deposit", { value: 54, asset: "USDT", network: "polygon" });
    await sql`update onchain_orders set expires_at = now() - interval '1 minute' where payment_link_id = ${late.order.paymentLinkId}`;
    const lateTransfer = await merchant.post(`/sandbox/onchain/${late.order.paymentLinkId}/transfer`, { amount: "10" });
    expect(lateTransfer.transfer.unapplied).toBe(10);
    over = await merchant.post("/onchain/deposit", { value: 54, asset: "USDT", network: "polygon" });
    await merchant.post(`/sandbox/onchain/${over.order.paymentLinkId}/transfer`, {
      amount: String(Number(over.order.amount) + 2),
    });
  } finally {
    await sql.end();
  }

  await signIn(page, m.email);
  const secret = await enableTwoFactor(page);
  const lateUrl = `/dashboard/orders/${late.order.id}`;
  const overUrl = `/dashboard/orders/${over.order.id}`;

  // Offered: what arrived, why it did not count, who sent it, what it is worth, and the two actions.
  await atBothSizes(page, "unapplied-offered", lateUrl, async () => {
    const panel = page.getByTestId("unapplied-panel");
    await expect(panel.getByRole("heading", { name: "Fundos não aplicados" })).toBeVisible();
    await expect(panel).toContainText("10 USDT");
    await expect(panel).toContainText("Chegou depois do encerramento do pedido");
    await expect(panel).toContainText(/Vale R\$\s54,00 pela cotação do pedido/);
    await expect(panel.getByRole("button", { name: "Aceitar como pagamento" })).toBeVisible();
    await expect(panel.getByRole("button", { name: "Devolver a quem enviou" })).toBeVisible();
  });

  // Accepting the overpayment: the review names the credit and asks for a code; a wrong one is refused.
  await page.setViewportSize(PHONE);
  await page.goto(overUrl);
  const overPanel = page.getByTestId("unapplied-panel");
  await expect(overPanel).toContainText("Além do valor do pedido");
  await overPanel.getByRole("button", { name: "Aceitar como pagamento" }).click();
  const acceptReview = page.getByTestId("unapplied-accept-review");
  await expect(acceptReview.getByRole("heading", { name: "Confirme o aceite" })).toBeVisible();
  await expect(page.getByTestId("unapplied-credit")).toHaveText(/R\$\s10,80/);
  await expect(acceptReview).toContainText("2 USDT");
  await expect(acceptReview).toContainText("O status do pedido não muda");
  await expect(acceptReview.getByTestId("step-up-code")).toBeVisible();
  await shootBothSizes(page, "unapplied-accept-review");
  await acceptReview.getByTestId("step-up-code").fill("123456");
  await acceptReview.getByRole("button", { name: /Aceitar e creditar R\$\s10,80/ }).click();
  await expect(acceptReview.getByText("Código errado ou já usado.")).toBeVisible();
  await expect(overPanel.getByTestId("unapplied-resolution")).toHaveCount(0);
  await acceptReview.getByTestId("step-up-code").fill(await freshTotp(secret));
  await acceptReview.getByRole("button", { name: /Aceitar e creditar R\$\s10,80/ }).click();
  await expect(overPanel.getByTestId("unapplied-resolution")).toHaveAttribute("data-status", "accept:COMPLETED");
  await expect(overPanel).toContainText(/Aceito como pagamento: R\$\s10,80 creditados no seu saldo/);
  await expect(overPanel.getByRole("button", { name: "Aceitar como pagamento" })).toHaveCount(0);
  await expect(overPanel.getByRole("button", { name: "Devolver a quem enviou" })).toHaveCount(0);
  await expect(
    page.getByTestId("timeline-entry").filter({ hasText: "Fundos não aplicados aceitos como pagamento" }),
  ).toHaveCount(1);
  await shootBothSizes(page, "unapplied-accepted");

  // Returning the late payment: a bad address is refused at the review; blank goes back to the sender.
  await page.setViewportSize(PHONE);
  await page.goto(lateUrl);
  const latePanel = page.getByTestId("unapplied-panel");
  await latePanel.getByRole("button", { name: "Devolver a quem enviou" }).click();
  const returnForm = page.getByTestId("unapplied-return-form");
  await expect(returnForm).toContainText("corretora");
  await shootBothSizes(page, "unapplied-return-form");
  await returnForm.getByLabel(/Endereço de destino/).fill("0x123");
  await returnForm.getByRole("button", { name: "Revisar devolução" }).click();
  await expect(returnForm.getByText(/Endereço inválido/)).toBeVisible();
  await returnForm.getByLabel(/Endereço de destino/).fill("");
  await returnForm.getByRole("button", { name: "Revisar devolução" }).click();
  const returnReview = page.getByTestId("unapplied-return-review");
  await expect(returnReview.getByRole("heading", { name: "Confirme a devolução" })).toBeVisible();
  await expect(page.getByTestId("unapplied-return-to")).toHaveText(/^0x[0-9a-fA-F]{40}$/);
  await expect(returnReview).toContainText("Taxa da rede (descontada)");
  await expect(page.getByTestId("unapplied-return-sent")).toHaveText(/^[\d,]+ USDT$/);
  await expect(returnReview).toContainText("não do seu saldo");
  await shootBothSizes(page, "unapplied-return-review");
  await page.setViewportSize(PHONE);
  await stepUpIfAsked(page, secret);
  await returnReview.getByRole("button", { name: /^Devolver [\d,]+ USDT$/ }).click();
  const returned = latePanel.getByTestId("unapplied-resolution");
  await expect(returned).toHaveAttribute("data-status", /^return:(PENDING|COMPLETED)$/);
  await expect(latePanel.getByRole("button", { name: "Aceitar como pagamento" })).toHaveCount(0);
  // The sandbox's chain mines it a second later; the worker's receipt check decides it, and the page follows by itself.
  await expect(returned).toHaveAttribute("data-status", "return:COMPLETED", { timeout: 60_000 });
  await expect(returned).toContainText(/Devolvido: [\d,]+ USDT/);
  await expect(page.getByTestId("unapplied-return-tx")).toHaveText(/^0x[0-9a-f]{64}$/);
  await shootBothSizes(page, "unapplied-returned");

  // Both are in the audit trail.
  await page.goto("/dashboard/audit");
  await expect(page.getByTestId("audit-table").locator('tr[data-action="unapplied.accepted"]')).toHaveCount(1);
  await expect(page.getByTestId("audit-table").locator('tr[data-action="unapplied.returned"]')).toHaveCount(1);

  // The payer's pages say what became of the money, and hold nothing any more.
  await atBothSizes(page, "pay-unapplied-accepted", `/pay/${over.order.paymentLinkId}`, async () => {
    await expect(page.getByText("Valor aceito pela empresa")).toBeVisible();
    await expect(page.getByText("Loja Cripto aceitou 2 USDT como pagamento deste pedido.")).toBeVisible();
    await expect(page.getByTestId("receipt-held")).toHaveCount(0);
  });
  await atBothSizes(page, "pay-unapplied-returned", `/pay/${late.order.paymentLinkId}`, async () => {
    await expect(page.getByTestId("unapplied-outcome")).toHaveAttribute("data-status", "return:COMPLETED");
    await expect(page.getByText("Valor devolvido")).toBeVisible();
    await expect(page.getByTestId("receipt-return-tx")).toContainText(/0x[0-9a-f]{64}/);
    await expect(page.getByTestId("receipt-held")).toHaveCount(0);
  });

  // In English too.
  await page.setViewportSize(DESKTOP);
  await page.goto(lateUrl);
  await page.getByRole("button", { name: "English" }).first().click();
  await expect(page.getByTestId("unapplied-panel").getByRole("heading", { name: "Unapplied funds" })).toBeVisible();
  await expect(page.getByTestId("unapplied-resolution")).toContainText(/Returned: [\d.]+ USDT/);
  await page.screenshot({ path: `${SHOTS}/unapplied-returned-en-1280.png`, fullPage: true });
  await page.getByRole("button", { name: "Português" }).first().click();
});
