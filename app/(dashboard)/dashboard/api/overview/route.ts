import { dashboardJson } from "@/lib/dashboard/json";
import { getOverview } from "@/lib/dashboard/overview";

export const GET = dashboardJson(({ merchant }) => getOverview(merchant.id));
