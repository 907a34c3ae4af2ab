export { listWithdrawalsHandler as GET } from "@/lib/withdrawals/handlers";
