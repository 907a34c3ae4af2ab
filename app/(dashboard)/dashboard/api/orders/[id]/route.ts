import { dashboardJson } from "@/lib/dashboard/server/json";
import { getOrderDetail } from "@/lib/dashboard/server/order-detail";

// Another merchant's order answers 404, exactly like an unknown id.
export const GET = dashboardJson<{ id: string }>(({ merchant }, _req, { id }) => getOrderDetail(merchant.id, id));
