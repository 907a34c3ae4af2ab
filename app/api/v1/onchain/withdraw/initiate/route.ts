export { onchainWithdrawHandler as POST } from "@/lib/withdrawals/handlers";
