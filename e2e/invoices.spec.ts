import { expect, test, type Page } from "@playwright/test";
import { api, seedMerchant, signIn } from "./helpers";
import { database } from "./support/database";
import { DESKTOP, PHONE, SIZES, noHorizontalOverflow } from "./support/sizes";

// Invoices with a due date (docs/dashboard.md#invoices): a merchant makes one on a phone in under a
// minute and shares it; the payer opens it on a phone, sees today's amount, the due date and what changes
// after it, copies the code and pays; both see it paid. A late invoice's page and receipt show the fine
// and interest. Every page at 375 px and 1280 px, none wider than the screen; screenshots in SHOTS.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-invoices";

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

async function shot(page: Page, name: string) {
  await noHorizontalOverflow(page, name);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

test("a merchant makes an invoice on a phone in under a minute, shares it, and a payer pays it on a phone", async ({
  browser,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Escola Aurora" });
  const merchantContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await merchantContext.newPage();
  await signIn(page, m.email);

  // From the dashboard to a shareable invoice, as a merchant on a phone would go.
  const started = Date.now();
  await page.getByRole("link", { name: "Cobranças" }).click();
  await expect(page).toHaveURL(/\/dashboard\/invoices$/);
  await expect(page.getByText("Nenhuma cobrança por aqui")).toBeVisible();
  await shot(page, "invoices-empty-375");
  await page.getByRole("link", { name: "Nova cobrança" }).first().click();
  await page.getByLabel("Valor (R$)").fill("150,00");
  await page.getByLabel("Nome do pagador").fill("Maria Souza");
  await page.getByLabel("CPF ou CNPJ do pagador").fill("529.982.247-25");
  await page.getByLabel("Descrição").fill("Mensalidade de dezembro");
  await page.getByText("Multa, juros, desconto e prazo").click();
  await page.getByLabel("Multa após o vencimento (%)").fill("2");
  await page.getByLabel("Juros ao mês após o vencimento (%)").fill("1");
  await page.getByLabel("Desconto para pagamento antecipado (R$)").fill("10");
  await shot(page, "invoice-new-375");
  await page.getByRole("button", { name: "Criar cobrança" }).click();
  await expect(page).toHaveURL(/\/dashboard\/invoices\/[0-9a-f-]{36}$/);
  const whatsapp = page.getByTestId("share-whatsapp");
  await expect(whatsapp).toBeVisible();
  const elapsed = Date.now() - started;
  console.log(`dashboard → shareable invoice on a phone: ${Math.round(elapsed / 1000)} s`);
  expect(elapsed, "made and ready to share in under a minute").toBeLessThan(60_000);

  // Sharing comes first: WhatsApp with the message and the link, the link to copy.
  const invoiceId = page.url().split("/").at(-1)!;
  const invoice = (
    await (
      await request.get(`/api/v1/invoices/${invoiceId}`, { headers: { authorization: `Bearer ${m.apiKey}` } })
    ).json()
  ).invoice;
  expect(invoice).toMatchObject({
    status: "OPEN",
    value: 150,
    fine: { modalidade: 2, percent: 2 },
    interest: { modalidade: 3, percent: 1 },
    discount: { modalidade: 1, dates: [{ date: invoice.dueDate, value: 10 }] },
    amountDue: { value: 140, discount: 10 },
  });
  const href = decodeURIComponent((await whatsapp.getAttribute("href"))!);
  expect(href).toContain(invoice.link);
  expect(href).toMatch(/Olá, Maria Souza! Segue a cobrança de Escola Aurora: R\$\s140,00/);
  const shareBox = (await page.getByTestId("invoice-share").boundingBox())!;
  expect(shareBox.y, "the share panel in the first screen").toBeLessThan(PHONE.height);
  await expect(page.getByTestId("invoice-amount").first()).toHaveText(/R\$\s140,00/);
  await expect(page.getByTestId("invoice-conditions")).toContainText("Multa de 2% se paga após o vencimento");
  await expect(page.getByTestId("invoice-conditions")).toContainText(
    "Juros de 1% ao mês, proporcionais aos dias de atraso",
  );
  await shot(page, "invoice-detail-375");

  // The payer, on their own phone, opens the link.
  const payerContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  await payerContext.grantPermissions(["clipboard-read", "clipboard-write"]);
  const payer = await payerContext.newPage();
  await payer.goto(invoice.link);
  await expect(payer.getByTestId("checkout-amount-label")).toHaveText("Valor hoje");
  await expect(payer.getByTestId("checkout")).toContainText(/R\$\s140,00/);
  await expect(payer.getByTestId("invoice-summary")).toContainText("Cobrança de Escola Aurora para Maria Souza.");
  await expect(payer.getByTestId("pay-description")).toHaveText("Referente a: Mensalidade de dezembro");
  await expect(payer.getByTestId("invoice-breakdown")).toContainText(/Desconto\s*−\sR\$\s10,00/);
  // The discount lasts until the due date: the due date asks what today asks, so no line of its own.
  await expect(payer.getByTestId("invoice-on-due-date")).toHaveCount(0);
  await expect(payer.getByTestId("invoice-after-due")).toContainText(/depois do vencimento: R\$\s153,05/);
  await expect(payer.getByTestId("invoice-conditions")).toContainText("Desconto de R$");
  // A phone cannot scan itself: the copy button leads; the code is the day's.
  const copy = payer.getByTestId("copy-pix-primary");
  const qr = payer.getByTestId("pix-qr");
  const copyBox = (await copy.boundingBox())!;
  expect(copyBox.y).toBeLessThan((await qr.boundingBox())!.y);
  expect(copyBox.y + copyBox.height, "the copy button in the first screen").toBeLessThanOrEqual(PHONE.height);
  await shot(payer, "pay-invoice-open-375");
  await copy.click();
  await expect(copy).toHaveText("Copiado!");
  const copied = await payer.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(invoice.brcode);
  expect(copied).toContain("5406140.00");

  // The payer's bank pays what the code asks (the sandbox plays the bank): the page turns into a receipt by itself.
  await api(request, m.apiKey).post(`/sandbox/invoices/${invoice.id}/pay`, {});
  await expect(payer.getByTestId("checkout-result")).toHaveText("Pagamento confirmado!", { timeout: 20_000 });
  await expect(payer.getByTestId("receipt")).toContainText(/Valor pago\s*R\$\s140,00/);
  await expect(payer.getByTestId("receipt-discount")).toContainText(/Desconto\s*−\sR\$\s10,00/);
  await shot(payer, "pay-invoice-paid-375");

  // The merchant sees it paid, in the list too.
  await page.reload();
  await expect(page.getByTestId("invoice-status")).toHaveText("Paga");
  await expect(page.getByTestId("invoice-share")).toHaveCount(0);
  await shot(page, "invoice-detail-paid-375");
  await page.goto("/dashboard/invoices");
  await expect(page.getByTestId("invoices-cards")).toContainText("Maria Souza");
  await expect(page.getByTestId("invoices-cards")).toContainText("Paga");
  await shot(page, "invoices-list-375");

  // The same pages on a computer: the list as a table, the payer's QR first.
  await page.setViewportSize(DESKTOP);
  await page.goto("/dashboard/invoices");
  await expect(page.getByTestId("invoices-table")).toContainText("Maria Souza");
  await shot(page, "invoices-list-1280");
  await page.goto("/dashboard/invoices/new");
  await shot(page, "invoice-new-1280");
  await page.goto(`/dashboard/invoices/${invoice.id}`);
  await shot(page, "invoice-detail-paid-1280");
  await payer.setViewportSize(DESKTOP);
  await payer.goto(invoice.link);
  await expect(payer.getByTestId("checkout-result")).toHaveText("Pagamento confirmado!");
  await shot(payer, "pay-invoice-paid-1280");
  await merchantContext.close();
  await payerContext.close();
});

test("an invoice past its due date: today's amount with the fine and interest, on the page and on the receipt", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Clínica Bem Estar" });
  const merchant = api(request, m.apiKey);
  const created = await merchant.post("/invoices", {
    value: 300,
    dueDate: new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" }),
    daysAfterDue: 30,
    payer: { name: "João Lima", cnpj: "11.222.333/0001-81" },
    fine: { modalidade: 2, percent: 2 },
    interest: { modalidade: 1, value: 0.5 },
    description: "Consulta de novembro",
  });
  // A discount that ends before the due date: the page says what the due date itself asks.
  const spToday = new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" });
  const plusDays = (d: string, n: number) =>
    new Date(Date.parse(`${d}T12:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  const early = await merchant.post("/invoices", {
    value: 300,
    dueDate: plusDays(spToday, 12),
    payer: { name: "João Lima", cnpj: "11.222.333/0001-81" },
    discount: { modalidade: 1, dates: [{ date: plusDays(spToday, 2), value: 20 }] },
  });
  await page.setViewportSize(DESKTOP);
  await page.goto(early.invoice.link);
  await expect(page.getByTestId("invoice-breakdown")).toContainText(/Desconto\s*−\sR\$\s20,00/);
  await expect(page.getByTestId("invoice-on-due-date")).toContainText(/No vencimento .*R\$\s300,00/);
  await shot(page, "pay-invoice-discount-1280");

  // Ten days have passed since it was due.
  const sql = database();
  try {
    await sql`update invoices set due_date = due_date - 10, last_payable_day = last_payable_day - 10,
      created_at = created_at - interval '10 days' where id = ${created.invoice.id}`;
  } finally {
    await sql.end();
  }
  const late = (
    await (
      await request.get(`/api/v1/invoices/${created.invoice.id}`, { headers: { authorization: `Bearer ${m.apiKey}` } })
    ).json()
  ).invoice;
  expect(late.amountDue).toMatchObject({ late: true, fine: 6 });
  const interest = late.amountDue.interest;
  expect(interest).toBeGreaterThanOrEqual(3.5);

  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await page.goto(late.link);
    await expect(page.getByTestId("checkout-amount-label")).toHaveText("Valor hoje");
    await expect(page.getByTestId("invoice-summary")).toContainText(
      "Cobrança vencida: o valor de hoje já inclui multa e juros.",
    );
    await expect(page.getByTestId("invoice-breakdown")).toContainText(/Multa\s*\+\sR\$\s6,00/);
    await expect(page.getByTestId("invoice-breakdown")).toContainText(/Juros\s*\+\sR\$/);
    const copy = page.getByTestId("copy-pix-primary");
    const qr = page.getByTestId("pix-qr");
    if (size === "1280")
      expect((await qr.boundingBox())!.y, "QR first on a computer").toBeLessThan((await copy.boundingBox())!.y);
    await shot(page, `pay-invoice-late-${size}`);
  }

  await merchant.post(`/sandbox/invoices/${late.id}/pay`, {});
  await page.setViewportSize(PHONE);
  await page.goto(late.link);
  await expect(page.getByTestId("checkout-result")).toHaveText("Pagamento confirmado!");
  await expect(page.getByTestId("receipt-fine")).toContainText(/Multa\s*\+\sR\$\s6,00/);
  await expect(page.getByTestId("receipt-interest")).toContainText(/Juros\s*\+\sR\$/);
  await shot(page, "pay-invoice-late-paid-375");

  // In English too.
  await page.getByRole("button", { name: "English" }).first().click();
  await expect(page.getByTestId("checkout-result")).toHaveText("Payment confirmed!");
  await expect(page.getByTestId("receipt-fine")).toContainText("Fine");
  await page.getByRole("button", { name: "Português" }).first().click();
});
