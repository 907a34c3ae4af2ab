import { expect, test, type Page } from "@playwright/test";
import { enableTwoFactor, seedMerchant, signIn, stepUpIfAsked } from "./helpers";
import { SIZES, noHorizontalOverflow } from "./support/sizes";

// Recebedores (split recipients) as a merchant meets them, at 375 px and at 1280 px: add a recipient,
// sell with a split (a PIX order of R$ 100,00 with R$ 30,00 to the recipient, paid with the sandbox's
// simulated payment), see the merchant's balance (its own part only) and the recipient's, pay the
// recipient out, then change its PIX key: the form says until when the new key is held, and the
// recipient's page refuses a payout until then, saying why; the payer's receipt shows the split only
// once the merchant turns that on in Settings; and a weekly automatic payout is set on the edit form.
// Screenshots of each page in SHOTS.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-recipients";

/** "R$ 1.234,56" → 1234.56 */
const brl = (text: string | null) => Number((text ?? "").replace(/[^\d,-]/g, "").replace(",", "."));

test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

for (const [size, viewport] of SIZES) {
  test(`${size} px: add a recipient, sell with a split, see both balances, pay the recipient out`, async ({
    page,
    request,
  }) => {
    test.setTimeout(180_000);
    const shot = async (name: string) => {
      await noHorizontalOverflow(page, `${name}@${size}`);
      await page.screenshot({ path: `${SHOTS}/${name}-${size}.png`, fullPage: true });
    };
    const submit = async (p: Page, name: string) => {
      const answered = p.waitForResponse(
        (r) => r.request().method() === "POST" && r.request().headers()["next-action"] !== undefined,
      );
      await p.getByRole("button", { name, exact: true }).click();
      await answered;
    };
    const { email } = await seedMerchant(request, { companyName: "Marketplace Split" });
    await signIn(page, email);
    const secret = await enableTwoFactor(page);
    await page.setViewportSize(viewport);

    // The empty list, then a new recipient.
    await page.goto("/dashboard/recipients");
    await expect(page.getByText("Nenhum recebedor ainda")).toBeVisible();
    await shot("recipients-empty");
    await page.getByRole("link", { name: "Novo recebedor" }).first().click();
    await expect(page).toHaveURL(/\/dashboard\/recipients\/new$/);
    await page.getByLabel("Nome").fill("Ana Vendedora");
    await page.getByLabel("CPF ou CNPJ").fill("529.982.247-24");
    await page.getByLabel("Chave PIX para receber").fill("ana.vendedora@example.com");
    await submit(page, "Cadastrar recebedor");
    // A wrong check digit is told beside the field.
    await expect(page.getByText("CPF inválido (os dígitos verificadores não conferem)")).toBeVisible();
    await shot("recipient-new-error");
    await page.getByLabel("CPF ou CNPJ").fill("529.982.247-25");
    await page.getByRole("button", { name: "Cadastrar recebedor" }).click();
    await expect(page).toHaveURL(/\/dashboard\/recipients\/[0-9a-f-]{36}$/);
    const recipientUrl = page.url();
    await expect(page.getByTestId("recipient-balance")).toHaveText("R$ 0,00");
    await expect(page.getByTestId("payout-blocked")).toHaveText("Sem saldo para pagar.");

    // A PIX order of R$ 100,00 with R$ 30,00 to the recipient.
    await page.goto("/dashboard/orders/new");
    await page.getByLabel("Valor (R$)").first().fill("100,00");
    await page.getByRole("button", { name: "+ Adicionar recebedor" }).click();
    const row = page.getByTestId("split-row").first();
    await row.getByLabel("Recebedor").selectOption({ label: "Ana Vendedora" });
    await row.getByLabel("Quanto").fill("130,00");
    await expect(page.getByTestId("split-summary")).toContainText("mais que o valor do pedido");
    await row.getByLabel("Quanto").fill("30,00");
    await expect(page.getByTestId("split-summary")).toHaveText("Fica com você: R$ 70,00");
    await shot("order-new-split");
    await page.getByRole("button", { name: "Criar pedido" }).click();
    await expect(page).toHaveURL(/\/dashboard\/orders\/[0-9a-f-]{36}$/);
    const split = page.getByTestId("order-split");
    await expect(split.getByTestId("split-line")).toContainText("Ana Vendedora");
    await expect(split.getByTestId("split-line")).toContainText("R$ 30,00");
    await expect(split.getByTestId("split-line")).toContainText("Aguardando pagamento");

    // Paid: the part is credited.
    await page.getByRole("button", { name: "Simular pagamento" }).click();
    await expect(page.getByTestId("order-status")).toContainText("Concluído", { timeout: 30_000 });
    await expect(split.getByTestId("split-line")).toContainText("Creditado", { timeout: 30_000 });
    await shot("order-split-credited");
    const payPath = new URL((await page.locator("span.font-mono", { hasText: "/pay/" }).first().textContent())!.trim())
      .pathname;

    // The payer's receipt shows nothing of the split until the merchant turns it on in Settings.
    await page.goto(payPath);
    await expect(page.getByTestId("receipt")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("receipt")).not.toContainText("Ana Vendedora");
    await page.goto("/dashboard/settings");
    await page.getByLabel("Mostrar a divisão no recibo do pagador").check();
    const saved = page.waitForResponse(
      (r) => r.request().method() === "POST" && r.request().headers()["next-action"] !== undefined,
    );
    await page.getByTestId("receipt-form").getByRole("button", { name: "Salvar", exact: true }).click();
    await saved;
    await page.goto(payPath);
    await expect(page.getByTestId("receipt-split-0")).toContainText("Parte de Ana Vendedora");
    await expect(page.getByTestId("receipt-split-0")).toContainText("R$ 30,00");
    await shot("receipt-with-split");

    // The merchant's balance is its own part only (R$ 70,00 less the fee), the recipient's is R$ 30,00.
    await page.goto("/dashboard/withdrawals");
    const merchantBalance = brl(await page.getByTestId("withdraw-balance").textContent());
    expect(merchantBalance).toBeGreaterThan(0);
    expect(merchantBalance).toBeLessThanOrEqual(70);
    await page.goto("/dashboard/recipients");
    await expect(page.getByTestId("recipient-row").filter({ visible: true })).toContainText("R$ 30,00");
    await shot("recipients-list");
    await page.goto(recipientUrl);
    await expect(page.getByTestId("recipient-balance")).toHaveText("R$ 30,00");
    await expect(page.getByTestId("statement-entry").filter({ visible: true }).first()).toHaveAttribute(
      "data-kind",
      "split_credit",
    );
    // Said in Portuguese from what it is about (the sale, a link to it), not the API's English description.
    await expect(page.getByTestId("entry-order").filter({ visible: true }).first()).toContainText("PIX de R$ 100,00");
    await expect(page.getByTestId("statement-entry").filter({ visible: true }).first()).not.toContainText("split of");
    await shot("recipient-detail");

    // Pay the recipient out (a money move: the second factor is asked for).
    await stepUpIfAsked(page, secret);
    await submit(page, "Pagar recebedor");
    await expect(page.getByText("Pagamento enviado. Acompanhe abaixo.")).toBeVisible();
    await expect(page.getByTestId("recipient-balance")).toHaveText("R$ 0,00", { timeout: 30_000 });
    await expect(page.getByTestId("payout-row").first()).toContainText("R$ 30,00");
    await shot("recipient-paid");

    // A new key is held: the form says until when, the page refuses a payout and says why.
    await page.getByRole("link", { name: "Editar" }).click();
    await page.getByLabel(/Chave PIX para receber/).fill("ana.nova@example.com");
    await expect(page.getByTestId("key-hold-notice")).toContainText("fica em espera por 24 horas");
    await shot("recipient-edit-hold");
    await page.getByRole("button", { name: "Salvar alterações" }).click();
    await expect(page).toHaveURL(/saved=1/);
    await expect(page.getByTestId("key-held").first()).toBeVisible();
    await expect(page.getByTestId("payout-blocked")).toContainText("está em espera até");
    await shot("recipient-key-held");

    // Automatic payouts: every week on Friday, from R$ 50,00; the page says so and names the next day.
    await page.getByRole("link", { name: "Editar" }).click();
    await page.getByLabel("Frequência").selectOption({ label: "Toda semana" });
    await page.getByLabel("Dia da semana").selectOption({ label: "Sexta-feira" });
    await page.getByLabel(/Saldo mínimo/).fill("50,00");
    await shot("recipient-edit-schedule");
    await page.getByRole("button", { name: "Salvar alterações" }).click();
    await expect(page).toHaveURL(/saved=1/);
    await expect(page.getByTestId("recipient-schedule")).toContainText(
      "Toda semana · Sexta-feira · a partir de R$ 50,00",
    );
    await expect(page.getByTestId("recipient-schedule")).toContainText("Próximo:");
    await shot("recipient-schedule");
  });
}
