export { getWithdrawalHandler as GET } from "@/lib/withdrawals/handlers";
