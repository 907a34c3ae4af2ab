import { dashboardJson } from "@/lib/dashboard/json";
import { getWebhookPanel } from "@/lib/dashboard/webhooks";

export const GET = dashboardJson(({ merchant }) => getWebhookPanel(merchant.id));
