export { deleteWebhookHandler as DELETE } from "@/lib/webhooks/handlers";
