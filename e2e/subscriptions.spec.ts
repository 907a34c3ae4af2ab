import { expect, test, type Page } from "@playwright/test";
import { seedMerchant, signIn } from "./helpers";
import { DESKTOP, PHONE, noHorizontalOverflow } from "./support/sizes";

// Subscriptions by Pix Automático (docs/dashboard.md#subscriptions): a merchant creates one in the
// dashboard, the payer opens its link on a phone (the copy-and-paste code first; on a computer the QR
// first), the sandbox plays the payer's bank authorising it, the payer's page turns by itself and
// links the first payment's receipt, and the merchant sees the cycles, settles one (sandbox) and
// cancels another subscription. Every page at 375 px and 1280 px, none wider than its window;
// screenshots in SHOTS.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-subscriptions";

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

async function shot(page: Page, name: string) {
  await noHorizontalOverflow(page, name);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** The same page at the other width, screenshotted too. */
async function bothWidths(page: Page, name: string, first: "375" | "1280") {
  await shot(page, `${name}-${first}`);
  await page.setViewportSize(first === "375" ? DESKTOP : PHONE);
  await shot(page, `${name}-${first === "375" ? "1280" : "375"}`);
  await page.setViewportSize(first === "375" ? PHONE : DESKTOP);
}

test("a merchant creates a subscription, the payer authorises it on a phone, the merchant sees its cycles", async ({
  browser,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Academia Centro" });
  const merchant = await browser.newContext({ viewport: DESKTOP });
  const page = await merchant.newPage();
  await signIn(page, m.email);

  await page.getByRole("link", { name: "Assinaturas" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/subscriptions$/);
  await expect(page.getByText("Nenhuma assinatura por aqui")).toBeVisible();
  await bothWidths(page, "subscriptions-empty", "1280");

  await page.getByRole("link", { name: "Nova assinatura" }).first().click();
  await expect(page.getByLabel("Pagar agora e autorizar")).toBeChecked();
  await page.getByLabel("Valor por ciclo (R$)").fill("89,90");
  await page.getByLabel("Nome do pagador").fill("Maria Souza");
  await page.getByLabel("CPF ou CNPJ do pagador").fill("529.982.247-25");
  await page.getByLabel("Contrato ou nº do cliente").fill("contrato-2291");
  await page.getByLabel("Descrição").fill("Plano mensal Academia");
  await page.getByLabel("Se um débito falhar").selectOption("PERMITE_3R_7D");
  await bothWidths(page, "subscription-new", "1280");

  // A CPF with wrong check digits is refused beside its field, in Portuguese, and nothing is made.
  await page.getByLabel("CPF ou CNPJ do pagador").fill("529.982.247-24");
  await page.getByRole("button", { name: "Criar assinatura" }).click();
  await expect(page.getByText(/CPF ou CNPJ/).nth(1)).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/subscriptions\/new$/);
  await page.getByLabel("CPF ou CNPJ do pagador").fill("529.982.247-25");
  await page.getByRole("button", { name: "Criar assinatura" }).click();
  await expect(page).toHaveURL(/\/dashboard\/subscriptions\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").at(-1)!;
  await expect(page.getByTestId("subscription-status").first()).toHaveText("Aguardando autorização");
  await expect(page.getByTestId("subscription-share")).toBeVisible();
  await expect(page.getByTestId("cycle")).toHaveCount(1); // journey 3's payment at authorisation
  await bothWidths(page, "subscription-awaiting", "1280");
  const link = (await page.getByTestId("open-sub-link").getAttribute("href"))!;
  expect(link).toMatch(/\/pay\/[A-Za-z0-9_-]{16,}$/);

  // The payer on a phone: the code to copy leads, the QR follows; what is charged and when; how to cancel.
  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const payer = await phone.newPage();
  await payer.goto(link);
  await expect(payer.getByTestId("subscription-checkout")).toBeVisible();
  await expect(payer.getByTestId("subpay-terms")).toContainText("R$ 89,90 a cada ciclo (mensal)");
  await expect(payer.getByTestId("subpay-terms")).toContainText("até 3 vezes nos 7 dias seguintes");
  await expect(payer.getByTestId("subpay-cancel")).toContainText("app do seu banco");
  await expect(payer.getByTestId("subpay-recipient-note")).toContainText("Academia Centro");
  const copy = (await payer.getByTestId("subpay-copy").boundingBox())!;
  const qr = (await payer.getByTestId("subpay-qr").boundingBox())!;
  expect(copy.y, "on a phone the copy button comes before the QR").toBeLessThan(qr.y);
  expect(copy.y, "the copy button in the first screen").toBeLessThan(PHONE.height);
  await shot(payer, "payer-awaiting-375");

  // On a computer the QR leads.
  const desk = await browser.newContext({ viewport: DESKTOP });
  const deskPayer = await desk.newPage();
  await deskPayer.goto(link);
  const copyD = (await deskPayer.getByTestId("subpay-copy").boundingBox())!;
  const qrD = (await deskPayer.getByTestId("subpay-qr").boundingBox())!;
  expect(qrD.y, "on a computer the QR comes first").toBeLessThan(copyD.y);
  await shot(deskPayer, "payer-awaiting-1280");
  await desk.close();

  // The sandbox's bank: the payer authorises (and, journey 3, pays the first amount). The page turns by itself.
  const authorised = await request.post(`/api/v1/sandbox/subscriptions/${id}/authorize`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
  });
  expect(authorised.status()).toBe(200);
  await expect(payer.getByTestId("subpay-state")).toContainText("Autorização feita", { timeout: 30_000 });
  await expect(payer.getByTestId("subpay-receipt")).toHaveCount(1);
  await shot(payer, "payer-active-375");
  await payer.getByTestId("subpay-receipt").click();
  await expect(payer.getByTestId("receipt")).toBeVisible();
  await expect(payer.getByTestId("receipt")).toContainText("89,90");
  await shot(payer, "payer-receipt-375");
  await phone.close();

  // The merchant sees it ACTIVE: cycle 0 paid, and cycle 1 sent to the bank by the sweep (its window is open).
  await expect(page.getByTestId("subscription-status").first()).toHaveText("Ativa", { timeout: 30_000 });
  await expect(page.locator('[data-testid=cycle][data-cycle="0"] [data-testid=cycle-status]')).toHaveText("Paga");
  await expect(page.locator('[data-testid=cycle][data-cycle="1"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-testid=cycle][data-cycle="1"] [data-testid=cycle-status]')).toHaveText("Agendada", {
    timeout: 30_000,
  });
  await page.getByTestId("simulate-cycle-1").getByRole("button", { name: "Simular débito pago" }).click();
  await expect(page.locator('[data-testid=cycle][data-cycle="1"] [data-testid=cycle-status]')).toHaveText("Paga");
  await expect(page.getByTestId("cycle-receipt")).toHaveCount(2);
  await bothWidths(page, "subscription-active", "1280");

  // The list says it, with the payer, the amount and the next charge; the overview counts its MRR.
  await page.getByRole("link", { name: "← Voltar às assinaturas" }).click();
  await expect(page.getByTestId("subscriptions-table")).toContainText("Maria Souza");
  await expect(page.getByTestId("subscriptions-table")).toContainText("R$ 89,90");
  await expect(page.getByTestId("subscriptions-table")).toContainText("Ativa");
  await bothWidths(page, "subscriptions-list", "1280");
  const csv = await page.request.get("/dashboard/api/exports/subscriptions?format=csv");
  expect(csv.status()).toBe(200);
  const body = await csv.text();
  expect(body).toContain("Maria Souza");
  expect(body).toContain("89.90");
  await page.goto("/dashboard");
  await expect(page.getByTestId("mrr")).toHaveText(/R\$\s89,90/);
  await expect(page.getByTestId("failed-cycles")).toHaveText("0");
  await shot(page, "overview-mrr-1280");
  await merchant.close();
});

test("a merchant on a phone creates a variable subscription to authorise only, and cancels it", async ({
  browser,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Clube do Livro" });
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await signIn(page, m.email);
  await page.goto("/dashboard/subscriptions/new");
  await page.getByLabel("Só autorizar").check();
  await page.getByLabel("Valor variável").check();
  await page.getByLabel("Valor por ciclo (R$)").fill("49,90");
  await page.getByLabel("Teto mínimo do pagador (R$)").fill("30");
  await page.getByLabel("Periodicidade").selectOption("TRIMESTRAL");
  await page.getByLabel("Nome do pagador").fill("João Lima");
  await page.getByLabel("CPF ou CNPJ do pagador").fill("11.222.333/0001-81");
  await page.getByLabel("Descrição").fill("Clube trimestral");
  await shot(page, "subscription-new-variable-375");
  await page.getByRole("button", { name: "Criar assinatura" }).click();
  await expect(page).toHaveURL(/\/dashboard\/subscriptions\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("no-cycles")).toContainText("depois que o pagador autorizar");
  const link = (await page.getByTestId("open-sub-link").getAttribute("href"))!;
  await shot(page, "subscription-awaiting-j2-375");

  const payer = await context.newPage();
  await payer.goto(link);
  await expect(payer.getByTestId("subpay-authorise")).toContainText("nada é cobrado agora");
  await expect(payer.getByTestId("subpay-terms")).toContainText("de pelo menos R$ 30,00");
  await shot(payer, "payer-awaiting-j2-375");

  // A variable amount can change, never below the payer's minimum.
  const change = page.getByTestId("change-amount");
  await change.getByLabel("Novo valor (R$)").fill("20");
  await change.getByRole("button", { name: "Alterar valor" }).click();
  await expect(change).toContainText("não pode ser menor que o mínimo de R$ 30,00");
  await change.getByLabel("Novo valor (R$)").fill("59,90");
  await change.getByRole("button", { name: "Alterar valor" }).click();
  await expect(change).toContainText("Valor alterado.");
  await expect(page.getByTestId("subscription-amount")).toContainText("R$ 59,90");
  await shot(page, "subscription-amount-changed-375");

  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: "Cancelar assinatura" }).click();
  await expect(page.getByTestId("subscription-status").first()).toHaveText("Cancelada");
  await expect(page.getByText("Cancelada por você")).toBeVisible();
  await shot(page, "subscription-cancelled-375");
  await payer.reload();
  await expect(payer.getByTestId("subpay-state")).toContainText("A loja cancelou esta assinatura");
  await shot(payer, "payer-cancelled-375");
  await context.close();
});
