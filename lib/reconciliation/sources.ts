import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { orderRefunds, pixPayouts, pixReceipts, pixReturns } from "@/db/schema";
import { env } from "@/lib/env";
import { applyPixReturns, isMed } from "@/lib/med/returns";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { receiptExists } from "@/lib/orders/queries";
import { uuidOfProviderId } from "@/lib/pix-collection/notifications";
import { providers } from "@/lib/providers";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { railEnabled } from "@/lib/providers/rails";
import type { Movement, ProviderMovement, ReconSource, ReconSourceName } from "./run";

// What each provider's records are matched against (docs/operations.md "Reconciliation"):
//   pix_received  API Pix GET /pix (every page) ↔ pix_receipts, by end-to-end id; each listed devolução
//                 ↔ our refund (its id is ours) or the recorded MED devolução (pix_returns). Devoluções are
//                 listed inside their Pix, so they are reconciled on the day their Pix was paid.
//   pix_sent      Efí GET /v2/gn/pix/enviados (every page) ↔ pix_payouts, by idEnvio (our payout's id).

const noDashes = (id: string) => id.replace(/-/g, "");
const returnRef = (endToEndId: string, returnId: string) => `${endToEndId}/${returnId}`;

/** The API Pix words for a devolução's progress, and ours for a refund. */
const REFUND_STATE: Record<string, string> = { PENDING: "EM_PROCESSAMENTO", COMPLETED: "DEVOLVIDO", FAILED: "NAO_REALIZADO" };

function pixReceived(): ReconSource {
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
        items.push({ ref: pix.endToEndId, valueCentavos: pix.valueCentavos, state: "RECEIVED", at: pix.paidAt, detail: { txid: pix.txid } });
        for (const r of pix.returns ?? []) {
          items.push({ ref: returnRef(pix.endToEndId, r.id), valueCentavos: r.valueCentavos, state: r.status, at: pix.paidAt, detail: { natureza: r.natureza } });
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
      if (!isMed(String(item.detail?.natureza))) return false;
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
        for (const r of rows) out.set(r.endToEndId, { ref: r.endToEndId, valueCentavos: r.valueCentavos, state: "RECEIVED", merchantId: r.merchantId });
      }
      for (const ref of refs.filter((r) => r.includes("/"))) {
        const [endToEndId, returnId] = ref.split("/");
        const refundId = uuidOfProviderId(returnId);
        if (refundId) {
          const [refund] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
          if (refund) {
            out.set(ref, { ref, valueCentavos: refund.valueCentavos, state: REFUND_STATE[refund.status], merchantId: refund.merchantId, detail: { refundId } });
            continue;
          }
        }
        const [ret] = await db()
          .select()
          .from(pixReturns)
          .where(and(eq(pixReturns.endToEndId, endToEndId), eq(pixReturns.returnId, returnId)));
        if (ret) out.set(ref, { ref, valueCentavos: ret.valueCentavos, state: ret.status, merchantId: ret.merchantId, detail: { pixReturnId: ret.id } });
      }
      return out;
    },
    async oursIn({ from, to }) {
      const receipts = await db()
        .select()
        .from(pixReceipts)
        .where(and(gte(pixReceipts.paidAt, from), lt(pixReceipts.paidAt, to), sql`${pixReceipts.source} <> 'sandbox'`));
      const movements: Movement[] = receipts.map((r) => ({ ref: r.endToEndId, valueCentavos: r.valueCentavos, state: "RECEIVED", merchantId: r.merchantId }));
      // Our refunds the PSP has seen, of the Pix paid that day (the PSP lists them inside their Pix).
      const refunds = await db()
        .select({ refund: orderRefunds })
        .from(orderRefunds)
        .innerJoin(pixReceipts, eq(pixReceipts.endToEndId, orderRefunds.paymentRef))
        .where(and(gte(pixReceipts.paidAt, from), lt(pixReceipts.paidAt, to), sql`${orderRefunds.sentAt} is not null`));
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

const PAYOUT_STATE: Record<string, string[]> = { PROCESSING: ["created", "processing"], COMPLETED: ["completed"], FAILED: ["failed"] };

function pixSent(): ReconSource {
  return {
    name: "pix_sent",
    enabled: () => env().PAYMENTS_MODE === "live" && railEnabled("pix_out") && providers().payout.listSent !== undefined,
    async page(window, page) {
      const answer = await providers().payout.listSent!({ ...window, page });
      return {
        items: answer.items.map((p) => ({
          ref: p.id ?? `e2e:${p.endToEndId}`,
          valueCentavos: p.valueCentavos,
          state: p.status,
          at: p.at,
          detail: { endToEndId: p.endToEndId },
        })),
        next: page + 1 < answer.pages ? page + 1 : null,
      };
    },
    async ours(refs) {
      const ids = refs.map(uuidOfProviderId).filter((id): id is string => id !== null);
      const out = new Map<string, Movement>();
      if (ids.length === 0) return out;
      const rows = await db().select().from(pixPayouts).where(inArray(pixPayouts.id, ids));
      for (const p of rows) {
        out.set(noDashes(p.id), {
          ref: noDashes(p.id),
          valueCentavos: p.valueCentavos,
          state: p.status,
          merchantId: p.merchantId,
          detail: { payoutId: p.id, purpose: p.purpose, ownerId: p.ownerId },
        });
      }
      return out;
    },
    async oursIn({ from, to }) {
      // Those the provider must have: accepted (processing) or made. One refused at once, or never
      // accepted, may rightly be absent.
      const rows = await db()
        .select()
        .from(pixPayouts)
        .where(
          and(
            gte(pixPayouts.createdAt, from),
            lt(pixPayouts.createdAt, to),
            inArray(pixPayouts.status, ["processing", "completed"]),
            // The sandbox's payouts never reach a PSP; an operator's decision may have no provider at all.
            sql`coalesce(${pixPayouts.provider}, '') <> 'sandbox-pix'`,
          ),
        );
      return rows.map((p) => ({
        ref: noDashes(p.id),
        valueCentavos: p.valueCentavos,
        state: p.status,
        merchantId: p.merchantId,
        detail: { payoutId: p.id, purpose: p.purpose, ownerId: p.ownerId },
      }));
    },
    sameState: (ours, theirs) => (PAYOUT_STATE[theirs] ?? []).includes(ours),
  };
}

/** Every source this service can reconcile, by name. */
export function reconSources(): Record<ReconSourceName, ReconSource | null> {
  return { pix_received: pixReceived(), pix_sent: pixSent(), exchange: null, lightning: null, chain: null };
}
