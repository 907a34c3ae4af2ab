export { listDeliveriesHandler as GET } from "@/lib/webhooks/handlers";
