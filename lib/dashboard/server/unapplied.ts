import "server-only";
import { db } from "@/db";
import { inArray } from "drizzle-orm";
import { payoutDestinations, type ChainTransfer, type OnchainOrder } from "@/db/schema";
import { networkName } from "@/lib/chain/network-names";
import { Decimal, centavosForCrypto } from "@/lib/money";
import { resolutionsOf } from "@/lib/onchain/unapplied-queries";
import type { UnappliedLine } from "@/lib/dashboard/order-views";

// An on-chain order's unapplied funds as its page shows them: one line per transfer of the order's own
// token with tokens that did not count (late, or beyond what was due), what the merchant did with them,
// and what accepting them would credit. Another token or network is not here: support recovers those.

function ownToken(o: OnchainOrder, t: ChainTransfer): boolean {
  return (
    t.network === o.network &&
    t.tokenAddress.toLowerCase() === o.tokenAddress.toLowerCase() &&
    new Decimal(t.unappliedAmount).gt(0)
  );
}

const plain = (v: string | null) => (v === null ? null : new Decimal(v).toFixed());

export async function unappliedLines(o: OnchainOrder, transfers: ChainTransfer[]): Promise<UnappliedLine[]> {
  const own = transfers.filter((t) => ownToken(o, t));
  if (own.length === 0) return [];
  const resolutions = await resolutionsOf(db(), o.id);
  const byTransfer = new Map(resolutions.map((r) => [r.transferId, r]));
  const waitingFor = resolutions.flatMap((r) => (r.waitingDestinationId ? [r.waitingDestinationId] : []));
  const holds = new Map(
    waitingFor.length === 0
      ? []
      : (
          await db()
            .select({ id: payoutDestinations.id, holdUntil: payoutDestinations.holdUntil })
            .from(payoutDestinations)
            .where(inArray(payoutDestinations.id, waitingFor))
        ).map((d) => [d.id, d.holdUntil]),
  );
  return own.map((t) => {
    const r = byTransfer.get(t.id);
    return {
      transferId: t.id,
      txHash: t.txHash,
      amount: new Decimal(t.unappliedAmount).toFixed(),
      asset: o.asset,
      network: networkName(o.network),
      rate: new Decimal(o.rate).toFixed(),
      fromAddress: t.fromAddress,
      reason: new Decimal(t.appliedAmount).gt(0) ? "overpayment" : "after_final",
      creditCentavos: centavosForCrypto(t.unappliedAmount, o.rate),
      resolution: r
        ? {
            kind: r.kind,
            status: r.status,
            creditedCentavos: r.creditedCentavos,
            toAddress: r.toAddress,
            fee: plain(r.feeAmount),
            sent: plain(r.sentAmount),
            txHash: r.kind === "return" && r.status !== "COMPLETED" ? null : r.txHash,
            at: r.updatedAt.toISOString(),
            id: r.id,
            waitingUntil: r.waitingDestinationId
              ? (holds.get(r.waitingDestinationId)?.toISOString() ?? r.updatedAt.toISOString())
              : null,
          }
        : null,
    };
  });
}
