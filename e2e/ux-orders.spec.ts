import { expect, test, type Page } from "@playwright/test";
import { api, seedMerchant, signIn } from "./helpers";
import { SIZES } from "./support/sizes";

// Orders a merchant recognises (docs/dashboard.md): the orders list, "Últimos pedidos", the order page
// and the statement name an order by the merchant's own reference, else its customer, else its kind
// and amount, with the id beside it; search finds "João" typed "Joao" and says how long a search by
// name must be. Walked at 375 px and 1280 px; screenshots go to test-results/screens-ux/.

const SHOTS = "test-results/screens-ux";

const shoot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

test("orders are named as the merchant knows them in every list, on their page and in the statement, and found without accents", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const m = await seedMerchant(request, { companyName: "Loja dos Pedidos" });
  const merchant = api(request, m.apiKey);
  const referenced = await merchant.post("/order/create/pix", { value: 25.9, orderId: "1234", name: "Maria Souza" });
  const named = await merchant.post("/order/create/lightning", { value: 35, name: "João Pereira" });
  const bare = await merchant.post("/order/create/pix", { value: 12 });
  await merchant.post(`/sandbox/orders/${referenced.pixOrder._id}/pay`);
  await signIn(page, m.email);

  const orderRows = page.getByTestId("order-row").filter({ visible: true });
  for (const [width, size] of SIZES) {
    await page.setViewportSize(size);

    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { name: "Últimos pedidos" })).toBeVisible();
    await expect(orderRows.filter({ hasText: "Pedido 1234" })).toContainText("Maria Souza");
    await expect(orderRows.filter({ hasText: "João Pereira" })).toHaveCount(1);
    await shoot(page, `orders-overview-${width}`);

    await page.goto("/dashboard/orders");
    await expect(orderRows).toHaveCount(3);
    // The merchant's reference is the title and the customer sits beside it, the payment link id in monospace.
    const first = orderRows.filter({ hasText: "Pedido 1234" });
    await expect(first).toContainText("Maria Souza");
    await expect(first.locator(".font-mono")).toHaveText(referenced.pixOrder.paymentLinkId);
    await expect(orderRows.filter({ hasText: "João Pereira" }).getByTestId("order-title")).toHaveText("João Pereira");
    // Without a reference or a customer: the kind and the amount, with the start of the id (what search takes).
    await expect(orderRows.filter({ hasText: bare.pixOrder.paymentLinkId }).getByTestId("order-title")).toHaveText(
      `PIX de R$ 12,00 · ${bare.pixOrder._id.slice(0, 8)}`,
    );
    await shoot(page, `orders-list-${width}`);

    await page.goto("/dashboard/orders?q=Joao");
    await expect(orderRows).toHaveCount(1);
    await expect(orderRows.first()).toHaveAttribute("data-order-id", named.order.id);
    await shoot(page, `orders-search-accents-${width}`);

    // Two letters find no name: the page says what a search by name takes instead of "no orders".
    await page.goto("/dashboard/orders?q=Ma");
    await expect(
      page.getByText("Para buscar por nome ou referência, digite ao menos 3 caracteres.", { exact: false }),
    ).toBeVisible();
    await expect(page.getByText("Nenhum pedido encontrado")).toHaveCount(0);
    await shoot(page, `orders-search-short-${width}`);

    await page.goto(`/dashboard/orders/${referenced.pixOrder._id}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pedido 1234");
    await expect(page).toHaveTitle(/^Pedido 1234 · /);
    await expect(page.getByTestId("order-subtitle")).toHaveText(`Maria Souza · ${referenced.pixOrder.paymentLinkId}`);
    await shoot(page, `orders-page-${width}`);

    await page.goto(`/dashboard/orders/${bare.pixOrder._id}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(
      `PIX de R$ 12,00 · ${bare.pixOrder._id.slice(0, 8)}`,
    );
    await expect(page).toHaveTitle(new RegExp(`^PIX de R\\$\\s12,00 · ${bare.pixOrder._id.slice(0, 8)} · `));

    await page.goto("/dashboard/statement");
    const received = page
      .getByTestId("statement-row")
      .filter({ visible: true })
      .filter({ hasText: "Pagamento recebido" });
    await expect(received.getByTestId("statement-description")).toHaveText(
      "Pagamento recebido · Pedido 1234 · Maria Souza",
    );
    await shoot(page, `orders-statement-${width}`);
  }
});
