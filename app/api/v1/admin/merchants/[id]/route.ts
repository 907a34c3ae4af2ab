export { adminUpdateMerchant as PATCH } from "@/lib/merchants/handlers";
