import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { expect } from "@playwright/test";
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PixCrypto,
  RateLimitError,
  verifyWebhook,
  WebhookVerificationError,
  type ResponseInfo,
  type WebhookEvent,
} from "@pixcrypto/sdk";
import { sandbox } from "@pixcrypto/sdk/sandbox";
import { answered, eventually, record, test } from "./support.ts";

// Every endpoint an API client calls, through the SDK, against the built app on PostgreSQL in sandbox
// mode; the last test checks that none was left out.

const POLYGON_ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

test("orders: PIX, exchange-wallet and Lightning created, looked up, paid in the sandbox, refunded, listed page by page", async ({
  merchant,
}) => {
  const { client } = await merchant();
  const keys: (string | null)[] = [];
  const watched = new PixCrypto({
    apiKey: client.apiKey,
    baseUrl: client.transport.options.baseUrl,
    onResponse: (i) => (record(i), keys.push(i.idempotencyKey)),
  });

  const pix = await watched.orders.createPix({ value: 49.9, orderId: "pedido-sdk-1", name: "Maria Souza" });
  expect(pix.qrCode).toMatch(/^000201/);
  expect(pix.pixOrder).toMatchObject({ value: 49.9, status: "PENDING", currency: "BRL" });
  const exchange = await watched.orders.createExchange({ value: 150 });
  expect(exchange.order.qrCodeLink).toContain("/qr.png");
  const lightning = await watched.orders.createLightning({ value: 25.5, email: "maria@example.com" });
  expect(lightning.order.invoice).toMatch(/^lnbc/);
  expect(Number.isInteger(lightning.order.satoshis)).toBe(true);
  // A fresh Idempotency-Key for every POST.
  expect(new Set(keys).size).toBe(3);
  expect(keys.every((k) => typeof k === "string" && k.length > 0)).toBe(true);

  const looked = await client.orders.get(pix.pixOrder.paymentLinkId);
  expect(looked.order).toMatchObject({ id: pix.pixOrder._id, type: "pix", brcode: pix.qrCode, status: "PENDING" });
  expect(looked.providerDetails).toBeUndefined();
  expect((await client.orders.get(lightning.order.id)).providerDetails?.data.amount).toBe(lightning.order.satoshis);

  const paid = await sandbox(client).payOrder(pix.pixOrder._id);
  expect(paid.order.status).toBe("COMPLETED");
  const { refund } = await client.orders.refund(pix.pixOrder._id, { value: 10, reason: "troca" });
  expect(refund).toMatchObject({ orderId: pix.pixOrder._id, value: 10, status: "COMPLETED" });
  expect((await client.orders.get(pix.pixOrder._id)).refunds.map((r) => r.id)).toEqual([refund.id]);

  const first = await client.orders.list({ limit: 2 });
  expect(first.orders).toHaveLength(2);
  expect(first.nextCursor).not.toBeNull();
  const all = await client.orders.iterate({ limit: 2 }).toArray();
  expect(all.map((o) => o.id)).toEqual([lightning.order.id, exchange.order.id, pix.pixOrder._id]);
  expect((await client.orders.iterate({ type: "pix" }).toArray()).map((o) => o.id)).toEqual([pix.pixOrder._id]);
});

test("invoices: created with a fine, interest and a discount, paid in the sandbox after the due date, listed, cancelled, batched", async ({
  merchant,
}) => {
  const { client } = await merchant();
  const terms = {
    value: 150,
    dueDate: "2030-01-10",
    payer: { name: "Maria Souza", cpf: "529.982.247-25" },
    fine: { modalidade: 2 as const, percent: 2 },
    interest: { modalidade: 3 as const, percent: 1 },
    discount: { modalidade: 1 as const, dates: [{ date: "2030-01-05", value: 10 }] },
  };
  const { invoice } = await client.invoices.create({ ...terms, reference: "contrato-sdk" });
  expect(invoice).toMatchObject({ status: "OPEN", value: 150, amountDue: { value: 140, discount: 10 } });
  expect(invoice.link).toContain("/pay/");
  // Due Thursday 2030-01-10, paid Monday the 14th: 150 + 2% + 1% a month for 4 days = 153.20.
  const paid = await sandbox(client).payInvoice(invoice.id, { date: "2030-01-14" });
  expect(paid.invoice).toMatchObject({ status: "PAID", payment: { value: 153.2, fine: 3, interest: 0.2 } });
  expect((await client.invoices.get(invoice.id)).invoice.order).toMatchObject({ status: "COMPLETED" });
  const other = await client.invoices.create(terms);
  expect((await client.invoices.cancel(other.invoice.id)).invoice.status).toBe("CANCELLED");
  expect((await client.invoices.list({ status: "PAID" })).invoices.map((i) => i.id)).toEqual([invoice.id]);
  expect((await client.invoices.iterate({ limit: 1 }).toArray()).map((i) => i.id)).toEqual([
    other.invoice.id,
    invoice.id,
  ]);
  const { batch } = await client.invoices.createBatch({
    description: "Lote SDK",
    invoices: [terms, { ...terms, value: 0 }],
  });
  expect(batch.items.map((i) => i.status)).toEqual(["CREATED", "REFUSED"]);
  expect((await client.invoices.getBatch(batch.id)).batch.counts).toEqual({ processing: 0, created: 1, refused: 1 });
});

test("subscriptions: created, authorised and paid at once, a cycle charged by the sweep, paid, failed, cancelled", async ({
  merchant,
}) => {
  const { client } = await merchant();
  const day = (plus: number) => new Date(Date.now() - 3 * 3600_000 + plus * 86_400_000).toISOString().slice(0, 10);
  // Five days ahead: inside the send window (10 to 2 days before), so the server's sweep charges cycle 1 now.
  const terms = {
    payer: { name: "Maria Souza", cpf: "529.982.247-25" },
    description: "Plano SDK",
    amount: { type: "FIXED" as const, value: 49.9 },
    periodicity: "MENSAL" as const,
    firstDate: day(5),
    retryPolicy: "NAO_PERMITE" as const,
  };
  const sb = sandbox(client);
  const { subscription } = await client.subscriptions.create({ ...terms, reference: "contrato-sdk" });
  expect(subscription).toMatchObject({ status: "AWAITING_AUTHORISATION", journey: "JORNADA_3" });
  expect(subscription.brcode).toMatch(/^000201/);
  const active = await sb.authoriseSubscription(subscription.id);
  expect(active.subscription.cycles[0]).toMatchObject({ status: "PAID", order: { status: "COMPLETED" } });
  const charged = await eventually(
    "cycle 1 charged by the sweep",
    () => client.subscriptions.get(subscription.id),
    (r) => r.subscription.cycles[1]?.status === "SCHEDULED",
  );
  expect(charged.subscription.cycles[1]).toMatchObject({ cycle: 1, dueDate: day(5) });
  expect((await sb.payCycle(subscription.id, 1)).subscription.cycles[1].status).toBe("PAID");

  const other = (await client.subscriptions.create(terms)).subscription;
  await sb.authoriseSubscription(other.id);
  await eventually(
    "the other's cycle 1",
    () => client.subscriptions.get(other.id),
    (r) => r.subscription.cycles[1]?.status === "SCHEDULED",
  );
  expect((await sb.failCycle(other.id, 1)).subscription.cycles[1].status).toBe("FAILED");
  expect((await sb.cancelSubscriptionAsPayer(other.id)).subscription).toMatchObject({
    status: "CANCELLED",
    cancelledBy: "payer",
  });
  const third = (await client.subscriptions.create({ ...terms, journey: "JORNADA_2" })).subscription;
  expect((await client.subscriptions.cancel(third.id)).subscription.cancelledBy).toBe("merchant");
  expect((await client.subscriptions.list({ status: "ACTIVE" })).subscriptions.map((s) => s.id)).toEqual([
    subscription.id,
  ]);
  expect((await client.subscriptions.iterate({ limit: 1 }).toArray()).map((s) => s.id)).toEqual([
    third.id,
    other.id,
    subscription.id,
  ]);
  // A variable amount changes for the cycles to come; a fixed one is part of the payer's authorisation.
  const variable = (
    await client.subscriptions.create({
      ...terms,
      journey: "JORNADA_2",
      amount: { type: "VARIABLE", value: 120, minimum: 50 },
    })
  ).subscription;
  const changed = await client.subscriptions.update(variable.id, { amount: { value: 135.5 } });
  expect(changed.subscription.amount).toEqual({ type: "VARIABLE", value: 135.5, minimum: 50 });
  await expect(client.subscriptions.update(subscription.id, { amount: { value: 60 } })).rejects.toMatchObject({
    status: 409,
  });
});

test("recipients: created, listed, edited (a new key is held), their statement read, an uncovered payout refused", async ({
  merchant,
}) => {
  const { client } = await merchant();
  const { recipient } = await client.recipients.create({
    name: "Maria Souza",
    document: "529.982.247-25",
    pixKey: "maria@example.com",
    reference: "seller-sdk",
  });
  expect(recipient).toMatchObject({ document: "***.982.247-**", balance: 0, status: "ACTIVE", pixKeyUsableAt: null });
  expect((await client.recipients.get(recipient.id)).recipient.id).toBe(recipient.id);
  expect((await client.recipients.list({ reference: "seller-sdk" })).recipients).toHaveLength(1);
  expect((await client.recipients.iterate({ limit: 1 }).toArray()).map((r) => r.id)).toEqual([recipient.id]);
  const edited = await client.recipients.update(recipient.id, { pixKey: "+5511987654321" });
  expect(edited.recipient.pixKeyUsableAt).not.toBeNull();
  const statement = await client.recipients.statement(recipient.id);
  expect(statement).toMatchObject({ recipientId: recipient.id, balance: 0, entries: [], nextCursor: null });
  await expect(client.recipients.payout(recipient.id, { value: 10 })).rejects.toMatchObject({ status: 400 });
});

test("recipients: a split sale credits one, its payout is read back by id, another id is a 404", async ({
  merchant,
}) => {
  const { client } = await merchant();
  const { recipient } = await client.recipients.create({
    name: "João Lima",
    document: "111.444.777-35",
    pixKey: "joao@example.com",
    payoutSchedule: { interval: "weekly", weekday: "friday", minimumValue: 50 },
  });
  expect(recipient.payoutSchedule).toMatchObject({ interval: "weekly", weekday: "friday", minimumValue: 50 });
  const order = await client.orders.createPix({ value: 80, splits: [{ recipientId: recipient.id, value: 30 }] });
  await sandbox(client).payOrder(order.pixOrder._id);
  expect((await client.recipients.get(recipient.id)).recipient.balance).toBe(30);
  const { payout } = await client.recipients.payout(recipient.id, { value: 12.5 });
  const read = await client.recipients.getPayout(recipient.id, payout.id);
  expect(read.payout).toMatchObject({ id: payout.id, recipientId: recipient.id, value: 12.5, amount: 1250 });
  await expect(client.recipients.getPayout(recipient.id, randomUUID())).rejects.toBeInstanceOf(NotFoundError);
});

test("payment links: created, read by the payer, bought, paid in the sandbox, edited, paused, listed with their sales", async ({
  merchant,
}) => {
  const { client } = await merchant();
  const { paymentLink } = await client.paymentLinks.create({
    title: "Bolo de cenoura",
    price: 45,
    maxQuantity: 3,
    rails: ["pix", "lightning"],
    payerFields: ["name"],
    maxPayments: 2,
    reference: "bolos-sdk",
  });
  const slug = paymentLink.url.split("/").at(-1)!;
  expect((await client.public.paymentLink(slug)).paymentLink).toMatchObject({ price: 45, available: true });
  expect([...(await client.public.paymentLinkQrPng(slug)).slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  const { order } = await client.public.buyFromLink(slug, { rail: "pix", quantity: 2, payer: { name: "Maria" } });
  expect(order).toMatchObject({ type: "pix", value: 90 });
  await sandbox(client).payOrder(order.paymentLinkId);
  const edited = await client.paymentLinks.update(paymentLink.id, { price: 50 });
  expect(edited.paymentLink).toMatchObject({ price: 50, version: 2, payments: { paid: 1, pending: 0 } });
  expect((await client.paymentLinks.pause(paymentLink.id)).paymentLink.status).toBe("PAUSED");
  await expect(client.public.buyFromLink(slug, { rail: "pix", payer: { name: "João" } })).rejects.toMatchObject({
    status: 409,
  });
  expect((await client.paymentLinks.resume(paymentLink.id)).paymentLink.status).toBe("ACTIVE");
  expect((await client.paymentLinks.get(paymentLink.id)).paymentLink.available).toBe(true);
  expect((await client.paymentLinks.list({ reference: "bolos-sdk" })).paymentLinks).toHaveLength(1);
  expect((await client.paymentLinks.iterate({ limit: 1 }).toArray()).map((l) => l.id)).toEqual([paymentLink.id]);
  const sales = (await client.paymentLinks.sales(paymentLink.id)).sales;
  expect(sales).toMatchObject([{ value: 90, quantity: 2, status: "COMPLETED", payer: { name: "Maria" } }]);
  expect(await client.paymentLinks.iterateSales(paymentLink.id).toArray()).toEqual(sales);
});

test("on-chain deposit paid by a sandbox transfer; withdrawals on-chain and by PIX, tracked one by one and listed", async ({
  merchant,
}) => {
  const { client } = await merchant({ openingBalance: 1_000_000 });
  const { order } = await client.onchain.createDeposit({ value: 540, asset: "USDT", network: "polygon" });
  expect(order.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  // Crypto amounts arrive as the API sends them: a JSON number of tokens.
  expect(order.amount).toBe(100);
  await sandbox(client).transferToDeposit(order.paymentLinkId, { amount: "100" });
  const deposit = await client.onchain.getDeposit(order.paymentLinkId);
  expect(deposit.order).toMatchObject({ status: "COMPLETED", cryptoValue: 100, value: 540, network: "polygon" });

  const onchain = await client.onchain.withdraw({ toAddress: POLYGON_ADDRESS, value: 100, network: "polygon" });
  expect(onchain).toMatchObject({ success: true, status: "PENDING" });
  expect(onchain.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  const pixOut = await client.withdrawals.pixOut({ value: 10_000 });
  expect(pixOut.amount).toBe(10_000);

  expect((await client.withdrawals.get(onchain.id)).withdrawal).toMatchObject({
    id: onchain.id,
    type: "onchain",
    toAddress: POLYGON_ADDRESS,
  });
  expect((await client.withdrawals.list({ limit: 1 })).withdrawals).toHaveLength(1);
  expect((await client.withdrawals.iterate({ limit: 1 }).toArray()).map((w) => w.id)).toEqual([pixOut.id, onchain.id]);
  // 1,000,000 + 54,000 in; 10,000 by PIX and 10,000 + fees on-chain out.
  const { merchant: account } = await client.account.get();
  expect(account.balance).toBeLessThan(1_034_000);
  expect(account.balance).toBeGreaterThan(1_030_000);
});

test("Crypto-PIX: a BR Code paid with USDT, the transfer in the sandbox, the merchant's and the payer's views", async ({
  merchant,
}) => {
  const seller = await merchant();
  const payer = await merchant();
  const { qrCode } = await seller.client.orders.createPix({ value: 20 });
  const { data } = await payer.client.cryptoPix.pay({ qrcode: qrCode, network: "bsc" });
  expect(data).toMatchObject({ value: 20, network: "bsc", status: "PENDING" });
  await sandbox(payer.client).transferToCryptoPix(data.payCryptoPixId, { amount: String(data.cryptoValue) });
  const payment = await payer.client.cryptoPix.get(data.payCryptoPixId);
  expect(payment).toMatchObject({ status: "COMPLETED", value: 20, isPartial: false });
  expect(payment.satoshis).toBeUndefined();
  const seen = await payer.client.public.cryptoPix(data.payCryptoPixId);
  expect(JSON.stringify(seen)).not.toContain(payer.id);
});

test("account (its type changed by the operator), the payer's view of an order and its QR code, with either header form", async ({
  merchant,
  operator,
  baseURL,
}) => {
  const { client, apiKey, id } = await merchant();
  await operator.merchants.update(id, { accountType: "verified" });
  const other = new PixCrypto({ apiKey, baseUrl: baseURL!, authHeader: "bearer", onResponse: record });
  const { merchant: account } = await other.account.get();
  expect(account).toMatchObject({ pixKey: "52998224725", balance: 0, accountType: "verified" });
  expect(await client.account.settings()).toEqual({ settings: { receiptShowsSplits: false } });
  expect(await client.account.updateSettings({ receiptShowsSplits: true })).toEqual({
    settings: { receiptShowsSplits: true },
  });
  const { order } = await client.orders.createExchange({ value: 12.34 });
  const { payment } = await client.public.payment(order.paymentLinkId);
  expect(payment).toMatchObject({
    status: "PENDING",
    value: 12.34,
    method: "exchange",
    paymentLinkId: order.paymentLinkId,
  });
  const png = await client.public.qrCodePng(order.paymentLinkId);
  expect([...png.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  expect(client.public.qrCodeUrl(order.paymentLinkId)).toBe(
    `${baseURL}/api/v1/public/payments/${order.paymentLinkId}/qr.png`,
  );
});

test("errors are typed: status, either body shape as sent, and the request id", async ({ merchant, baseURL }) => {
  const { client } = await merchant();
  const notFound = await client.orders.get(randomUUID()).catch((e: unknown) => e);
  expect(notFound).toBeInstanceOf(NotFoundError);
  const nf = notFound as NotFoundError;
  expect(nf).toMatchObject({
    status: 404,
    shape: "success-false",
    body: { success: false, error: expect.any(String), code: "not_found" },
    code: "not_found",
    attempts: 1,
  });
  // `code` is the union the API's document declares: a code it does not declare does not compile.
  // @ts-expect-error not one of the API's codes
  expect(nf.code === "no_such_code").toBe(false);
  expect(nf.requestId).toMatch(/\S/);
  expect(nf.message).toContain(nf.requestId!);

  const badNetwork = await client.onchain
    .createDeposit({ value: 10, asset: "USDT", network: "tron" as "eth" })
    .catch((e: unknown) => e);
  expect(badNetwork).toBeInstanceOf(BadRequestError);
  expect(badNetwork).toMatchObject({
    status: 400,
    shape: "message",
    body: { message: expect.stringContaining("tron"), supportedNetworks: ["eth", "bsc", "polygon"] },
    code: "network_not_supported",
  });

  const ownId = "sdk-test-" + randomUUID().slice(0, 8);
  const wrongKey = new PixCrypto({
    apiKey: "sk_test_" + "0".repeat(40),
    baseUrl: baseURL!,
    headers: { "x-request-id": ownId },
    onResponse: record,
  });
  const denied = await wrongKey.orders.createExchange({ value: 1 }).catch((e: unknown) => e);
  expect(denied).toBeInstanceOf(AuthenticationError);
  expect(denied).toMatchObject({ status: 401, shape: "success-false", requestId: ownId, code: "unauthorized" });
  // 4xx other than 429 are not retried.
  expect((denied as AuthenticationError).attempts).toBe(1);
});

test("a POST whose answer is lost is sent again with the same Idempotency-Key and creates one order", async ({
  merchant,
  baseURL,
}) => {
  const { apiKey, client } = await merchant();
  const answers: ResponseInfo[] = [];
  let lost = 0;
  // The first answer reaches us and is dropped, as a connection reset after the server committed would.
  const losingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (lost++ === 0) {
      await res.arrayBuffer();
      throw new TypeError("fetch failed: socket hang up");
    }
    return res;
  };
  const flaky = new PixCrypto({
    apiKey,
    baseUrl: baseURL!,
    fetch: losingFetch,
    onResponse: (i) => (record(i), answers.push(i)),
  });
  const orderId = "retry-" + randomUUID();
  const created = await flaky.orders.createPix({ value: 77.7, orderId });
  expect(lost).toBe(2);
  expect(answers).toHaveLength(1);
  expect(answers[0]).toMatchObject({ attempt: 2, status: 200, replayed: true });
  const list = await client.orders.list({ q: orderId });
  expect(list.orders.map((o) => o.id)).toEqual([created.pixOrder._id]);
});

test("a POST retried while its first attempt may still be running ends with that attempt's order, made once", async ({
  merchant,
  baseURL,
}) => {
  const { apiKey, client } = await merchant();
  const answers: ResponseInfo[] = [];
  let first: Promise<Response> | undefined;
  // The first attempt is sent and not waited for: the client sees a failure while the server works on it.
  const impatientFetch: typeof fetch = async (input, init) => {
    if (!first) {
      first = fetch(input, init);
      throw new TypeError("fetch failed: connection reset");
    }
    return fetch(input, init);
  };
  const flaky = new PixCrypto({
    apiKey,
    baseUrl: baseURL!,
    fetch: impatientFetch,
    maxRetries: 5,
    onResponse: (i) => (record(i), answers.push(i)),
  });
  const orderId = "inflight-" + randomUUID();
  const created = await flaky.orders.createExchange({ value: 33.3, payerId: orderId });
  const firstAnswer = await first!;
  // The retry found the first attempt still holding the key (409, retried) or got its stored answer;
  // however the two met, there is one order and both answers name it.
  expect(answers.slice(0, -1).every((a) => a.status === 409)).toBe(true);
  expect(answers.at(-1)!.status).toBe(201);
  if (firstAnswer.status === 201)
    expect(((await firstAnswer.json()) as { order: { id: string } }).order.id).toBe(created.order.id);
  expect((await client.orders.list({ type: "exchange" })).orders.map((o) => o.id)).toEqual([created.order.id]);
});

test("a 429 carries Retry-After and the rate-limit headers; without retries it is a RateLimitError, with them it is waited out", async ({
  merchant,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const { apiKey } = await merchant();
  const answers: ResponseInfo[] = [];
  const noRetry = new PixCrypto({
    apiKey,
    baseUrl: baseURL!,
    maxRetries: 0,
    onResponse: (i) => (record(i), answers.push(i)),
  });
  // Spend the key's allowance (RATE_LIMIT_PER_MINUTE, 600 on the test server), a few requests at a time.
  let limited: RateLimitError | null = null;
  for (let round = 0; round < 200 && !limited; round++) {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => noRetry.account.get()));
    const refusal = results.find((r) => r.status === "rejected");
    if (refusal) limited = (refusal as PromiseRejectedResult).reason as RateLimitError;
  }
  expect(limited).toBeInstanceOf(RateLimitError);
  expect(limited).toMatchObject({ status: 429, shape: "message", attempts: 1 });
  expect(limited!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(limited!.retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(limited!.rateLimit).toEqual({ limit: 600, remaining: 0, resetSeconds: limited!.retryAfterSeconds });
  const admitted = answers.find((a) => a.status === 200)!;
  expect(admitted.rateLimit).toMatchObject({ limit: 600 });

  const retried: ResponseInfo[] = [];
  const patient = new PixCrypto({
    apiKey,
    baseUrl: baseURL!,
    maxRetries: 3,
    onResponse: (i) => (record(i), retried.push(i)),
  });
  const started = Date.now();
  const { merchant: account } = await patient.account.get();
  expect(account.balance).toBe(0);
  const statuses = retried.map((r) => r.status);
  expect(statuses[0]).toBe(429);
  expect(statuses.at(-1)).toBe(200);
  // It waited at least what the server asked before trying again.
  const askedFirst = retried[0]!.rateLimit!.resetSeconds;
  expect(Date.now() - started).toBeGreaterThanOrEqual(askedFirst * 1000 - 1000);
});

test("webhooks: an endpoint registered, a payment's event verified end to end, the delivery log, a redelivery, the events log, deletion", async ({
  merchant,
}) => {
  test.setTimeout(120_000);
  const { client } = await merchant();
  const received: { body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const { webhook } = await client.webhooks.create({ url, description: "sdk test" });
    expect(webhook.secret).toMatch(/^whsec_/);
    expect((await client.webhooks.list()).webhooks.map((w) => w.id)).toEqual([webhook.id]);

    const { pixOrder } = await client.orders.createPix({ value: 49.9 });
    await sandbox(client).payOrder(pixOrder._id);
    const second = await client.orders.createExchange({ value: 10 });
    await sandbox(client).payOrder(second.order.id);
    const completed = (r: (typeof received)[number]) => JSON.parse(r.body.toString()).data?.status === "COMPLETED";
    await eventually(
      "the COMPLETED event",
      async () => received.filter(completed).length,
      (n) => n >= 1,
    );
    const delivery = received.find(completed)!;

    const event: WebhookEvent = verifyWebhook(delivery.body, delivery.headers, webhook.secret);
    expect(event.type).toBe("order.status_changed");
    if (event.type !== "order.status_changed") throw new Error("narrowed above");
    expect(event.id).toBe(delivery.headers["webhook-id"]);
    expect(event.data).toMatchObject({
      id: pixOrder._id,
      status: "COMPLETED",
      previousStatus: "PENDING",
      value: 49.9,
      type: "pix",
    });
    expect(typeof event.data.paymentLinkId).toBe("string");
    // Altered bytes, or another endpoint's secret, are refused.
    const altered = Buffer.from(delivery.body.toString().replace("49.9", "4990"));
    expect(() => verifyWebhook(altered, delivery.headers, webhook.secret)).toThrow(WebhookVerificationError);
    const other = await client.webhooks.create({ url: url + "?other" });
    expect(() => verifyWebhook(delivery.body, delivery.headers, other.webhook.secret)).toThrow(
      WebhookVerificationError,
    );
    await client.webhooks.delete(other.webhook.id);

    // Page by page (one a page), until both payments' deliveries are recorded as succeeded.
    const deliveries = await eventually(
      "the deliveries recorded as succeeded",
      () => client.webhooks.iterateDeliveries(webhook.id, { limit: 1 }).toArray(),
      (all) =>
        all.filter((d) => d.status === "succeeded").length >= 2 &&
        all.some((d) => d.eventId === event.id && d.status === "succeeded"),
    );
    const original = deliveries.find((d) => d.eventId === event.id)!;
    expect((await client.webhooks.deliveries(webhook.id, { status: "succeeded" })).deliveries.length).toBe(
      deliveries.filter((d) => d.status === "succeeded").length,
    );
    const { delivery: again } = await client.webhooks.redeliver(webhook.id, original.id);
    expect(again).toMatchObject({ eventId: event.id, redeliveryOf: original.id });
    await eventually(
      "the redelivery",
      async () => received.filter((r) => r.headers["webhook-id"] === event.id).length,
      (n) => n >= 2,
    );
    const redelivered = received.filter((r) => r.headers["webhook-id"] === event.id).at(-1)!;
    expect(verifyWebhook(redelivered.body, redelivered.headers, webhook.secret).id).toBe(event.id);

    // The events log has the same object, and its paginator's cursor resumes after it.
    const log = client.events.iterate({ limit: 1 });
    const events = await log.toArray();
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(["order.status_changed"]));
    expect(events.find((e) => e.id === event.id)).toEqual({
      id: event.id,
      type: event.type,
      createdAt: event.createdAt,
      data: event.data,
    });
    expect(log.cursor).not.toBeNull();
    expect(await client.events.iterate({ after: log.cursor }).toArray()).toEqual([]);
    expect((await client.events.list({ after: log.cursor! })).hasMore).toBe(false);

    await client.webhooks.delete(webhook.id);
    expect((await client.webhooks.list()).webhooks).toEqual([]);
  } finally {
    receiver.close();
  }
});

test("the SDK has called every endpoint an API client can call", async ({ baseURL }) => {
  const doc = (await (await fetch(`${baseURL}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
  };
  // Provider callbacks are for the PSP, Binance Pay and OpenNode; the document is read above.
  const notForClients = new Set(["Provider callbacks", "Meta"]);
  const expected = Object.values(doc.paths)
    .flatMap((ops) => Object.values(ops))
    .filter((op) => !notForClients.has(op.tags[0]!))
    .map((op) => op.operationId)
    .sort();
  expect(expected.length).toBeGreaterThan(25);
  expect([...answered].sort()).toEqual(expected);
});
