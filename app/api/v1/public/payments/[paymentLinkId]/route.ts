export { publicPaymentHandler as GET } from "@/lib/public/handlers";
