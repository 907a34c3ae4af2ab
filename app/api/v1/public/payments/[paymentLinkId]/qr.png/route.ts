export { publicPaymentQrHandler as GET } from "@/lib/public/handlers";
