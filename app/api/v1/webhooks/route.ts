export { createWebhookHandler as POST, listWebhooksHandler as GET } from "@/lib/webhooks/handlers";
