export { createDepositHandler as POST } from "@/lib/onchain/handlers";
