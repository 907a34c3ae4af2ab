export { getDepositHandler as GET } from "@/lib/onchain/handlers";
