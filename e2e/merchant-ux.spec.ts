import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, enableTwoFactor, PASSWORD, seedMerchant, signIn, stepUpIfAsked, uniqueEmail } from "./helpers";
import { inbox, mailTo, readable, type Mail } from "./support/inbox";
import { PHONE, DESKTOP } from "./support/sizes";

// Merchant UX (docs/dashboard.md): a pt-BR merchant never meets English or a raw catalog key; order pages read like a
// merchant's, not a developer's; withdrawal destinations are checked before the review; every kind
// of payer has a page that ends in a receipt. Nor in what reaches them outside the pages: the mails,
// an Excel export, the audit trail and /docs. Screenshots at 375 px and 1280 px go to
// test-results/screens-ux/ for a person to look at.

const SHOTS = "test-results/screens-ux";

/** Words that only English text has (none of them is Portuguese, product or brand vocabulary). */
const ENGLISH =
  /\b(the|and|must|required|invalid|expected|received|should|failed|pending|completed|cancelled|expired|payments?|amount|balance|withdrawals?|refunds?|please|error|not found|create|settings|sign in|your|with|from|this|that|enter|address|orders?|network|deliveries|attempts|available|today|copy|copied|previous|loading|search|unknown|key|keys|fees?|rates?|customer|wallet|open in)\b/i;
/** A catalog key shown as it is ("common.fixFields", "errors.field.required"). */
const RAW_KEY =
  /\b(app|lang|common|nav|auth|errors|status|kind|overview|orders|order|refundStatus|transferUse|refunds|newOrder|withdrawals|developers|settings|pay|cpix|home|fields|timeline)\.[a-zA-Z]+(\.[a-zA-Z_]+)*\b/;

/** A code the API or the database writes, shown as it is: snake_case kinds, statuses, roles, scopes. */
const RAW_CODE =
  /\b([a-z]+_[a-z_]*[a-z]|PENDING|COMPLETED|CANCELLED|FAILED|REFUNDED?|PARTIAL_ORDER|EXPIRED|full|finance|owner|viewer|developer)\b/;

/**
 * Every word a person can read or hear on the page, in Portuguese: text, labels for assistive
 * technology, titles and placeholders. Left out: what is data rather than wording (codes, ids,
 * addresses, hashes: marked translate="no", <code>, monospace) and what is in another language on
 * purpose (the language switch's "English", marked lang="en").
 */
async function wording(page: Page): Promise<string> {
  return page.evaluate(() => {
    const skip = (el: Element) =>
      el.closest('[translate="no"], code, pre, script, style, .font-mono, [lang]:not([lang="pt-BR"]):not(html)') !==
      null;
    const out: string[] = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (parent && !skip(parent) && n.textContent?.trim()) out.push(n.textContent.trim());
    }
    for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
      if (skip(el)) continue;
      for (const attr of ["aria-label", "title", "placeholder", "alt"]) {
        const v = el.getAttribute(attr);
        if (v) out.push(v);
      }
    }
    return out.join("\n");
  });
}

const problems: string[] = [];

/** Records every English word or raw key on the page as it is now, under `name`. */
async function checkPortuguese(page: Page, name: string) {
  // Pages that poll never fall quiet for long; a short wait lets the first answers render.
  await page.waitForLoadState("networkidle", { timeout: 3000 }).catch(() => {});
  for (const line of (await wording(page)).split("\n")) {
    const english = line.match(ENGLISH);
    const key = line.match(RAW_KEY);
    if (english) problems.push(`${name}: English "${english[0]}" in "${line.slice(0, 120)}"`);
    if (key) problems.push(`${name}: raw key "${key[0]}" in "${line.slice(0, 120)}"`);
  }
}

/** Records English, a raw key or a raw code in a text that is not a page (a mail, a spreadsheet cell). */
function checkText(name: string, text: string) {
  for (const line of text.split(/\r?\n/)) {
    for (const [what, re] of [
      ["English", ENGLISH],
      ["raw key", RAW_KEY],
      ["raw code", RAW_CODE],
    ] as const) {
      const found = line.match(re);
      if (found) problems.push(`${name}: ${what} "${found[0]}" in "${line.slice(0, 120)}"`);
    }
  }
}

/** A mail as its reader sees it, less what is data: links, e-mail addresses, API key prefixes. */
function checkMail(mail: Mail) {
  const { subject, body } = readable(mail);
  const words = `${subject}\n${body}`
    .replace(/https?:\/\/\S+/g, "")
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, "")
    .replace(/\bsk_(test|live)_\S+/g, "");
  checkText(`mail "${subject}" to ${mail.to}`, words);
}

/** The cells of a CSV line split on `sep`, quotes honoured (RFC 4180). */
function cells(line: string, sep: string): string[] {
  const out: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (c === sep && !quoted) {
      out.push(cell);
      cell = "";
    } else cell += c;
  }
  return [...out, cell];
}

/** Data, not wording: ids, hashes, addresses, amounts, times, masked keys. */
const DATA_CELL = /^([0-9a-f-]{36}|0x[0-9a-fA-F]+|[\d\s,.:*+'-]*|[\w.*+-]+@[\w.*-]+)$/;

/** Every header and every cell of an Excel export that is wording rather than data (the provider's own answer is data). */
function checkExcel(name: string, file: Buffer) {
  const text = file.toString("utf8");
  expect(text.startsWith("\uFEFF"), `${name}: a BOM, for Excel`).toBe(true);
  const [header, ...rows] = text
    .slice(1)
    .trim()
    .split("\r\n")
    .map((l) => cells(l, ";"));
  checkText(`${name} headers`, header.join("\n"));
  const rawColumn = header.indexOf("Resposta do provedor");
  for (const row of rows) checkText(name, row.filter((c, i) => i !== rawColumn && !DATA_CELL.test(c)).join("\n"));
  return { header, rows };
}

async function shoot(page: Page, name: string, fullPage = true) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });
}

async function both(page: Page, name: string, url: string) {
  for (const [vp, size] of [
    ["375", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await page.goto(url);
    await checkPortuguese(page, `${name}@${vp}`);
    await shoot(page, `${name}-${vp}`);
  }
}

/** A static BR Code the sandbox can resolve: a PIX order's own code, issued by this server. */
async function brCode(request: APIRequestContext, apiKey: string, value: number): Promise<string> {
  return (await api(request, apiKey).post("/order/create/pix", { value })).qrCode as string;
}

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("a pt-BR merchant meets no English and no raw key on any page or form state, and every payer page ends in a receipt", async ({
  page,
  request,
}) => {
  test.setTimeout(600_000);
  const m = await seedMerchant(request, { companyName: "Padaria Pão Quente", openingBalance: 500_000 });
  const merchant = api(request, m.apiKey);

  // Orders of every kind in every state a merchant and a payer see.
  const lnExpiring = await merchant.post("/order/create/lightning", { value: 12 });
  // An invoice with a due date, open and one paid late (its pages are the dashboard's and its payer's).
  const invoice = await merchant.post("/invoices", {
    value: 150,
    dueDate: "2030-01-10",
    payer: { name: "Maria Souza", cpf: "529.982.247-25" },
    fine: { modalidade: 2, percent: 2 },
    interest: { modalidade: 3, percent: 1 },
    discount: { modalidade: 1, dates: [{ date: "2030-01-05", value: 10 }] },
    description: "Mensalidade de janeiro",
  });
  const invoicePaid = await merchant.post("/invoices", {
    value: 90,
    dueDate: "2030-01-10",
    payer: { name: "João Lima", cnpj: "11.222.333/0001-81" },
    fine: { modalidade: 1, value: 5 },
    interest: { modalidade: 1, value: 0.5 },
  });
  await merchant.post(`/sandbox/invoices/${invoicePaid.invoice.id}/pay`, { date: "2030-01-14" });
  const pix = await merchant.post("/order/create/pix", {
    value: 150,
    orderId: "PED-1001",
    name: "Maria Souza",
    cpf: "529.982.247-25",
  });
  const pixPaid = await merchant.post("/order/create/pix", { value: 99.9, orderId: "PED-1002" });
  await merchant.post(`/sandbox/orders/${pixPaid.pixOrder._id}/pay`);
  await merchant.post(`/order/${pixPaid.pixOrder._id}/refund`, { value: 10 });
  const exchange = await merchant.post("/order/create", { value: 42.5, payerId: "cliente-77" });
  const exchangePaid = await merchant.post("/order/create", { value: 18 });
  await merchant.post(`/sandbox/orders/${exchangePaid.order.id}/pay`);
  const ln = await merchant.post("/order/create/lightning", { value: 25, name: "João" });
  const deposit = await merchant.post("/onchain/deposit", { value: 540, asset: "USDT", network: "polygon" });
  const partial = await merchant.post("/onchain/deposit", { value: 100, asset: "USDC", network: "bsc" });
  await merchant.post(`/sandbox/onchain/${partial.order.paymentLinkId}/transfer`, { amount: "5" });
  const depositPaid = await merchant.post("/onchain/deposit", { value: 54, asset: "DAI", network: "eth" });
  await merchant.post(`/sandbox/onchain/${depositPaid.order.paymentLinkId}/transfer`, { amount: "10" });
  const cpix = (
    await merchant.post("/crypto-pix/onchain/pay", {
      qrcode: await brCode(request, m.apiKey, 54),
      network: "bsc",
      asset: "USDT",
    })
  ).data;
  const cpixPartial = (
    await merchant.post("/crypto-pix/onchain/pay", { qrcode: await brCode(request, m.apiKey, 27), network: "bsc" })
  ).data;
  await merchant.post(`/sandbox/crypto-pix/${cpixPartial.payCryptoPixId}/transfer`, { amount: "1" });
  const cpixPaid = (
    await merchant.post("/crypto-pix/onchain/pay", { qrcode: await brCode(request, m.apiKey, 108), network: "eth" })
  ).data;
  await merchant.post(`/sandbox/crypto-pix/${cpixPaid.payCryptoPixId}/transfer`, {
    amount: String(cpixPaid.cryptoValue),
  });
  const cpixRefunded = (
    await merchant.post("/crypto-pix/onchain/pay", { qrcode: await brCode(request, m.apiKey, 5.4), network: "bsc" })
  ).data;
  await merchant.post(`/sandbox/crypto-pix/${cpixRefunded.payCryptoPixId}/transfer`, {
    amount: String(cpixRefunded.cryptoValue),
    failPix: true,
  });
  await merchant.post("/order/pix-out", { value: 2500 });

  // Signed out: the landing page, sign-in (a failed attempt keeps the password), sign-up.
  await both(page, "home", "/");
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(m.email);
  await page.getByLabel("Senha", { exact: true }).fill("wrong password");
  await page.getByRole("button", { name: "Entrar" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "E-mail ou senha incorretos." })).toBeVisible();
  await expect(page.getByLabel("Senha", { exact: true })).toHaveValue("wrong password");
  await checkPortuguese(page, "signin-failed");
  await shoot(page, "signin-failed-desktop");
  await both(page, "signup", "/signup");
  await page.getByRole("button", { name: "Criar conta" }).click();
  await checkPortuguese(page, "signup-errors");

  // The English landing page is English throughout, headline included.
  await page.goto("/");
  await page.getByRole("button", { name: "English" }).first().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Get paid by PIX, crypto and Lightning. Withdraw to your PIX.",
  );
  await expect(page.getByText("Every sale becomes a payment link")).toBeVisible();
  await shoot(page, "home-en-desktop");
  // The detector itself: the English page must trip it, or it proves nothing about the others.
  const before = problems.length;
  await checkPortuguese(page, "home-en");
  expect(problems.length - before).toBeGreaterThan(5);
  problems.splice(before);
  await page.getByRole("button", { name: "Português" }).first().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Receba por PIX, cripto e Lightning. Saque para o seu PIX.",
  );

  await signIn(page, m.email, PASSWORD);

  // The phone's tab row says there is more, and the arrow brings the rest into view.
  await page.setViewportSize(PHONE);
  await page.goto("/dashboard");
  await expect(page.getByTestId("nav-more")).toBeVisible();
  await shoot(page, "nav-375");
  // Each press scrolls on by part of the row, until the last tab shows and the arrow goes away. Each
  // press waits for the row to move, not for a time: a busy machine animates the scroll slowly.
  const row = page.getByRole("navigation", { name: "Navegação principal" }).locator("ul");
  for (let presses = 0; await page.getByTestId("nav-more").isVisible(); presses++) {
    expect(presses, "the arrow is gone once the last tab shows").toBeLessThan(20);
    const before = await row.evaluate((el) => el.scrollLeft);
    await page.getByTestId("nav-more").click();
    // Moved on, and come to rest: the arrow goes away only when the scroll ends.
    await expect
      .poll(async () => {
        const now = await row.evaluate((el) => el.scrollLeft);
        await page.waitForTimeout(150);
        return now > before && now === (await row.evaluate((el) => el.scrollLeft));
      })
      .toBe(true);
  }
  await expect(page.getByRole("link", { name: "Configurações" })).toBeInViewport();

  // Every dashboard page.
  for (const [name, url] of [
    ["overview", "/dashboard"],
    ["orders", "/dashboard/orders"],
    ["orders-cancelled", "/dashboard/orders?status=CANCELLED"],
    ["order-pix", `/dashboard/orders/${pix.pixOrder._id}`],
    ["order-pix-refunded", `/dashboard/orders/${pixPaid.pixOrder._id}`],
    ["order-exchange", `/dashboard/orders/${exchange.order.id}`],
    ["order-lightning", `/dashboard/orders/${ln.order.id}`],
    ["order-onchain", `/dashboard/orders/${deposit.order.id}`],
    ["order-onchain-partial", `/dashboard/orders/${partial.order.id}`],
    ["order-onchain-paid", `/dashboard/orders/${depositPaid.order.id}`],
    ["order-cpix", `/dashboard/orders/${Buffer.from(cpix.payCryptoPixId, "base64url").toString()}`],
    ["order-cpix-refunded", `/dashboard/orders/${Buffer.from(cpixRefunded.payCryptoPixId, "base64url").toString()}`],
    ["new-pix", "/dashboard/orders/new?kind=pix"],
    ["new-exchange", "/dashboard/orders/new?kind=exchange"],
    ["new-lightning", "/dashboard/orders/new?kind=lightning"],
    ["new-onchain", "/dashboard/orders/new?kind=onchain"],
    ["new-crypto-pix", "/dashboard/orders/new?kind=crypto_pix"],
    ["invoices", "/dashboard/invoices"],
    ["invoice-new", "/dashboard/invoices/new"],
    ["invoice-open", `/dashboard/invoices/${invoice.invoice.id}`],
    ["invoice-paid", `/dashboard/invoices/${invoicePaid.invoice.id}`],
    ["withdrawals", "/dashboard/withdrawals"],
    ["developers", "/dashboard/developers"],
    ["settings", "/dashboard/settings"],
    ["not-found", "/dashboard/orders/00000000-0000-4000-8000-000000000000"],
  ] as const) {
    await both(page, name, url);
  }

  // The order page reads like a merchant's: labelled references, sentences on the timeline.
  await page.goto(`/dashboard/orders/${pix.pixOrder._id}`);
  await expect(page.getByText("Seu ID do pedido")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Pedido PED-1001" })).toBeVisible();
  await expect(page.getByText("PED-1001", { exact: true })).toBeVisible();
  await expect(page.getByText("Nome do cliente")).toBeVisible();
  await expect(page.getByText(/orderId:|name:/)).toHaveCount(0);
  await page.goto(`/dashboard/orders/${pixPaid.pixOrder._id}`);
  await expect(page.getByTestId("timeline-entry").filter({ hasText: "Pagamento recebido" })).toBeVisible();
  await expect(page.getByTestId("timeline-entry").filter({ hasText: /Devolução de R\$\s10,00 feita/ })).toBeVisible();
  await expect(page.getByTestId("timeline-entry").filter({ hasText: "status_changed" })).toHaveCount(0);

  // An expired Lightning invoice reads "Expirado", not "Cancelado".
  await expect(async () => {
    await page.goto(`/dashboard/orders/${lnExpiring.order.id}`);
    await expect(page.getByTestId("order-status")).toHaveText("Expirado", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("timeline-entry").filter({ hasText: "Expirou sem pagamento" })).toBeVisible();
  await both(page, "order-expired", `/dashboard/orders/${lnExpiring.order.id}`);

  // Form states, each in Portuguese with the field's name.
  await page.setViewportSize(DESKTOP);
  await page.goto("/dashboard/orders/new?kind=pix");
  await page.getByLabel("Valor (R$)").fill("10,001");
  await page.getByLabel("Seu ID do pedido").fill("x".repeat(250));
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await expect(page.getByText("Valor: use no máximo 2 casas decimais (centavos).")).toBeVisible();
  await expect(page.getByText("Seu ID do pedido: no máximo 200 caracteres.")).toBeVisible();
  await checkPortuguese(page, "new-pix-errors");
  await shoot(page, "new-pix-errors-desktop");
  await page.getByLabel("Valor (R$)").fill("0");
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await expect(page.getByText("Valor: precisa ser maior que zero.")).toBeVisible();
  await page.getByLabel("Valor (R$)").fill("dez reais");
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await expect(page.getByText("Valor: informe um valor em reais, por exemplo 10,50.")).toBeVisible();
  await checkPortuguese(page, "new-pix-text");

  await page.goto("/dashboard/orders/new?kind=onchain");
  // A pick made before hydration is undone by it (React selects the default option as it hydrates a
  // <select>): pick Polygon, which offers no BUSD, until the token list shows React took it.
  await expect(async () => {
    await page.getByLabel("Rede").selectOption("polygon");
    await expect(page.getByLabel("Token").locator("option", { hasText: "BUSD" })).toHaveCount(0, { timeout: 1000 });
  }).toPass();
  // BUSD is offered in the sandbox: its rate is in the rates box too.
  await page.getByLabel("Rede").selectOption("bsc");
  await expect(page.getByLabel("Token").locator("option", { hasText: "BUSD" })).toHaveCount(1);
  await expect(page.getByText(/1 BUSD = R\$/)).toBeVisible();
  await page.getByLabel("Valor (R$)").fill("0,01");
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "Valor pequeno demais para um depósito em cripto" }),
  ).toBeVisible();
  await expect(page.getByLabel("Rede")).toHaveValue("bsc");
  await checkPortuguese(page, "new-onchain-too-small");
  await shoot(page, "new-onchain-too-small-desktop");

  await page.goto("/dashboard/orders/new?kind=crypto_pix");
  await page.getByLabel("Código PIX (copia e cola) a pagar").fill("00020126this-is-not-a-pix-code");
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Código PIX inválido" })).toBeVisible();
  await checkPortuguese(page, "new-crypto-pix-bad-code");
  await page.getByLabel("Endereço de devolução").fill("0x123");
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await checkPortuguese(page, "new-crypto-pix-bad-refund-address");

  await page.goto("/dashboard/developers");
  await page.getByLabel("URL do endpoint").fill("ftp://user:pw@example.com/#x");
  await page.getByRole("button", { name: "Adicionar endpoint" }).click();
  await expect(page.getByText(/^URL do endpoint: /).first()).toBeVisible();
  await checkPortuguese(page, "developers-bad-webhook");
  await page.getByRole("button", { name: "Criar chave" }).click();
  await expect(page.getByText("Nome da chave: obrigatório.")).toBeVisible();
  await checkPortuguese(page, "developers-empty-key");
  await shoot(page, "developers-errors-desktop");

  await page.goto("/dashboard/settings");
  await page.getByLabel("Chave PIX para recebimentos e saques").fill("123");
  // The payout key has a form of its own (under the company name's): its errors come before any code is asked for.
  await page.getByRole("button", { name: "Salvar" }).nth(1).click();
  await expect(page.getByText("Chave PIX: não é uma chave válida.", { exact: false }).first()).toBeVisible();
  await checkPortuguese(page, "settings-bad-key");

  // A refund beyond what is left: the service's answer, in Portuguese.
  await page.goto(`/dashboard/orders/${pixPaid.pixOrder._id}`);
  await page.getByLabel("Valor a devolver (R$)").fill("500,00");
  await page.getByRole("button", { name: "Revisar devolução" }).click();
  await expect(page.getByText(/O valor passa do que resta devolver: restam R\$\s89,90 de R\$\s99,90\./)).toBeVisible();
  await checkPortuguese(page, "refund-too-much");

  // Withdrawals: the destination is checked before the review step.
  for (const size of [PHONE, DESKTOP]) {
    const vp = size === PHONE ? "375" : "desktop";
    await page.setViewportSize(size);
    await page.goto("/dashboard/withdrawals");
    await page.getByLabel("Valor (R$)").fill("50");
    await page.getByLabel("Outra chave PIX").check();
    await page.getByRole("radio", { name: "CPF" }).check();
    await page.getByLabel("Chave PIX de destino").fill("529.982.247-26");
    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(
      page.getByText("Chave PIX de destino: os dígitos verificadores deste CPF não conferem. Confira o número."),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Confirmar saque" })).toHaveCount(0);
    await checkPortuguese(page, `withdraw-pix-bad-key@${vp}`);
    await shoot(page, `withdraw-pix-bad-key-${vp}`);
    await page.getByRole("radio", { name: "Celular" }).check();
    await page.getByLabel("Chave PIX de destino").fill("+55 11 99876-5432");
    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(page.getByRole("button", { name: "Confirmar saque" })).toBeVisible();
    await page.getByRole("button", { name: "Voltar" }).click();

    await page.getByRole("button", { name: "Sacar on-chain" }).click();
    // One letter's case flipped: the EIP-55 checksum catches the typo.
    await page.getByLabel("Endereço da carteira (0x…)").fill("0x52908400098527886E0F7030069857D2E4169Ee7");
    await page.getByLabel("Valor (R$)").fill("20");
    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(page.getByText(/^Endereço da carteira \(0x…\): não é um endereço válido/)).toBeVisible();
    await expect(page.getByRole("button", { name: "Confirmar saque" })).toHaveCount(0);
    await checkPortuguese(page, `withdraw-onchain-bad-checksum@${vp}`);
    await shoot(page, `withdraw-onchain-bad-checksum-${vp}`);
  }

  // Payer pages of every kind and state, each ending in a receipt or a clear end.
  const payer = await page.context().newPage();
  // Lightning invoices expire in 8 s in the e2e server: this one is looked at as soon as it is made.
  const lnNow = await merchant.post("/order/create/lightning", { value: 25 });
  await payer.goto(`/pay/${lnNow.order.paymentLinkId}`);
  await expect(payer.getByTestId("open-in-wallet")).toHaveAttribute("href", /^lightning:LNBC/);
  await checkPortuguese(payer, "pay-lightning");
  await shoot(payer, "pay-lightning-desktop");
  await payer.setViewportSize(PHONE);
  await shoot(payer, "pay-lightning-375");
  for (const [name, url] of [
    ["pay-pix", `/pay/${pix.pixOrder.paymentLinkId}`],
    ["pay-pix-receipt", `/pay/${pixPaid.pixOrder.paymentLinkId}`],
    ["pay-invoice", `/pay/${invoice.invoice.order.paymentLinkId}`],
    ["pay-invoice-receipt", `/pay/${invoicePaid.invoice.order.paymentLinkId}`],
    ["pay-exchange", `/pay/${exchange.order.paymentLinkId}`],
    ["pay-exchange-receipt", `/pay/${exchangePaid.order.paymentLinkId}`],
    ["pay-lightning-expired", `/pay/${lnExpiring.order.paymentLinkId}`],
    ["pay-onchain", `/pay/${deposit.order.paymentLinkId}`],
    ["pay-onchain-partial", `/pay/${partial.order.paymentLinkId}`],
    ["pay-onchain-receipt", `/pay/${depositPaid.order.paymentLinkId}`],
    ["pay-cpix", `/pay/crypto-pix/${cpix.payCryptoPixId}`],
    ["pay-cpix-partial", `/pay/crypto-pix/${cpixPartial.payCryptoPixId}`],
    ["pay-cpix-receipt", `/pay/crypto-pix/${cpixPaid.payCryptoPixId}`],
    ["pay-cpix-refunded", `/pay/crypto-pix/${cpixRefunded.payCryptoPixId}`],
  ] as const) {
    await both(payer, name, url);
  }

  await payer.goto(`/pay/${deposit.order.paymentLinkId}`);
  await expect(payer.getByText("Rede: Polygon")).toBeVisible();
  await expect(payer.getByTestId("open-in-wallet")).toHaveAttribute(
    "href",
    /^ethereum:0x[0-9a-fA-F]{40}@137\/transfer\?address=0x[0-9a-fA-F]{40}&uint256=\d+$/,
  );
  await payer.goto(`/pay/${exchange.order.paymentLinkId}`);
  await expect(payer.getByRole("img", { name: /QR code/ })).toHaveCount(0);
  await expect(payer.getByText(/Sandbox: nenhuma exchange real/)).toBeVisible();

  await payer.goto(`/pay/${pixPaid.pixOrder.paymentLinkId}`);
  const receipt = payer.getByTestId("receipt");
  await expect(receipt).toContainText(/Valor pago\s*R\$\s99,90/);
  await expect(receipt).toContainText("Padaria Pão Quente");
  await expect(receipt).toContainText(pixPaid.pixOrder.paymentLinkId);
  await payer.goto(`/pay/${depositPaid.order.paymentLinkId}`);
  await expect(payer.getByTestId("receipt")).toContainText(/Enviado\s*10 DAI · Ethereum/);

  await payer.goto(`/pay/crypto-pix/${cpixPartial.payCryptoPixId}`);
  await expect(payer.getByTestId("cpix-progress")).toHaveText(/^Recebido: 1 de [\d,]+ USDT$/);
  await expect(payer.getByText(/Envie o restante/)).toBeVisible();
  await payer.goto(`/pay/crypto-pix/${cpixPaid.payCryptoPixId}`);
  await expect(payer.getByTestId("checkout-result")).toHaveText("PIX pago!");
  await expect(payer.getByTestId("receipt")).toContainText(/PIX pago\s*R\$\s108,00/);
  await payer.goto(`/pay/crypto-pix/${cpixRefunded.payCryptoPixId}`);
  await expect(payer.getByTestId("checkout-result")).toHaveText(/Cripto devolvida|Devolvendo sua cripto/);

  // A Crypto-PIX payer's page turns into its receipt by itself when the rest arrives.
  await payer.goto(`/pay/crypto-pix/${cpixPartial.payCryptoPixId}`);
  await merchant.post(`/sandbox/crypto-pix/${cpixPartial.payCryptoPixId}/transfer`, {
    amount: (cpixPartial.cryptoValue - 1).toFixed(6),
  });
  await expect(payer.getByTestId("checkout")).toHaveAttribute("data-status", "COMPLETED", { timeout: 20_000 });
  await expect(payer.getByTestId("receipt")).toBeVisible();

  // The dashboard's Crypto-PIX order links to its payer page.
  await page.goto(`/dashboard/orders/${Buffer.from(cpix.payCryptoPixId, "base64url").toString()}`);
  await expect(page.getByTestId("payment-link")).toHaveAttribute(
    "href",
    new RegExp(`/pay/crypto-pix/${cpix.payCryptoPixId}$`),
  );

  expect(problems).toEqual([]);
});

test("mails, an Excel export, the audit trail and /docs meet no English, raw key or raw code either", async ({
  page,
  request,
}) => {
  test.setTimeout(300_000);
  const since = (await inbox()).length; // listening before anything is mailed
  const m = await seedMerchant(request, { companyName: "Mercearia Boa Vista", openingBalance: 1_000_000 });
  const merchant = api(request, m.apiKey);
  const invitee = uniqueEmail("financeiro");

  // Money asked to leave through the API (mailed to the owners): R$ 5.000 by PIX, and one the sandbox's PSP refuses.
  await merchant.post("/order/pix-out", { value: 500_000, pixKey: "52998224725" });
  await merchant.post("/order/pix-out", { value: 12_345, pixKey: "payout.fail@example.com" });
  const paid = await merchant.post("/order/create/pix", { value: 80 });
  await merchant.post(`/sandbox/orders/${paid.pixOrder._id}/pay`);
  await merchant.post(`/order/${paid.pixOrder._id}/refund`, { value: 5 });

  // A password reset, then the dashboard: 2FA (code, confirmation link, alert), an API key (alert), an invitation.
  await page.goto("/forgot-password");
  await page.getByLabel("E-mail").fill(m.email);
  await page.getByRole("button", { name: "Enviar link" }).click();
  await expect(page.getByRole("status")).toContainText("está a caminho");
  await signIn(page, m.email, PASSWORD);
  const secret = await enableTwoFactor(page);
  await page.goto("/dashboard/developers");
  await page.getByLabel("Nome da chave").fill("loja online");
  await stepUpIfAsked(page, secret);
  await page.getByRole("button", { name: "Criar chave" }).click();
  await expect(page.getByTestId("new-api-key")).toBeVisible();
  await page.goto("/dashboard/team");
  await page.getByLabel("E-mail").fill(invitee);
  await page.getByLabel("Papel").last().selectOption("finance");
  await stepUpIfAsked(page, secret);
  await page.getByRole("button", { name: "Enviar convite" }).click();
  await expect(page.getByText(`Convite enviado para ${invitee}.`)).toBeVisible();

  // Every mail they were sent, once the ones sent in the background have arrived.
  for (const match of [/token=/, /saque de R\$/, /devolu/i, /chave de API/, /segundo fator/])
    await mailTo(m.email, match);
  await mailTo(invitee, /token=/);
  const mails = (await inbox()).slice(since).filter((x) => [m.email, invitee].includes(x.to));
  expect(mails.length).toBeGreaterThanOrEqual(7);
  for (const mail of mails) checkMail(mail);

  // The withdrawal history names why the PSP refused, in Portuguese; the provider's words stay on the element as data.
  await expect(async () => {
    await page.goto("/dashboard/withdrawals");
    await expect(
      page.locator('[data-failure-code="pix.recipientRejected"]').filter({ visible: true }).first(),
    ).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await both(page, "withdrawals-failed", "/dashboard/withdrawals");

  // Excel exports: headers, kinds, statuses and reasons in words.
  const withdrawals = checkExcel(
    "withdrawals.xlsx.csv",
    await (await page.request.get("/dashboard/api/exports/withdrawals?format=excel")).body(),
  );
  const reason = withdrawals.header.indexOf("Motivo da falha");
  expect(withdrawals.rows.map((r) => r[reason])).toContain("O banco de quem ia receber recusou a transferência.");
  checkExcel(
    "statement.xlsx.csv",
    await (await page.request.get("/dashboard/api/exports/statement?format=excel")).body(),
  );
  checkExcel("orders.xlsx.csv", await (await page.request.get("/dashboard/api/exports/orders?format=excel")).body());

  // The audit trail: sentences with money, roles and access in words at both widths.
  await both(page, "audit", "/dashboard/audit");
  const trail = await page.getByTestId("audit-table").evaluate((el) => (el as HTMLElement).innerText);
  expect(trail).toMatch(/R\$\s5\.000,00 por PIX para/);
  expect(trail).toContain("como Financeiro");
  expect(trail).toMatch(/com acesso: (Acesso total|Leitura)/);
  checkText(
    "audit (visible text)",
    trail.replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, "").replace(/\bsk_(test|live)_\S+/g, ""),
  );

  // /docs: a Portuguese introduction, and nothing wider than a phone.
  for (const [vp, size] of [
    ["375", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await page.goto("/docs");
    await expect(page.getByTestId("docs-intro")).toContainText("Sandbox e produção");
    const wide = await page.evaluate(() => {
      const limit = document.documentElement.clientWidth;
      const over = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > limit + 1);
      const last = over.filter((e) => !over.some((o) => o !== e && e.contains(o)));
      return {
        width: document.documentElement.scrollWidth,
        culprits: last.slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className}`.slice(0, 120)),
      };
    });
    expect(wide.width, `/docs at ${vp}: ${wide.culprits.join(" | ")}`).toBeLessThanOrEqual(size.width);
    await checkPortuguese(page, `docs@${vp}`);
    // The reference runs to hundreds of screens: the first one, where the introduction is, is what a person looks at.
    await shoot(page, `docs-${vp}`, false);
  }

  expect(problems).toEqual([]);
});
