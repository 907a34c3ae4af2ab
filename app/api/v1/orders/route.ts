export { listOrdersHandler as GET } from "@/lib/orders/handlers";
