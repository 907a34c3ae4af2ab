import { expect, test, type Page } from "@playwright/test";
import { api, seedMerchant, signIn } from "./helpers";
import { PHONE, DESKTOP, SIZES, noHorizontalOverflow } from "./support/sizes";
import { database } from "./support/database";

// The payer's side and the security page on a phone (docs/dashboard.md): a refunded payment keeps its receipt
// and says what came back; an on-chain order that ended partly paid, paid late or overpaid says what
// happened and never asks for more; a PIX page on a phone leads with "Copiar código Pix"; sessions
// are named like "Chrome em Android". Every page at 375 px and 1280 px, none wider than the screen.
// Screenshots go to SHOTS for a person to look at.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-payer";
const WINDOWS_EDGE =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87";
const ANDROID_CHROME =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

/** Opens `url` at each size, checks it (after the page has rendered), and keeps a screenshot of each. */
async function atBothSizes(page: Page, name: string, url: string, check: (size: "375" | "1280") => Promise<void>) {
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await page.goto(url);
    await check(size);
    await noHorizontalOverflow(page, `${name}@${size}`);
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png`, fullPage: true });
  }
}

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("after a refund the payer's page is a receipt of the payment and of what came back, how and when", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Padaria Pão Quente", openingBalance: 100_000 });
  const merchant = api(request, m.apiKey);
  const full = await merchant.post("/order/create/pix", { value: 100, orderId: "PED-1" });
  await merchant.post(`/sandbox/orders/${full.pixOrder._id}/pay`);
  const fullRefund = await merchant.post(`/order/${full.pixOrder._id}/refund`, {});
  expect(fullRefund.refund.status).toBe("COMPLETED");
  const part = await merchant.post("/order/create/pix", { value: 80, orderId: "PED-2" });
  await merchant.post(`/sandbox/orders/${part.pixOrder._id}/pay`);
  await merchant.post(`/order/${part.pixOrder._id}/refund`, { value: 30 });

  // What the page is given: the concluded refunds' total and when.
  const pub = await (await request.get(`/api/v1/public/payments/${full.pixOrder.paymentLinkId}`)).json();
  expect(pub.payment.status).toBe("REFUND");
  expect(pub.payment.refunded).toEqual({ value: 100, at: expect.any(String) });

  await atBothSizes(page, "pay-pix-refunded", `/pay/${full.pixOrder.paymentLinkId}`, async () => {
    await expect(page.getByTestId("checkout-result")).toHaveText("Pagamento devolvido");
    await expect(page.getByTestId("checkout-amount-label")).toHaveText("Valor do pagamento");
    await expect(page.getByTestId("checkout")).not.toContainText(
      /não concluído|encerrado sem ser concluído|Valor a pagar/,
    );
    const receipt = page.getByTestId("receipt");
    await expect(receipt).toContainText("Comprovante de pagamento e devolução");
    await expect(receipt).toContainText(/Valor pago\s*R\$\s100,00/);
    await expect(receipt).toContainText(/Pago em\s*\d{2}\/\d{2}\/\d{4}/);
    await expect(page.getByTestId("receipt-refunded")).toContainText(/Valor devolvido\s*R\$\s100,00/);
    await expect(page.getByTestId("receipt-refunded-at")).toContainText(/Devolvido em\s*\d{2}\/\d{2}\/\d{4}/);
    await expect(page.getByTestId("receipt-refunded-how")).toContainText("Devolução PIX para a conta que pagou");
    await expect(receipt).toContainText(full.pixOrder.paymentLinkId);
  });

  await atBothSizes(page, "pay-pix-partly-refunded", `/pay/${part.pixOrder.paymentLinkId}`, async () => {
    await expect(page.getByTestId("checkout-result")).toHaveText("Pagamento confirmado, com devolução parcial");
    await expect(page.getByTestId("receipt")).toContainText(/Valor pago\s*R\$\s80,00/);
    await expect(page.getByTestId("receipt-refunded")).toContainText(/Valor devolvido\s*R\$\s30,00/);
    await expect(page.getByTestId("receipt-refunded-how")).toContainText("Devolução PIX para a conta que pagou");
  });

  // The same in English.
  await page.setViewportSize(DESKTOP);
  await page.goto(`/pay/${full.pixOrder.paymentLinkId}`);
  await page.getByRole("button", { name: "English" }).first().click();
  await expect(page.getByTestId("checkout-result")).toHaveText("Payment refunded");
  await expect(page.getByTestId("receipt-refunded-how")).toContainText(
    "PIX refund (devolução) to the account that paid",
  );
  await page.getByRole("button", { name: "Português" }).first().click();
  await expect(page.getByTestId("checkout-result")).toHaveText("Pagamento devolvido");
});

test("an on-chain order that ended partly paid, paid late or overpaid tells the payer what happened and never asks for more", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Loja Cripto" });
  const merchant = api(request, m.apiKey);
  const sql = database();
  try {
    // Partly paid, then closed at its expiry.
    const partial = await merchant.post("/onchain/deposit", { value: 100, asset: "USDC", network: "bsc" });
    await merchant.post(`/sandbox/onchain/${partial.order.paymentLinkId}/transfer`, { amount: "5" });
    // Paid only after its expiry.
    const late = await merchant.post("/onchain/deposit", { value: 54, asset: "USDT", network: "polygon" });
    await sql`update onchain_orders set expires_at = now() - interval '1 minute' where payment_link_id in (${partial.order.paymentLinkId}, ${late.order.paymentLinkId})`;
    const lateTransfer = await merchant.post(`/sandbox/onchain/${late.order.paymentLinkId}/transfer`, { amount: "10" });
    expect(lateTransfer.transfer.unapplied).toBe(10);
    // Paid more than its amount.
    const over = await merchant.post("/onchain/deposit", { value: 54, asset: "DAI", network: "eth" });
    const overAmount = Number(over.order.amount);
    await merchant.post(`/sandbox/onchain/${over.order.paymentLinkId}/transfer`, { amount: String(overAmount + 2) });

    const neverAsksForMore = async () => {
      await expect(page.getByText(/Envie o restante/)).toHaveCount(0);
      await expect(page.getByText("Aguardando pagamento…")).toHaveCount(0);
      await expect(page.getByTestId("send-amount")).toHaveCount(0);
      await expect(page.getByTestId("open-in-wallet")).toHaveCount(0);
      await expect(page.getByText(partial.order.address)).toHaveCount(0);
    };

    await atBothSizes(page, "pay-onchain-partial-closed", `/pay/${partial.order.paymentLinkId}`, async () => {
      await expect(page.getByTestId("checkout-result")).toHaveText("Pagamento parcial encerrado");
      await expect(page.getByTestId("chain-outcome")).toContainText(/Recebemos 5 USDC de [\d,.]+ USDC/);
      await expect(page.getByTestId("chain-outcome")).toContainText("Loja Cripto foi avisada");
      await expect(page.getByTestId("receipt-received")).toContainText(/Recebido\s*5 USDC/);
      await neverAsksForMore();
    });

    await atBothSizes(page, "pay-onchain-late", `/pay/${late.order.paymentLinkId}`, async () => {
      await expect(page.getByTestId("checkout-result")).toHaveText("Pagamento recebido após o prazo");
      await expect(page.getByTestId("chain-outcome")).toContainText("10 USDT chegaram depois que este pedido expirou");
      await expect(page.getByTestId("receipt-held")).toContainText(/Guardado para devolução ou aceite\s*10 USDT/);
      await expect(page.getByText("Este pagamento expirou")).toHaveCount(0);
      await neverAsksForMore();
    });

    await atBothSizes(page, "pay-onchain-overpaid", `/pay/${over.order.paymentLinkId}`, async () => {
      await expect(page.getByTestId("checkout-result").first()).toHaveText("Pagamento confirmado!");
      await expect(page.getByText("Valor recebido além do pedido")).toBeVisible();
      await expect(page.getByTestId("receipt")).toContainText(/Aplicado ao pedido\s*[\d,]+ DAI · Ethereum/);
      await expect(page.getByTestId("receipt-held")).toContainText(/Guardado para devolução ou aceite\s*2 DAI/);
      await neverAsksForMore();
    });
  } finally {
    await sql.end();
  }
});

test("a PIX payer on a phone gets 'Copiar código Pix' first, what is being paid, and who the bank app will name", async ({
  page,
  request,
  context,
}) => {
  const m = await seedMerchant(request, { companyName: "Padaria Pão Quente" });
  const merchant = api(request, m.apiKey);
  const pix = await merchant.post("/order/create/pix", {
    value: 45.9,
    orderId: "PED-77",
    description: "Bolo de cenoura com cobertura",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);

  await atBothSizes(page, "pay-pix-open", `/pay/${pix.pixOrder.paymentLinkId}`, async (size) => {
    const copy = page.getByTestId("copy-pix-primary");
    await expect(copy).toHaveText("Copiar código Pix");
    const qr = page.getByTestId("pix-qr");
    await expect(qr).toBeVisible();
    const copyBox = (await copy.boundingBox())!;
    const qrBox = (await qr.boundingBox())!;
    if (size === "375") {
      // A phone cannot scan itself: the copy button leads, in the first screen, and the QR follows it.
      expect(copyBox.y, "copy button above the QR on a phone").toBeLessThan(qrBox.y);
      expect(copyBox.y + copyBox.height, "copy button in the first screen").toBeLessThanOrEqual(PHONE.height);
      expect(copyBox.width, "copy button spans the card").toBeGreaterThan(250);
    } else {
      expect(qrBox.y, "QR first on a computer, for a phone to scan").toBeLessThan(copyBox.y);
    }
    await expect(page.getByTestId("pay-description")).toHaveText("Referente a: Bolo de cenoura com cobertura");
    await expect(page.getByTestId("pix-recipient-note")).toHaveText(
      "No app do banco, o recebedor aparece como PIXCRYPTO PAGAMENTOS, o serviço que processa os pagamentos de Padaria Pão Quente.",
    );
  });

  await page.getByTestId("copy-pix-primary").click();
  await expect(page.getByTestId("copy-pix-primary")).toHaveText("Copiado!");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pix.qrCode);

  // An order with no description shows none.
  const plain = await merchant.post("/order/create/pix", { value: 10 });
  await page.goto(`/pay/${plain.pixOrder.paymentLinkId}`);
  await expect(page.getByTestId("copy-pix-primary")).toBeVisible();
  await expect(page.getByTestId("pay-description")).toHaveCount(0);
});

test("the security page names sessions like 'Chrome em Android', keeps the full user agent in a title, and fits a phone", async ({
  browser,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Loja Segura" });
  // Another session first, from a computer: listed beside this one, with its "Encerrar" button.
  const laptop = await browser.newContext({ userAgent: WINDOWS_EDGE });
  await signIn(await laptop.newPage(), m.email);
  await laptop.close();
  const context = await browser.newContext({ userAgent: ANDROID_CHROME, viewport: PHONE });
  const page = await context.newPage();
  try {
    await signIn(page, m.email);
    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      await page.goto("/dashboard/security");
      const rows = page.getByTestId("session-row");
      await expect(rows).toHaveCount(2);
      const mine = rows.filter({ hasText: "Esta sessão" }).getByTestId("session-device");
      await expect(mine).toHaveText("Chrome em Android");
      await expect(mine).toHaveAttribute("title", ANDROID_CHROME);
      const other = rows.filter({ hasNotText: "Esta sessão" });
      await expect(other.getByTestId("session-device")).toHaveText("Edge em Windows");
      await expect(other.getByTestId("session-device")).toHaveAttribute("title", WINDOWS_EDGE);
      await expect(other.getByRole("button", { name: "Encerrar" })).toBeVisible();
      await expect(rows.filter({ hasText: "Mozilla/5.0" })).toHaveCount(0);
      await noHorizontalOverflow(page, `security@${size}`);
      await page.screenshot({ path: `${SHOTS}/security-${size}.png`, fullPage: true });
    }
  } finally {
    await context.close();
  }
});
