// The shop's receiver under test with deliveries signed as the API signs them: no server, no network.
const test = require("node:test");
const assert = require("node:assert/strict");
const { createTestWebhook, generateTestHeaders } = require("@pixcrypto/sdk");
const { createReceiver } = require("./receiver.js");
const { withdraw } = require("./payout.js");

const secret = "whsec_" + Buffer.from("24 bytes of test secret!").toString("base64");

function paidOrder(saleId) {
  return {
    id: "5b0e1c3e-7f4a-4b8e-9d51-2a6c1f0e9b11",
    paymentLinkId: "Xk3pQ7vLm2Rt9sWz4yBn6c",
    type: "pix",
    value: 49.9,
    status: "COMPLETED",
    createdAt: "2026-12-01T11:58:40.120Z",
    brcode: "000201…",
    link: "https://payments.example.com/pay/Xk3pQ7vLm2Rt9sWz4yBn6c",
    paidAt: "2026-12-01T12:00:03.500Z",
    reference: { orderId: saleId },
    metadata: { cartId: "c-88231" },
    previousStatus: "PENDING",
  };
}

test("a signed order.status_changed COMPLETED marks the shop's own sale paid, with its metadata", () => {
  const sales = new Map([["sale-1001", { status: "awaiting payment" }]]);
  const receive = createReceiver({ secret, sales });
  const { body, headers } = createTestWebhook({ type: "order.status_changed", data: paidOrder("sale-1001"), secret });
  assert.equal(receive(body, headers), 200);
  assert.deepEqual(sales.get("sale-1001"), {
    status: "paid",
    paidAt: "2026-12-01T12:00:03.500Z",
    metadata: { cartId: "c-88231" },
  });
});

test("a delivery signed with another secret, or altered, is refused and changes nothing", () => {
  const sales = new Map([["sale-1001", { status: "awaiting payment" }]]);
  const receive = createReceiver({ secret, sales });
  const other = "whsec_" + Buffer.from("another secret, 24 bytes").toString("base64");
  const forged = createTestWebhook({ type: "order.status_changed", data: paidOrder("sale-1001"), secret: other });
  assert.equal(receive(forged.body, forged.headers), 400);
  const signed = createTestWebhook({ type: "order.status_changed", data: paidOrder("sale-1001"), secret });
  assert.equal(receive(signed.body.replace("49.9", "0.01"), signed.headers), 400);
  assert.equal(sales.get("sale-1001").status, "awaiting payment");
});

test("generateTestHeaders signs a body the test wrote; a stale timestamp is refused", () => {
  const sales = new Map([["sale-7", { status: "awaiting payment" }]]);
  const receive = createReceiver({ secret, sales });
  const payload = JSON.stringify({
    id: "evt_1",
    type: "order.status_changed",
    createdAt: new Date().toISOString(),
    data: paidOrder("sale-7"),
  });
  const stale = generateTestHeaders({ payload, secret, timestamp: new Date(Date.now() - 10 * 60_000) });
  assert.equal(receive(payload, stale), 400);
  assert.equal(receive(payload, generateTestHeaders({ payload, secret })), 200);
  assert.equal(sales.get("sale-7").status, "paid");
});

/** A client whose every call the API refuses with this 400 body. */
function refusingWith(answer) {
  const { PixCrypto } = require("@pixcrypto/sdk");
  return new PixCrypto({
    apiKey: "sk_test_" + "a".repeat(32),
    baseUrl: "https://payments.example.com",
    maxRetries: 0,
    fetch: async () =>
      new Response(JSON.stringify(answer), { status: 400, headers: { "content-type": "application/json" } }),
  });
}

test("a refused payout is reported, not thrown", async () => {
  const pix = refusingWith({ message: "Invalid PIX key", code: "pix_key_invalid" });
  assert.deepEqual(await withdraw(pix, 50_000, { payoutRun: "2026-12" }), {
    ok: false,
    reason: "Invalid PIX key",
    retryLater: false,
  });
});

test("an insufficient-balance payout is told apart by its error code, whatever its words", async () => {
  const pix = refusingWith({ message: "Saldo insuficiente", code: "insufficient_balance" });
  assert.deepEqual(await withdraw(pix, 50_000, { payoutRun: "2026-12" }), {
    ok: false,
    reason: "Saldo insuficiente",
    retryLater: true,
  });
});
