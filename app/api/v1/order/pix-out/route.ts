export { pixOutHandler as POST } from "@/lib/withdrawals/handlers";
