export { redeliverHandler as POST } from "@/lib/webhooks/handlers";
