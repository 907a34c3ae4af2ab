export { createPixOrderHandler as POST } from "@/lib/orders/handlers";
