import { dashboardJson } from "@/lib/dashboard/server/json";
import { getWebhookPanel } from "@/lib/dashboard/server/webhooks";

export const GET = dashboardJson(({ merchant }) => getWebhookPanel(merchant.id));
