export { getAccountHandler as GET } from "@/lib/account/handlers";
