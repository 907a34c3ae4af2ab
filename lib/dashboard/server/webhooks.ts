import "server-only";
import { listDeliveries } from "@/lib/webhooks/deliveries";
import { listEndpointsWithSecretState } from "@/lib/webhooks/registry";

// The Developers page's webhook panel: the merchant's endpoints, each with its latest deliveries
// and their attempts, through the webhooks services (no secrets: those are shown once, at creation;
// only whether each secret can still be read, docs/webhooks.md).

export type WebhookPanel = {
  endpoints: (Awaited<ReturnType<typeof listEndpointsWithSecretState>>[number] & {
    deliveries: Awaited<ReturnType<typeof listDeliveries>>["deliveries"];
  })[];
};

export async function getWebhookPanel(merchantId: string, deliveriesPerEndpoint = 10): Promise<WebhookPanel> {
  const endpoints = await listEndpointsWithSecretState(merchantId);
  const withDeliveries = await Promise.all(
    endpoints.map(async (e) => ({
      ...e,
      deliveries: (await listDeliveries(merchantId, e.id, { limit: deliveriesPerEndpoint })).deliveries,
    })),
  );
  return { endpoints: withDeliveries };
}
