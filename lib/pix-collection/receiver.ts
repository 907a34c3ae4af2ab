import { z } from "zod";
import { log } from "@/lib/log";
import { wakePayout } from "@/lib/pix-payouts/machine";
import { followRefund } from "@/lib/refunds/machine";
import { confirmNotifiedPix, pixConfirmQueue } from "./confirm";

// API Pix notifications (docs/providers.md "PIX collection"): `{ pix: [ { endToEndId, txid, valor,
// horario, … } ] }`, posted by the PSP to our URL + "/pix". The body is not signed and a registration
// can point at anyone's URL, so nothing in it is believed: each end-to-end id is only a hint to read
// that Pix back from the PSP (GET /pix/{e2eid}), and what the PSP answers is what is applied. A forged
// notification therefore changes nothing, and a duplicate is a second read of a payment already
// counted. The receiver answers at once; the reads run in the "pix-confirm" queue, so a PSP's retry
// timer never waits on ours.
// The same URL receives what else the PSP reports there: a devolução reaching its final state (inside
// the Pix it returns), and at Efí the outcome of a PIX we sent ("tipo": "SOLICITACAO", our id in
// gnExtras.idEnvio), which wakes that payout's job to read it back. An item we cannot read is skipped
// and the rest are processed: a PSP retries a refused batch, and one bad item would hold back the others.

// Items are read one by one (notifiedItem), so one the PSP words differently cannot refuse the batch.
export const pixNotificationBody = z
  .object({
    pix: z.array(z.unknown(), { error: "must be an array of received PIX" }).max(1000),
  })
  .meta({ description: "An API Pix notification: the received PIX, each read back from the PSP before it counts" });

/** Our id (a uuid) from the 32 hex digits we gave a provider as its id; null for any other id. */
export function uuidOfProviderId(id: unknown): string | null {
  if (typeof id !== "string" || !/^[0-9a-f]{32}$/.test(id)) return null;
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

type Json = Record<string, unknown>;

/**
 * What one notified item asks us to read: a received Pix, a payout of ours (Efí), refunds of ours, and
 * whether it mentions a devolução that is not ours (the MED's): then the Pix is read back even when it
 * was recorded before.
 */
export function notifiedItem(
  item: unknown,
): { endToEndId: string | null; payoutId: string | null; refundIds: string[]; foreignReturns: boolean } | null {
  if (!item || typeof item !== "object" || Array.isArray(item)) return null;
  const o = item as Json;
  const extras = o.gnExtras && typeof o.gnExtras === "object" ? (o.gnExtras as Json) : {};
  const devolucoes = (Array.isArray(o.devolucoes) ? (o.devolucoes as unknown[]) : []).map((d) =>
    d && typeof d === "object" ? (d as Json) : {},
  );
  const refundIds = devolucoes.map((d) => uuidOfProviderId(d.id)).filter((id): id is string => id !== null);
  const foreignReturns = devolucoes.some(
    (d) => uuidOfProviderId(d.id) === null || (typeof d.natureza === "string" && d.natureza.startsWith("MED")),
  );
  // A PIX we sent, not one we received: never read as a payment to an order.
  if (o.tipo === "SOLICITACAO" || typeof extras.idEnvio === "string")
    return { endToEndId: null, payoutId: uuidOfProviderId(extras.idEnvio), refundIds, foreignReturns: false };
  const endToEndId = typeof o.endToEndId === "string" && /^[a-zA-Z0-9]{32}$/.test(o.endToEndId) ? o.endToEndId : null;
  if (!endToEndId && refundIds.length === 0) return null;
  return { endToEndId, payoutId: null, refundIds, foreignReturns };
}

export async function acceptPixNotification(body: z.output<typeof pixNotificationBody>): Promise<number> {
  const ids = new Set<string>();
  const withReturns = new Set<string>();
  let hints = 0;
  for (const raw of body.pix) {
    const item = notifiedItem(raw);
    if (!item) {
      log.warn("PIX notification item we cannot read: skipped, the others are processed", {
        item: JSON.stringify(raw ?? null).slice(0, 300),
      });
      continue;
    }
    hints++;
    // A devolução that reached its final state: its refund is read back by its own job.
    for (const refundId of item.refundIds) await followRefund(refundId);
    if (item.payoutId) await wakePayout(item.payoutId);
    if (item.endToEndId) ids.add(item.endToEndId);
    if (item.endToEndId && item.foreignReturns) withReturns.add(item.endToEndId);
  }
  // One job per end-to-end id at a time: a duplicate notification while its read is queued adds nothing.
  for (const endToEndId of ids) {
    const returns = withReturns.has(endToEndId);
    // A devolução's notice is its own job: one queued for the payment itself must not swallow it.
    await pixConfirmQueue.send(
      { endToEndId, returns },
      { singletonKey: returns ? `${endToEndId}:returns` : endToEndId },
    );
  }
  // The job is what guarantees the read; reading right away too saves its pickup delay. Whichever
  // comes second finds the payment recorded and asks the PSP nothing.
  for (const endToEndId of [...ids].slice(0, INLINE_READS)) {
    void confirmNotifiedPix(endToEndId, { returns: withReturns.has(endToEndId) }).catch((err: unknown) =>
      log.warn("notified PIX not read yet; its job retries", { endToEndId, err }),
    );
  }
  return hints;
}

// A notification can carry many PIX (PSPs batch them); beyond this many, the queue reads the rest.
const INLINE_READS = 20;
