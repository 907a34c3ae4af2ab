import { dashboardJson } from "@/lib/dashboard/server/json";
import { dashboardOrdersQuery, listDashboardOrders } from "@/lib/dashboard/server/orders";

export const GET = dashboardJson(({ merchant }, req) => {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  return listDashboardOrders(merchant.id, dashboardOrdersQuery.parse(params));
});
