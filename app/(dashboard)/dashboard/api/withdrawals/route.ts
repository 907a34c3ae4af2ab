import { dashboardJson } from "@/lib/dashboard/json";
import { getWithdrawalState } from "@/lib/dashboard/withdrawals";

export const GET = dashboardJson(({ merchant }) => getWithdrawalState(merchant.id));
