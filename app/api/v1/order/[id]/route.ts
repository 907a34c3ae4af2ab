export { getOrderHandler as GET } from "@/lib/orders/handlers";
