import { dashboardJson } from "@/lib/dashboard/server/json";
import { getOverview } from "@/lib/dashboard/server/overview";

export const GET = dashboardJson(({ merchant }) => getOverview(merchant.id));
