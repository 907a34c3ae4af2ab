import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, seedMerchant, signIn } from "./helpers";
import { SIZES } from "./support/sizes";

// The merchant's side of a PIX-out to another key, and the words around it (docs/dashboard.md): the key's
// kind chosen first and the key sent normalised, a review whose fee line matches what the service
// debits, a balance that is said when it falls short; one name for a refund; plural counts; empty
// states that speak of filters only where there are some; the Crypto-PIX refund receipt; every
// Crypto-PIX network with its minimum. Screenshots at 375 px and 1280 px go to test-results/screens-ux/.

const SHOTS = "test-results/screens-ux";

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** A static BR Code the sandbox can resolve: a PIX order's own code, issued by this server. */
async function brCode(request: APIRequestContext, apiKey: string, value: number): Promise<string> {
  return (await api(request, apiKey).post("/order/create/pix", { value })).qrCode as string;
}

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("PIX-out to another key: the kind first, the key normalised, a coherent fee line, the balance said, what is known of the recipient", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  // R$ 100,00 to withdraw from.
  const m = await seedMerchant(request, { companyName: "Padaria Pão Quente", openingBalance: 10_000 });
  await signIn(page, m.email);

  for (const [vp, size] of SIZES) {
    await page.setViewportSize(size);
    await page.goto("/dashboard/withdrawals");
    await page.getByLabel("Valor (R$)").fill("50");
    await page.getByLabel("Outra chave PIX").check();

    // No kind chosen yet: the review asks for one instead of guessing.
    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(page.getByText("Chave PIX de destino: escolha primeiro o tipo de chave.")).toBeVisible();

    // A celular typed as people write it is read as a celular, never as a CPF, and +55 is added.
    await page.getByRole("radio", { name: "Celular" }).check();
    await expect(page.getByText("Celular com DDD, como (11) 98765-4321: o +55 é colocado para você.")).toBeVisible();
    await expect(page.getByText(/É para onde seus saques PIX vão/)).toHaveCount(0);
    await page.getByLabel("Chave PIX de destino").fill("11987654321");
    await expect(page.getByTestId("pix-key-as-sent")).toHaveText("A chave será enviada assim: +5511987654321");
    await shoot(page, `pixout-phone-key-${vp}`);

    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(page.getByRole("heading", { name: "Confirme o saque" })).toBeVisible();
    await expect(page.getByTestId("review-pix-key")).toHaveText("+5511987654321");
    await expect(page.getByText("Celular", { exact: true })).toBeVisible();
    // PIX-out has no fee: the line says so, with no rate beside it, and the total is the value.
    await expect(page.getByTestId("review-fee")).toHaveText("Grátis: saque por PIX não tem tarifa");
    await expect(page.getByText(/0,5%/)).toHaveCount(0);
    await expect(page.getByTestId("withdrawal-total")).toHaveText(/^R\$\s50,00$/);
    // No provider we use documents a key lookup: the review says what can be known, and that the name is not looked up.
    await expect(page.getByTestId("review-recipient")).toHaveText("Nome não consultado antes do envio");
    await expect(page.getByText(/não oferece consulta do titular de uma chave antes do envio/)).toBeVisible();
    await shoot(page, `pixout-review-${vp}`);
    await page.getByRole("button", { name: "Voltar" }).click();

    // More than the balance: the message says both figures.
    await page.getByLabel("Valor (R$)").fill("150");
    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(
      page.getByText(/^Saldo insuficiente: este saque precisa de R\$\s150,00 e o saldo disponível é R\$\s100,00\.$/),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Confirmar saque" })).toBeDisabled();
    await shoot(page, `pixout-over-balance-${vp}`);
    await page.getByRole("button", { name: "Voltar" }).click();

    // A CPF with a wrong check digit is said as such, under the CPF kind's own help.
    await page.getByRole("radio", { name: "CPF" }).check();
    await page.getByLabel("Chave PIX de destino").fill("529.982.247-26");
    await page.getByRole("button", { name: "Revisar saque" }).click();
    await expect(
      page.getByText("Chave PIX de destino: os dígitos verificadores deste CPF não conferem. Confira o número."),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Confirmar saque" })).toHaveCount(0);
    await shoot(page, `pixout-bad-cpf-${vp}`);

    // The withdrawals page has no filters, and its export says what its file holds.
    await expect(
      page.getByText("O arquivo traz todos os seus saques, PIX e on-chain.", { exact: false }),
    ).toBeVisible();
    await expect(page.getByText(/filtros acima/)).toHaveCount(0);
  }
});

test("one name for a refund, plural counts, and empty states worded for their page", async ({ page, request }) => {
  test.setTimeout(180_000);
  const m = await seedMerchant(request, { companyName: "Mercearia Boa Vista", openingBalance: 10_000 });
  const merchant = api(request, m.apiKey);
  await signIn(page, m.email);

  // Nothing received today: zero is plural in Portuguese.
  await expect(page.getByText("0 pagamentos", { exact: true })).toBeVisible();
  await shoot(page, "overview-zero-1280");

  const paid = await merchant.post("/order/create/pix", { value: 40, orderId: "PED-2001" });
  await merchant.post(`/sandbox/orders/${paid.pixOrder._id}/pay`);
  await merchant.post(`/order/${paid.pixOrder._id}/refund`, { value: 40 });

  for (const [vp, size] of SIZES) {
    await page.setViewportSize(size);
    // The order refunded in full is Devolvido, in the list and on its page; never Estornado or Reembolso.
    await page.goto("/dashboard/orders");
    await expect(
      page.locator(`[data-testid="order-row"][data-order-id="${paid.pixOrder._id}"]`).filter({ visible: true }),
    ).toContainText("Devolvido");
    await expect(page.getByText(/Estornado|Reembols/)).toHaveCount(0);
    await page.goto(`/dashboard/orders/${paid.pixOrder._id}`);
    await expect(page.getByTestId("order-status")).toHaveText("Devolvido");
    await shoot(page, `refund-order-${vp}`);
    await page.goto("/dashboard/statement");
    await expect(page.getByText("Devolução ao pagador").filter({ visible: true }).first()).toBeVisible();
    await expect(page.getByText(/Reembols|Estorn/)).toHaveCount(0);
    await shoot(page, `refund-statement-${vp}`);

    // A search that finds nothing names the search, not filters the merchant never set.
    await page.goto("/dashboard/orders?q=zzz-nada");
    await expect(page.getByText("Nenhum pedido encontrado para “zzz-nada”.", { exact: false })).toBeVisible();
    await expect(page.getByText(/estes filtros/)).toHaveCount(0);
    await shoot(page, `orders-empty-search-${vp}`);
    // A page past the end, no filter set.
    await page.goto("/dashboard/orders?page=9");
    await expect(page.getByText("Esta página não tem pedidos: a lista termina antes dela.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Ir para a primeira página" })).toBeVisible();
    await expect(page.getByText(/estes filtros/)).toHaveCount(0);
    await shoot(page, `orders-past-end-${vp}`);
  }

  // The statement's export, in pt-BR, names the refund the same way.
  const csv = await (await page.request.get("/dashboard/api/exports/statement")).text();
  expect(csv).toContain("Devolução ao pagador");
  expect(csv).not.toMatch(/Reembols|Estorn/);
});

test("Crypto-PIX: the refund receipt is titled as one; the dashboard offers every network with its minimum", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const m = await seedMerchant(request, { companyName: "Loja Cripto" });
  const merchant = api(request, m.apiKey);
  const refunded = (
    await merchant.post("/crypto-pix/onchain/pay", { qrcode: await brCode(request, m.apiKey, 5.4), network: "bsc" })
  ).data;
  await merchant.post(`/sandbox/crypto-pix/${refunded.payCryptoPixId}/transfer`, {
    amount: String(refunded.cryptoValue),
    failPix: true,
  });

  for (const [vp, size] of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`/pay/crypto-pix/${refunded.payCryptoPixId}`);
    await expect(page.getByTestId("checkout-result")).toHaveText("Cripto devolvida", { timeout: 30_000 });
    const receipt = page.getByTestId("receipt");
    await expect(receipt.getByRole("heading")).toHaveText("Comprovante de devolução");
    await expect(receipt).toContainText(/Devolvido pela rede\s*BNB Smart Chain/);
    await expect(page.getByText(/Comprovante de pagamento/i)).toHaveCount(0);
    await shoot(page, `cpix-refund-receipt-${vp}`);
  }

  await signIn(page, m.email);
  for (const [vp, size] of SIZES) {
    await page.setViewportSize(size);
    await page.goto("/dashboard/orders/new?kind=crypto_pix");
    const network = page.getByLabel("Rede");
    await expect(network.locator("option")).toHaveText(["BNB Smart Chain", "Ethereum", "Lightning"]);
    await expect(page.getByTestId("cpix-minimum")).toHaveText(
      /^Mínimo na BNB Smart Chain: 1 USDT, cerca de R\$\s[\d.,]+ na cotação de agora\. Um PIX de valor menor é recusado\.$/,
    );
    // A choice made before the page is hydrated is not seen by its script yet: choose until it is.
    await expect(async () => {
      await page.getByLabel("Token").selectOption("USDC");
      await expect(page.getByTestId("cpix-minimum")).toContainText("1 USDC", { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await network.selectOption("eth");
    await expect(page.getByTestId("cpix-minimum")).toContainText("Mínimo na Ethereum: 10 USDT");
    await shoot(page, `cpix-new-eth-${vp}`);
    await network.selectOption("lightning");
    await expect(page.getByLabel("Token").locator("option")).toHaveText(["BTC"]);
    await expect(
      page.getByText("Pela Lightning o pagador envia satoshis pelo valor do PIX, sem valor mínimo."),
    ).toBeVisible();
    await shoot(page, `cpix-new-lightning-${vp}`);
  }

  // A Crypto-PIX over Lightning made from the dashboard form.
  await page.getByLabel("Código PIX (copia e cola) a pagar").fill(await brCode(request, m.apiKey, 12));
  await page.getByRole("button", { name: "Criar pedido" }).click();
  await expect(page).toHaveURL(/\/dashboard\/orders\/[^/?]+$/);
  await expect(page.getByText("Lightning").first()).toBeVisible();
});
