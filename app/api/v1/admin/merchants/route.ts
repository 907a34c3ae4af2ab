export { adminCreateMerchant as POST } from "@/lib/merchants/handlers";
