import { and, gte, inArray, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { pixPayouts } from "@/db/schema";
import { env } from "@/lib/env";
import { uuidOfProviderId } from "@/lib/pix-collection/receiver";
import { providers } from "@/lib/providers";
import { railEnabled } from "@/lib/providers/rails";
import { type Movement, type ReconSource } from "./run";
import { noDashes } from "./ids";

// The pix_sent reconciliation source: what it matches is listed in ./sources.ts.

const PAYOUT_STATE: Record<string, string[]> = {
  PROCESSING: ["created", "processing"],
  COMPLETED: ["completed"],
  FAILED: ["failed"],
};

export function pixSent(): ReconSource {
  return {
    name: "pix_sent",
    enabled: () =>
      env().PAYMENTS_MODE === "live" && railEnabled("pix_out") && providers().payout.listSent !== undefined,
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
