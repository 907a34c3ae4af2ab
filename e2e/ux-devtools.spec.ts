import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { api, seedMerchant, signIn } from "./helpers";
import { SIZES } from "./support/sizes";

// The landing page a shop owner meets, the first-steps checklist of an empty dashboard, and the
// Developers page's test event and delivery log, each at 375 px and 1280 px with screenshots in
// test-results/screens-devtools/ (docs/dashboard.md#tests).

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-devtools";

async function shoot(page: Page, name: string) {
  // Nothing wider than the window: a phone must never scroll sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} is wider than its window`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

async function noSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("the landing page tells a shop owner what the service does, what it costs and how to start, in pt-BR and in English", async ({
  page,
}) => {
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(
      "Receba por PIX, cripto e Lightning. Saque para o seu PIX.",
    );
    for (const heading of ["O que você pode fazer", "Quanto custa", "Como começar", "Para desenvolvedores"]) {
      await expect(page.getByRole("heading", { level: 2, name: heading })).toBeVisible();
    }
    // The service's own fees and limits (lib/money): no fee in, none on PIX out, 0.5% on stablecoins out.
    const prices = page.getByTestId("home-prices");
    await expect(prices).toContainText("Receber (PIX, stablecoins, Lightning)");
    await expect(prices).toContainText("Sem tarifa");
    await expect(prices).toContainText("0,5% + rede");
    await expect(prices).toContainText(/num saque de R\$\s1\.000,00, a tarifa é R\$\s5,00/);
    await expect(page.getByRole("row", { name: /Padrão/ })).toContainText(/R\$\s5\.000,00.*R\$\s10\.000,00/);
    await expect(page.getByRole("row", { name: /Empresarial/ })).toContainText(/R\$\s25\.000,00.*R\$\s100\.000,00/);
    await expect(page.getByRole("link", { name: "Criar conta grátis" }).first()).toHaveAttribute("href", "/signup");
    await expect(page.getByRole("link", { name: "Ver a documentação da API" })).toHaveAttribute("href", "/docs");
    await shoot(page, `home-${size}`);
    await noSeriousA11yViolations(page);
  }

  await page.getByRole("button", { name: "English" }).first().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Get paid by PIX, crypto and Lightning. Withdraw to your PIX.",
  );
  await expect(page.getByTestId("home-prices")).toContainText("0.5% + network");
  await shoot(page, "home-en-1280");
  await page.getByRole("button", { name: "Português" }).first().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Receba por PIX, cripto e Lightning. Saque para o seu PIX.",
  );
});

test("an empty dashboard lists the first steps from the merchant's real state, ticks them as they are done and folds once the essentials are", async ({
  page,
  request,
}) => {
  const m = await seedMerchant(request, { companyName: "Doceria Nova" });
  await signIn(page, m.email);
  const steps = page.getByTestId("first-steps");
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await page.goto("/dashboard");
    await expect(steps.getByText("Primeiros passos")).toBeVisible();
    // Registered at sign-up (the payout key) and by the operator's seeding (a key): ticked; the rest not.
    await expect(page.getByTestId("first-step-payoutKey")).toHaveAttribute("data-done", "true");
    await expect(page.getByTestId("first-step-apiKey")).toHaveAttribute("data-done", "true");
    for (const id of ["twoFactor", "firstOrder", "firstPayment", "webhook"])
      await expect(page.getByTestId(`first-step-${id}`)).toHaveAttribute("data-done", "false");
    await expect(page.getByTestId("first-steps-progress")).toHaveText(/2 de 6 feitos/);
    await expect(page.getByTestId("first-step-firstOrder").getByRole("link", { name: /Fazer agora/ })).toHaveAttribute(
      "href",
      "/dashboard/orders/new",
    );
    await expect(
      page.getByTestId("first-step-firstPayment").getByRole("link", { name: /Fazer agora/ }),
    ).toHaveAttribute("href", "/dashboard/developers#sandbox-title");
    await expect(page.getByTestId("first-step-twoFactor").getByRole("link", { name: /Fazer agora/ })).toHaveAttribute(
      "href",
      "/dashboard/security",
    );
    await shoot(page, `first-steps-${size}`);
    await noSeriousA11yViolations(page);
  }

  // The step's own link leads to where it is done.
  await page
    .getByTestId("first-step-firstOrder")
    .getByRole("link", { name: /Fazer agora/ })
    .click();
  await expect(page).toHaveURL(/\/dashboard\/orders\/new$/);

  // A first order and its simulated payment, made through the API: the checklist reads the merchant's state, not its own clicks.
  const order = await api(request, m.apiKey).post("/order/create/pix", { value: 25 });
  await api(request, m.apiKey).post(`/sandbox/orders/${order.pixOrder._id}/pay`);
  await page.goto("/dashboard");
  await expect(page.getByTestId("first-step-firstOrder")).toHaveAttribute("data-done", "true");
  await expect(page.getByTestId("first-step-firstPayment")).toHaveAttribute("data-done", "true");
  await expect(page.getByTestId("first-steps-progress")).toHaveText(/4 de 6 feitos/);
  // The essentials are done: folded, the rest one click away.
  await expect(steps.locator("details")).not.toHaveAttribute("open", "");
  await expect(page.getByTestId("first-step-webhook")).toBeHidden();
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport);
    await shoot(page, `first-steps-folded-${size}`);
  }
  await steps.getByText("Primeiros passos").click();
  await expect(page.getByTestId("first-step-webhook")).toBeVisible();
});

test("developers without 2FA in the sandbox: a key, a webhook, a signed test event whose answer shows in the delivery log, and Reenviar without expanding anything", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok, recebido pela Doceria");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  try {
    const m = await seedMerchant(request, { companyName: "Doceria Nova" });
    await signIn(page, m.email);
    await page.goto("/dashboard/developers");

    // Sandbox: neither form asks for a code nor sends the member to turn 2FA on first.
    await expect(page.getByTestId("step-up-code")).toHaveCount(0);
    await expect(page.getByText("Ative a autenticação em dois fatores")).toHaveCount(0);
    await page.getByLabel("Nome da chave").fill("loja virtual");
    await page.getByRole("button", { name: "Criar chave" }).click();
    await expect(page.getByTestId("new-api-key")).toHaveText(/^sk_test_[0-9A-Za-z]{32,}$/);

    await page.getByLabel("URL do endpoint").fill(url);
    await page.getByRole("button", { name: "Adicionar endpoint" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    const endpoint = page.getByTestId("webhook-endpoint");
    await expect(endpoint).toContainText(url);

    await endpoint.getByRole("button", { name: /Enviar evento de teste/ }).click();
    await expect(endpoint.getByRole("status").filter({ hasText: "Evento de teste enviado" })).toBeVisible();
    const delivery = endpoint.getByTestId("webhook-delivery").first();
    await expect(delivery).toContainText("webhook.test", { timeout: 20_000 });
    await expect(delivery).toContainText("Teste");
    await expect(delivery.getByTestId("delivery-status")).toContainText("Entregue", { timeout: 20_000 });
    await expect(delivery).toContainText(/HTTP 200 · \d+ ms/);
    await expect(delivery.getByTestId("delivery-response")).toContainText("ok, recebido pela Doceria");
    // Reenviar is there on the row itself, with nothing expanded.
    const redeliver = delivery.getByRole("button", { name: /Reenviar/ });
    await expect(redeliver).toBeVisible();

    // What the receiver got is a Standard Webhooks request its secret verifies, marked as a test.
    expect(received).toHaveLength(1);
    const event = new Webhook(secret).verify(received[0].body, received[0].headers as Record<string, string>) as {
      type: string;
      data: { test: boolean };
    };
    expect(event).toMatchObject({ type: "webhook.test", data: { test: true } });

    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      await shoot(page, `developers-test-event-${size}`);
      await noSeriousA11yViolations(page);
    }

    await redeliver.click();
    await expect(endpoint.getByRole("status").filter({ hasText: "Reenvio agendado" })).toBeVisible();
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
    expect(received[1].headers["webhook-id"]).toBe(received[0].headers["webhook-id"]);
    await expect(endpoint.getByTestId("webhook-delivery")).toHaveCount(2, { timeout: 20_000 });
    await expect(endpoint.getByTestId("webhook-delivery").first()).toContainText("Reenvio");

    // The checklist sees the webhook.
    await page.goto("/dashboard");
    await expect(page.getByTestId("first-step-webhook")).toHaveAttribute("data-done", "true");
  } finally {
    server.close();
  }
});
