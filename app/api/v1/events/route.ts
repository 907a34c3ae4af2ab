export { listEventsHandler as GET } from "@/lib/webhooks/handlers";
