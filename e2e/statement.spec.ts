import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Download } from "@playwright/test";
import fs from "node:fs";
import { api, seedMerchant, signIn } from "./helpers";

// The statement, exports and search (docs/dashboard.md#statement) as a merchant meets them: the balance card leads to the statement, whose
// running balance ends at the balance; a month exports as CSV (and for Excel); orders are found by the
// merchant's own references. Screenshots of the statement at 375 px and desktop go to test-results/screens/.

async function downloaded(download: Download): Promise<Buffer> {
  return fs.readFileSync((await download.path())!);
}

test("the statement: running balance, filters, exports, and order search by the merchant's references", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const m = await seedMerchant(request, { companyName: "Padaria Extrato", openingBalance: 100_000 });
  const merchantApi = api(request, m.apiKey);
  const order = await merchantApi.post("/order/create/pix", {
    value: 25.9,
    orderId: "PEDIDO-1042",
    name: "Maria Souza",
    cpf: "529.982.247-25",
  });
  await merchantApi.post("/order/create/pix", {
    value: 77,
    orderId: '=HYPERLINK("http://evil")',
    name: "Outro Cliente",
  });
  await merchantApi.post(`/sandbox/orders/${order.pixOrder._id}/pay`);
  await merchantApi.post("/order/pix-out", { value: 10_000 });

  await signIn(page, m.email);
  const balance = await page.getByTestId("balance").textContent();
  await page.getByTestId("balance-statement-link").click();
  await expect(page).toHaveURL(/\/dashboard\/statement$/);
  await expect(page.getByRole("heading", { name: "Extrato", level: 1 })).toBeVisible();

  const rows = page.getByTestId("statement-row").filter({ visible: true });
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText("Saque");
  await expect(rows.nth(1)).toContainText("Pagamento recebido");
  await expect(rows.nth(2)).toContainText("Ajuste");
  // Newest first: the top row's balance is the balance on the card.
  await expect(page.getByTestId("statement-balance").first()).toHaveText(balance!);
  await expect(page.getByTestId("statement-closing")).toHaveText(balance!);
  await expect(page.getByTestId("statement-balance")).toHaveText(["R$ 925,90", "R$ 1.025,90", "R$ 1.000,00"]);
  await rows.nth(1).getByRole("link", { name: "Ver pedido" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/orders/${order.pixOrder._id}$`));
  await page.goBack();

  await page.getByLabel("Tipo de lançamento").selectOption("order_credit");
  await page.getByRole("button", { name: "Filtrar" }).click();
  await expect(page).toHaveURL(/kind=order_credit/);
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId("statement-balance")).toHaveText(["R$ 1.025,90"]);

  // This month's statement as CSV, with the filters on the page.
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date());
  await page.goto(`/dashboard/statement?from=${today.slice(0, 8)}01&to=${today}`);
  const [csvDownload] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("export-statement-csv").click(),
  ]);
  expect(csvDownload.suggestedFilename()).toBe(`extrato_${today.slice(0, 8)}01_${today}.csv`);
  const csv = (await downloaded(csvDownload)).toString("utf8");
  const lines = csv.trim().split("\r\n");
  expect(lines[0]).toBe(
    "Data,Tipo,Descrição,Valor (BRL),Saldo após (BRL),Tipo de referência,Referência,Nº do lançamento,Pedido,ID do pedido",
  );
  const cells = lines.slice(1).map((l) => l.split(","));
  expect(cells.map((c) => [c[1], c[3], c[4]])).toEqual([
    ["adjustment", "1000.00", "1000.00"],
    ["order_credit", "25.90", "1025.90"],
    ["withdrawal_debit", "-100.00", "925.90"],
  ]);
  // Each entry says what it is; a payment names its order as the merchant knows it.
  expect(cells[0][2]).toMatch(/^Ajuste/);
  expect(cells[1][2]).toBe("Pagamento recebido · Pedido PEDIDO-1042 (Maria Souza)");
  expect(cells[2][2]).toMatch(/^Saque/);
  const [excelDownload] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("export-statement-excel").click(),
  ]);
  const excel = await downloaded(excelDownload);
  expect([...excel.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  expect(excel.toString("utf8")).toContain(
    ";Pagamento recebido;Pagamento recebido · Pedido PEDIDO-1042 (Maria Souza);25,90;1025,90;Pedido;",
  );

  // Orders export: the formula-like reference cannot run in a spreadsheet.
  await page.goto("/dashboard/orders");
  const [ordersDownload] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("export-orders-csv").click(),
  ]);
  const ordersCsv = (await downloaded(ordersDownload)).toString("utf8");
  expect(ordersCsv).toContain(`"'=HYPERLINK(""http://evil"")"`);
  expect(ordersCsv).toContain("PEDIDO-1042,Maria Souza,52998224725");

  // Bad input is a 400 in the user's language; a signed-out download is a 401.
  const bad = await page.request.get("/dashboard/api/exports/statement?from=2026-02-30");
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toEqual({ message: "Datas devem ser dias reais no formato AAAA-MM-DD." });
  const anonymous = await request.get("/dashboard/api/exports/statement", { headers: { cookie: "" } });
  expect(anonymous.status()).toBe(401);

  // Search by the merchant's own references.
  const orderRows = page.getByTestId("order-row").filter({ visible: true });
  for (const q of ["Maria Souza", "pedido-1042", "529.982.247-25", "25,90", order.pixOrder._id.slice(0, 8)]) {
    await page.getByLabel("Buscar pedidos").fill(q);
    await page.getByRole("button", { name: "Filtrar" }).click();
    await expect(page).toHaveURL(/q=/);
    await expect(orderRows).toHaveCount(1);
    await expect(orderRows.first()).toHaveAttribute("data-order-id", order.pixOrder._id);
  }

  // Screenshots (looked at by a person) and an accessibility scan of the statement at both widths.
  await page.goto("/dashboard/statement");
  for (const vp of [
    { name: "375", width: 375, height: 812 },
    { name: "desktop", width: 1280, height: 900 },
  ]) {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    await page.reload();
    const results = await new AxeBuilder({ page }).analyze();
    expect(
      results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id),
    ).toEqual([]);
    // Nothing wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(vp.width);
    await page.screenshot({ path: `test-results/screens/statement-${vp.name}.png`, fullPage: true });
  }
});
