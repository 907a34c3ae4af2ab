export { createLightningOrderHandler as POST } from "@/lib/orders/handlers";
