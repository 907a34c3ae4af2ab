import { expect, test, type APIRequestContext } from "@playwright/test";
import { E2E_ADMIN_TOKEN } from "../playwright.config";

// What the README promises a newcomer, against the built app over real HTTP: create orders of each
// kind, pay them through the sandbox helpers, see the balance grow, withdraw, and get clear 4xx.

async function newMerchant(request: APIRequestContext) {
  const res = await request.post("/api/v1/admin/merchants", {
    headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    data: { companyName: "Loja E2E", pixKey: "52998224725" },
  });
  expect(res.status()).toBe(201);
  return (await res.json()).apiKey as string;
}

test("home page says what the service is", async ({ page }, info) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("PIX");
  await expect(page.getByRole("link", { name: "Ver a documentação da API" })).toHaveAttribute("href", "/docs");
  await page.screenshot({ path: info.outputPath("home.png"), fullPage: true });
});

test("a merchant takes PIX, Lightning and on-chain payments and withdraws", async ({ request }) => {
  const key = await newMerchant(request);
  const auth = { authorization: `Bearer ${key}` };

  const pix = await request.post("/api/v1/order/create/pix", { headers: auth, data: { value: 150 } });
  expect(pix.status()).toBe(200);
  const pixBody = await pix.json();
  expect(pixBody.qrCode).toMatch(/^000201.*6304[0-9A-F]{4}$/);
  expect((await request.post(`/api/v1/sandbox/orders/${pixBody.pixOrder._id}/pay`, { headers: auth })).status()).toBe(
    200,
  );
  const lookup = await (await request.get(`/api/v1/order/${pixBody.pixOrder.paymentLinkId}`, { headers: auth })).json();
  expect(lookup.order.status).toBe("COMPLETED");

  const ln = await request.post("/api/v1/order/create/lightning", { headers: { bearer: key }, data: { value: 25.5 } });
  expect(ln.status()).toBe(201);
  const lnBody = await ln.json();
  expect(lnBody.order.invoice).toMatch(/^lnbc/);
  expect((await request.post(`/api/v1/sandbox/orders/${lnBody.order.id}/pay`, { headers: auth })).status()).toBe(200);

  const dep = await request.post("/api/v1/onchain/deposit", {
    headers: { bearer: key },
    data: { value: 540, asset: "USDT", network: "polygon" },
  });
  expect(dep.status()).toBe(201);
  const depBody = await dep.json();
  expect(depBody.order.amount).toBe(100);
  const transfer = await request.post(`/api/v1/sandbox/onchain/${depBody.order.paymentLinkId}/transfer`, {
    headers: auth,
    data: { amount: "100" },
  });
  expect(transfer.status()).toBe(200);
  expect((await transfer.json()).order.status).toBe("COMPLETED");

  const account = await (await request.get("/api/v1/account", { headers: auth })).json();
  expect(account.merchant.balance).toBe(15000 + 2550 + 54000);

  const pixOut = await request.post("/api/v1/order/pix-out", { headers: auth, data: { value: 10000 } });
  expect(pixOut.status()).toBe(201);
  expect((await pixOut.json()).amount).toBe(10000);
  const withdraw = await request.post("/api/v1/onchain/withdraw/initiate", {
    headers: auth,
    data: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 100, network: "polygon" },
  });
  expect(withdraw.status()).toBe(200);
  const w = await withdraw.json();
  expect(w).toMatchObject({ success: true, transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

  // The background jobs of the running server settle both withdrawals on their own.
  await expect
    .poll(
      async () =>
        (await (await request.get("/api/v1/withdrawals", { headers: auth })).json()).withdrawals.map(
          (x: { status: string }) => x.status,
        ),
      {
        timeout: 20_000,
      },
    )
    .toEqual(["COMPLETED", "COMPLETED"]);
  const after = await (await request.get("/api/v1/account", { headers: auth })).json();
  expect(after.merchant.balance).toBe(15000 + 2550 + 54000 - 10000 - (10000 + 50 + 5));
});

test("bad input gets a clear 4xx in each endpoint's shape", async ({ request }) => {
  const key = await newMerchant(request);
  const auth = { authorization: `Bearer ${key}` };
  const network = await request.post("/api/v1/onchain/deposit", {
    headers: auth,
    data: { value: 10, asset: "USDT", network: "tron" },
  });
  expect(network.status()).toBe(400);
  expect(await network.json()).toMatchObject({ supportedNetworks: ["eth", "bsc", "polygon"] });
  const exchange = await request.post("/api/v1/order/create", { headers: auth, data: { value: 0 } });
  expect(exchange.status()).toBe(400);
  expect(await exchange.json()).toMatchObject({ success: false, error: expect.any(String) });
  const malformed = await request.post("/api/v1/order/create/pix", {
    headers: { ...auth, "content-type": "application/json" },
    data: "{oops",
  });
  expect(malformed.status()).toBe(400);
  const noKey = await request.get("/api/v1/account");
  expect(noKey.status()).toBe(401);
  const unknown = await request.get("/api/v1/does/not/exist", { headers: auth });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toEqual({ message: "Not found: GET /api/v1/does/not/exist", code: "not_found" });
});

test("the exchange-wallet qrCodeLink serves a PNG", async ({ request }) => {
  const key = await newMerchant(request);
  const res = await request.post("/api/v1/order/create", {
    headers: { authorization: `Bearer ${key}` },
    data: { value: 12.34 },
  });
  const { order } = await res.json();
  const png = await request.get(new URL(order.qrCodeLink).pathname);
  expect(png.status()).toBe(200);
  expect(png.headers()["content-type"]).toBe("image/png");
  expect((await png.body()).subarray(1, 4).toString()).toBe("PNG");
});
