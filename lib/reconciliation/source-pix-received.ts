import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { orderRefunds, pixReceipts, pixReturns } from "@/db/schema";
import { env } from "@/lib/env";
import { applyPixReturns } from "@/lib/med/returns";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { receiptExists } from "@/lib/orders/queries";
import { uuidOfProviderId } from "@/lib/pix-collection/receiver";
import { providers } from "@/lib/providers";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { railEnabled } from "@/lib/providers/rails";
import { type Movement, type ProviderMovement, type ReconSource } from "./run";
import { noDashes } from "./ids";

// The pix_received reconciliation source: what it matches is listed in ./sources.ts.

const returnRef = (endToEndId: string, returnId: string) => `${endToEndId}/${returnId}`;

/** The API Pix words for a devolução's progress, and ours for a refund. */
const REFUND_STATE: Record<string, string> = {
  PENDING: "EM_PROCESSAMENTO",
  COMPLETED: "DEVOLVIDO",
  FAILED: "NAO_REALIZADO",
};

export function pixReceived(): ReconSource {
  // The Pix of the page being matched, by end-to-end id: what applyMissing applies.
  const listed = new Map<string, ReceivedPix>();
  return {
    name: "pix_received",
    enabled: () => env().PAYMENTS_MODE === "live" && railEnabled("pix") && providers().pix.listPayments !== undefined,
    async page(window, page) {
      const answer = await providers().pix.listPayments!({ ...window, page });
      listed.clear();
      const items: ProviderMovement[] = [];
      for (const pix of answer.items) {
        listed.set(pix.endToEndId, pix);
        items.push({
          ref: pix.endToEndId,
          valueCentavos: pix.valueCentavos,
          state: "RECEIVED",
          at: pix.paidAt,
          detail: { txid: pix.txid },
        });
        for (const r of pix.returns ?? []) {
          items.push({
            ref: returnRef(pix.endToEndId, r.id),
            valueCentavos: r.valueCentavos,
            state: r.status,
            at: pix.paidAt,
            detail: { natureza: r.natureza },
          });
        }
      }
      return { items, next: page + 1 < answer.pages ? page + 1 : null };
    },
    async applyMissing(item) {
      const [endToEndId, returnId] = item.ref.split("/");
      const pix = listed.get(endToEndId);
      if (!pix) return false;
      if (!returnId) {
        if (await receiptExists(db(), endToEndId)) return false;
        return !(await applyReceivedPix(pix, "poll")).duplicate;
      }
      const known = await db()
        .select({ id: pixReturns.id })
        .from(pixReturns)
        .where(and(eq(pixReturns.endToEndId, endToEndId), eq(pixReturns.returnId, returnId)));
      if (known.length > 0) return false;
      return (await applyPixReturns(pix, "reconciliation")).recorded > 0;
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      const pixRefs = refs.filter((r) => !r.includes("/"));
      if (pixRefs.length) {
        const rows = await db().select().from(pixReceipts).where(inArray(pixReceipts.endToEndId, pixRefs));
        for (const r of rows)
          out.set(r.endToEndId, {
            ref: r.endToEndId,
            valueCentavos: r.valueCentavos,
            state: "RECEIVED",
            merchantId: r.merchantId,
          });
      }
      for (const ref of refs.filter((r) => r.includes("/"))) {
        const [endToEndId, returnId] = ref.split("/");
        const refundId = uuidOfProviderId(returnId);
        if (refundId) {
          const [refund] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
          if (refund) {
            out.set(ref, {
              ref,
              valueCentavos: refund.valueCentavos,
              state: REFUND_STATE[refund.status],
              merchantId: refund.merchantId,
              detail: { refundId },
            });
            continue;
          }
        }
        const [ret] = await db()
          .select()
          .from(pixReturns)
          .where(and(eq(pixReturns.endToEndId, endToEndId), eq(pixReturns.returnId, returnId)));
        if (ret)
          out.set(ref, {
            ref,
            valueCentavos: ret.valueCentavos,
            state: ret.status,
            merchantId: ret.merchantId,
            detail: { pixReturnId: ret.id },
          });
      }
      return out;
    },
    async oursIn({ from, to }) {
      const receipts = await db()
        .select()
        .from(pixReceipts)
        .where(and(gte(pixReceipts.paidAt, from), lt(pixReceipts.paidAt, to), sql`${pixReceipts.source} <> 'sandbox'`));
      const movements: Movement[] = receipts.map((r) => ({
        ref: r.endToEndId,
        valueCentavos: r.valueCentavos,
        state: "RECEIVED",
        merchantId: r.merchantId,
      }));
      // Our refunds of the Pix paid that day (the PSP lists them inside their Pix).
      const refunds = await db()
        .select({ refund: orderRefunds })
        .from(orderRefunds)
        .innerJoin(pixReceipts, eq(pixReceipts.endToEndId, orderRefunds.paymentRef))
        // Only a made one must be there: a first request the PSP refused (FAILED) or one still unanswered may rightly be absent.
        .where(and(gte(pixReceipts.paidAt, from), lt(pixReceipts.paidAt, to), eq(orderRefunds.status, "COMPLETED")));
      for (const { refund } of refunds) {
        movements.push({
          ref: returnRef(refund.paymentRef, noDashes(refund.id)),
          valueCentavos: refund.valueCentavos,
          state: REFUND_STATE[refund.status],
          merchantId: refund.merchantId,
          detail: { refundId: refund.id },
        });
      }
      return movements;
    },
    sameState: (ours, theirs) => ours === theirs,
  };
}
