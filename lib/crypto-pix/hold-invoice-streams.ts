import { db } from "@/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import { processSlot } from "@/lib/singleton";
import { onInvoiceAccepted } from "./lightning";
import { openInvoices } from "./queries";

// lnd reports a hold invoice ACCEPTED (the payer's sats held, waiting for us) only on that invoice's
// own stream, never on the all-invoices one. So each open hold invoice of an open Crypto-PIX payment
// is followed on its own stream, from the sweep: a stream that ends or is cut is opened again at the
// next sweep, and the lookup poll (reconcileHoldInvoices) stays as the backstop.

const streams = processSlot<Map<string, AbortController>>("hold-invoice-streams");

/** Opens a stream for every open hold invoice not followed yet, and closes those no longer open. Returns how many are followed. */
export async function followOpenHoldInvoices(): Promise<number> {
  const lightning = providers().lightning;
  if (!lightning.followInvoice || env().PAYMENTS_MODE !== "live") return 0;
  const followed = (streams.value ??= new Map());
  const open = new Set((await openInvoices(db(), lightning.name, 500)).map((i) => i.paymentHash));
  for (const [hash, stop] of followed) {
    if (open.has(hash)) continue;
    stop.abort();
    followed.delete(hash);
  }
  for (const hash of open) {
    if (followed.has(hash)) continue;
    const stop = new AbortController();
    followed.set(hash, stop);
    lightning
      .followInvoice(hash, stop.signal, async (invoice) => {
        if (invoice.accepted && invoice.acceptedAt)
          await onInvoiceAccepted(invoice.paymentHash, invoice.acceptedAt, invoice);
        // Nothing more to wait for on this stream: what follows (settle, cancel) is ours to do.
        if (invoice.accepted || invoice.paid || invoice.canceled) stop.abort();
      })
      .catch((err: unknown) => {
        if (!stop.signal.aborted)
          log.warn("hold invoice stream interrupted; followed again at the next sweep", { paymentHash: hash, err });
      })
      .finally(() => {
        if (followed.get(hash) === stop) followed.delete(hash);
      });
  }
  return followed.size;
}

export function stopFollowingHoldInvoices(): void {
  const followed = streams.value;
  if (!followed) return;
  for (const stop of followed.values()) stop.abort();
  followed.clear();
}
