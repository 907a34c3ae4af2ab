import { dashboardJson } from "@/lib/dashboard/server/json";
import { getWithdrawalState } from "@/lib/dashboard/server/withdrawals";

export const GET = dashboardJson(({ merchant }) => getWithdrawalState(merchant.id));
