import { sql } from "drizzle-orm";
import { db } from "@/db";
import { providerCursors } from "@/db/schema";
import { log } from "@/lib/log";
import { applyProviderPayment } from "@/lib/orders/provider-payments";
import { orderByProviderRef } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import type { StreamedInvoice } from "@/lib/providers/lightning/types";
import { processSlot } from "@/lib/singleton";

// A Lightning node that streams its invoices (LND) is followed for as long as the worker runs: every
// invoice settled after the stored settle_index is replayed first, then live ones arrive as they
// settle, so a restart or a cut stream loses nothing. Each settled invoice of one of our orders is
// applied with the node's settle_date (docs/api.md#states-expiry-and-money), once; then the index moves on. The poll
// (./completion.ts) stays as a backstop.

const CURSOR = "lightning:settle_index";
const RETRY_MS = [500, 1000, 2000, 5000, 10_000];

/** Others (Crypto-PIX over Lightning) register here for the invoices that are theirs. */
export type InvoiceHandler = (invoice: StreamedInvoice) => Promise<boolean>;

async function storedIndex(): Promise<number> {
  const [row] = await db()
    .select({ sequence: providerCursors.sequence })
    .from(providerCursors)
    .where(sql`${providerCursors.name} = ${CURSOR}`);
  return row?.sequence ?? 0;
}

async function storeIndex(index: number): Promise<void> {
  await db()
    .insert(providerCursors)
    .values({ name: CURSOR, position: new Date(), sequence: index })
    // Never backwards: two instances follow the same stream.
    .onConflictDoUpdate({
      target: providerCursors.name,
      set: {
        sequence: sql`greatest(${providerCursors.sequence}, ${index})`,
        position: sql`now()`,
        updatedAt: sql`now()`,
      },
    });
}

/** What one streamed invoice means for us; exported for tests. */
export async function onStreamedInvoice(
  invoice: StreamedInvoice,
  others: readonly InvoiceHandler[] = [],
): Promise<void> {
  for (const handle of others) if (await handle(invoice)) return;
  if (invoice.paid && invoice.paidAt) {
    const lightning = providers().lightning;
    const order = await orderByProviderRef(db(), lightning.name, invoice.paymentHash);
    if (order)
      await applyProviderPayment({
        provider: lightning.name,
        paymentRef: invoice.paymentHash,
        orderId: order.id,
        paidAt: invoice.paidAt,
        source: "stream",
      });
  }
  if (invoice.settleIndex !== null) await storeIndex(invoice.settleIndex);
}

const running = processSlot<{ abort: AbortController; done: Promise<void> }>("lightning-stream");

/** Follows the node's stream until stopped, reconnecting with backoff from the stored index. */
export function startInvoiceStream(others: readonly InvoiceHandler[] = []): void {
  const lightning = providers().lightning;
  if (running.value || !lightning.followInvoices) return;
  const abort = new AbortController();
  const done = (async () => {
    for (let failures = 0; !abort.signal.aborted;) {
      try {
        await lightning.followInvoices!(await storedIndex(), abort.signal, (inv) => onStreamedInvoice(inv, others));
        failures = 0;
      } catch (err) {
        if (abort.signal.aborted) break;
        log.warn("Lightning invoice stream interrupted; resuming from the stored settle_index", { err });
        failures++;
      }
      if (abort.signal.aborted) break;
      await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]));
    }
  })();
  running.value = { abort, done };
}

export async function stopInvoiceStream(): Promise<void> {
  const r = running.value;
  if (!r) return;
  running.value = undefined;
  r.abort.abort();
  await r.done.catch(() => {});
}
