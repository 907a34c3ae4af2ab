export { createExchangeOrderHandler as POST } from "@/lib/orders/handlers";
