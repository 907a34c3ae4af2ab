import { expect, test, type Page } from "@playwright/test";
import { api, seedMerchant, signIn } from "./helpers";
import { DESKTOP, PHONE, noHorizontalOverflow } from "./support/sizes";

// Payment links (docs/api.md#payment-links, docs/dashboard.md#payment-links): a merchant makes one on a
// phone and gets its link and QR; a payer opens it on a phone, picks the quantity, gives their name,
// chooses PIX and pays their own order in the sandbox; the merchant sees the sale; a paused link tells
// payers so. Every page at 375 px and 1280 px, none wider than the screen; screenshots in SHOTS.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-payment-links";

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

async function shot(page: Page, name: string) {
  await noHorizontalOverflow(page, name);
  // A phone context may widen its layout viewport to fit the page: the page must fit the phone itself.
  const width = page.viewportSize()!.width;
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth, `${name}: ${scrollWidth} px wide on a ${width} px screen`).toBeLessThanOrEqual(width);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

test("a merchant makes a payment link on a phone; a payer pays it on a phone; the merchant sees the sale and pauses it", async ({
  browser,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Doceria da Ana" });
  const merchantContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await merchantContext.newPage();
  await signIn(page, m.email);

  await page.getByRole("link", { name: "Links de pagamento" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/payment-links$/);
  await expect(page.getByText("Nenhum link ainda")).toBeVisible();
  await shot(page, "links-empty-375");
  await page.getByRole("link", { name: "Novo link" }).first().click();
  await page.getByLabel("Título").fill("Bolo de cenoura");
  await page.getByLabel("Descrição").fill("Com cobertura de chocolate, 1 kg.");
  await page.getByLabel("Preço (R$)").fill("45,00");
  await page.getByLabel("Quantidade máxima por compra").fill("5");
  await page.getByRole("checkbox", { name: "Bitcoin (Lightning)" }).check();
  await page.getByRole("checkbox", { name: "Nome" }).check();
  await page.getByLabel("Número máximo de pagamentos").fill("30");
  await page.getByLabel("Sua referência").fill("bolos-dez");
  await shot(page, "link-new-375");
  await page.getByRole("button", { name: "Criar link" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payment-links\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("link-state")).toHaveText("Ativo");
  await expect(page.getByRole("img", { name: "QR code para o balcão" })).toBeVisible();
  await shot(page, "link-detail-375");

  const linkId = page.url().split("/").at(-1)!;
  const link = (
    await (
      await request.get(`/api/v1/payment-links/${linkId}`, { headers: { authorization: `Bearer ${m.apiKey}` } })
    ).json()
  ).paymentLink;
  expect(link).toMatchObject({
    title: "Bolo de cenoura",
    price: 45,
    maxQuantity: 5,
    rails: ["pix", "lightning"],
    payerFields: ["name"],
    maxPayments: 30,
    reference: "bolos-dez",
  });
  const qr = await request.get(link.qrCodeLink);
  expect(qr.headers()["content-type"]).toBe("image/png");

  // The payer, on their own phone: opening the page makes no order.
  const payerContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const payer = await payerContext.newPage();
  await payer.goto(link.url);
  await expect(payer.getByRole("heading", { name: "Bolo de cenoura" })).toBeVisible();
  await expect(payer.getByTestId("link-price")).toHaveText(/R\$\s45,00/);
  await expect(payer.getByText("Vendido por Doceria da Ana")).toBeVisible();
  await shot(payer, "pay-link-375");
  const before = await (
    await request.get(`/api/v1/payment-links/${linkId}`, { headers: { authorization: `Bearer ${m.apiKey}` } })
  ).json();
  expect(before.paymentLink.payments).toEqual({ paid: 0, pending: 0 });

  await payer.getByTestId("link-pay").click();
  await expect(payer.getByText("Preencha este campo.").first()).toBeVisible();
  await payer.getByLabel("Quantidade").selectOption("2");
  await payer.getByLabel("Nome").fill("Maria Souza");
  await payer.getByText("PIX", { exact: true }).click();
  await expect(payer.getByTestId("link-pay")).toHaveText(/Pagar R\$\s90,00/);
  await shot(payer, "pay-link-filled-375");
  await payer.getByTestId("link-pay").click();
  await expect(payer).toHaveURL(/\/pay\/[A-Za-z0-9]{22}$/);
  await expect(payer.getByTestId("checkout")).toContainText(/R\$\s90,00/);
  await shot(payer, "pay-link-order-375");

  const orderLink = payer.url().split("/").at(-1)!;
  await api(request, m.apiKey).post(`/sandbox/orders/${orderLink}/pay`, {});
  await expect(payer.getByTestId("checkout-result")).toHaveText("Pagamento confirmado!", { timeout: 20_000 });
  await shot(payer, "pay-link-paid-375");

  // The merchant sees the sale, at its price, and pauses the link.
  await page.reload();
  await expect(page.getByTestId("link-sales")).toContainText("Maria Souza");
  await expect(page.getByTestId("link-sales")).toContainText(/R\$\s90,00/);
  await expect(page.getByTestId("link-sales")).toContainText("Concluído");
  await shot(page, "link-detail-sold-375");
  await page.getByTestId("link-toggle").click();
  await expect(page.getByTestId("link-state")).toHaveText("Pausado");
  await payer.goto(link.url);
  await expect(payer.getByTestId("link-unavailable")).toContainText("pausado");
  await shot(payer, "pay-link-paused-375");

  // The same pages on a computer.
  await page.setViewportSize(DESKTOP);
  await page.goto("/dashboard/payment-links");
  await expect(page.getByTestId("payment-links")).toContainText("Bolo de cenoura");
  await shot(page, "links-list-1280");
  await page.goto("/dashboard/payment-links/new");
  await shot(page, "link-new-1280");
  await page.goto(`/dashboard/payment-links/${linkId}`);
  await page.getByTestId("link-toggle").click();
  await expect(page.getByTestId("link-state")).toHaveText("Ativo");
  await shot(page, "link-detail-1280");
  await payer.setViewportSize(DESKTOP);
  await payer.goto(link.url);
  await expect(payer.getByTestId("link-checkout")).toBeVisible();
  await shot(payer, "pay-link-1280");
  await merchantContext.close();
  await payerContext.close();
});

test("a payer-chosen amount: the page refuses one outside the bounds before anything is made", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Projeto Social Horta" });
  const created = await api(request, m.apiKey).post("/payment-links", {
    title: "Doação",
    minAmount: 10,
    maxAmount: 500,
    rails: ["pix"],
  });
  await page.setViewportSize(PHONE);
  await page.goto(created.paymentLink.url);
  await page.getByLabel("Valor a pagar (R$)").fill("5");
  await page.getByTestId("link-pay").click();
  await expect(page.getByText(/Informe um valor entre R\$\s10,00 e R\$\s500,00/)).toBeVisible();
  await shot(page, "pay-link-open-refused-375");
  await page.getByLabel("Valor a pagar (R$)").fill("25,50");
  await page.getByTestId("link-pay").click();
  await expect(page).toHaveURL(/\/pay\/[A-Za-z0-9]{22}$/);
  await expect(page.getByTestId("checkout")).toContainText(/R\$\s25,50/);
});
