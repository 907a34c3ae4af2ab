import "server-only";
import { NETWORKS, ASSETS, tokenFor } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { PAYMENT_LINK_RAILS } from "@/db/schema";
import { railEnabled } from "@/lib/providers/rails";
import { getPaymentLink, listSales } from "@/lib/payment-links/service";

/** The rails and tokens a new link can offer on this server (live mode: no BUSD, only configured rails). */
export function linkChoices() {
  const rails = PAYMENT_LINK_RAILS.filter((r) => railEnabled(r));
  const tokens = NETWORKS.flatMap((network) =>
    ASSETS.filter((asset) => tokenFor(network, asset) && !(asset === "BUSD" && env().PAYMENTS_MODE === "live")).map(
      (asset) => ({ network, asset }),
    ),
  );
  return { rails, tokens };
}

/** The link with its latest sales, or null when it is not the merchant's. */
export async function paymentLinkDetail(merchantId: string, id: string) {
  try {
    const link = await getPaymentLink(merchantId, id);
    const { sales, nextCursor } = await listSales(merchantId, id, { limit: 50 });
    return { link, sales, more: nextCursor !== null };
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}
