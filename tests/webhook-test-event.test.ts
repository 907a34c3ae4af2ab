import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startWebhookDispatcher, stopWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { listDeliveries } from "@/lib/webhooks/deliveries";
import { sendTestEvent } from "@/lib/webhooks/test-event";
import { api, seedMerchant } from "./helpers";
import { startReceiver, type Receiver } from "./webhook-receiver";

// The Developers page's "Enviar evento de teste" (docs/webhooks.md#test-events): a signed event
// through the same dispatcher, marked as a test by its type and data, sent to one endpoint only,
// shown in that endpoint's delivery log with the answer, and left out of GET /events.

const receivers: Receiver[] = [];
beforeAll(async () => {
  await startWebhookDispatcher();
});
afterAll(async () => {
  await stopWebhookDispatcher();
  await Promise.all(receivers.map((r) => r.close()));
});

async function hook(apiKey: string, respond?: Parameters<typeof startReceiver>[0]) {
  const rx = await startReceiver(respond);
  receivers.push(rx);
  const res = await api("POST", "/api/v1/webhooks", { apiKey, body: { url: rx.url } });
  expect(res.status).toBe(201);
  return { rx, webhook: res.body.webhook as { id: string; secret: string } };
}

describe("a test event for one webhook endpoint", () => {
  it("is signed like every event, reaches only that endpoint, and its answer is in the delivery log", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const { rx, webhook } = await hook(apiKey, () => ({ status: 200, body: "recebido pela loja" }));
    const other = await hook(apiKey);

    const { eventId } = await sendTestEvent(merchant.id, webhook.id);
    const [got] = await rx.waitFor("the test event", (r) => r.length >= 1);
    expect(got.headers["webhook-id"]).toBe(eventId);
    // What a receiver verifies: the Standard Webhooks signature over the exact bytes, with the secret it was given.
    const verified = new Webhook(webhook.secret).verify(got.body, got.headers) as Record<string, unknown>;
    expect(verified).toMatchObject({ id: eventId, type: "webhook.test", data: { test: true, webhookId: webhook.id } });

    const log = await waitForLog(merchant.id, webhook.id, (d) => d.status === "succeeded");
    expect(log).toMatchObject({
      eventId,
      eventType: "webhook.test",
      status: "succeeded",
      lastStatusCode: 200,
      attempts: 1,
    });
    expect(log.attemptsLog[0]).toMatchObject({
      statusCode: 200,
      responseExcerpt: "recebido pela loja",
      durationMs: expect.any(Number),
    });

    expect(other.rx.received).toHaveLength(0);
    expect((await listDeliveries(merchant.id, other.webhook.id, { limit: 10 })).deliveries).toHaveLength(0);
    const listed = await api("GET", "/api/v1/events", { apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((e: { type: string }) => e.type)).not.toContain("webhook.test");
  });

  it("a failing receiver's answer is recorded and retried; another test waits until it is decided; unknown and other merchants' endpoints are 404", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const { webhook } = await hook(apiKey, () => ({ status: 500, body: "erro interno" }));
    await sendTestEvent(merchant.id, webhook.id);
    await expect(sendTestEvent(merchant.id, webhook.id)).rejects.toMatchObject({ status: 409 });
    const log = await waitForLog(merchant.id, webhook.id, (d) => d.attempts >= 1);
    expect(log).toMatchObject({ eventType: "webhook.test", lastStatusCode: 500, lastError: "HTTP 500" });
    expect(log.attemptsLog[0]).toMatchObject({ statusCode: 500, responseExcerpt: "erro interno" });

    const stranger = await seedMerchant();
    await expect(sendTestEvent(stranger.merchant.id, webhook.id)).rejects.toMatchObject({ status: 404 });
    await expect(sendTestEvent(merchant.id, crypto.randomUUID())).rejects.toMatchObject({ status: 404 });
  });
});

type Delivery = Awaited<ReturnType<typeof listDeliveries>>["deliveries"][number];

async function waitForLog(merchantId: string, endpointId: string, done: (d: Delivery) => boolean): Promise<Delivery> {
  const until = Date.now() + 15_000;
  for (;;) {
    const [latest] = (await listDeliveries(merchantId, endpointId, { limit: 1 })).deliveries;
    if (latest && done(latest)) return latest;
    if (Date.now() > until) throw new Error(`delivery log not as expected: ${JSON.stringify(latest)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
