import { z } from "zod";
import { centavosToBrl } from "@/lib/money";
import type { InvoiceState, LightningProviderDetails, RemoteInvoice } from "./types";

// OpenNode's charge as its API answers it, and what we read from it. Sources:
//   create (v1): https://developers.opennode.com/docs/creating-a-charge — `amount` in satoshis, Unix times,
//     `lightning_invoice: { payreq, expires_at }`; opennodedev/opennode-node src/types/v1.ts.
//   read (v2): opennodedev/opennode-node src/client.ts chargeInfo() (GET /v2/charges/{id}), src/types/v2.ts
//     OpenNodeChargeV2 and CHANGELOG.md 2.0.0: `amount` → `price`, `lightning_invoice` → `lightning`,
//     `transactions` → `onchain`, ISO 8601 times; `expires_at` is when OpenNode stops monitoring for payments.
//   statuses: https://developers.opennode.com/docs/charges-webhooks — on chain `processing` (seen in the
//     mempool) → `paid` (confirmed), `underpaid` (waiting for the remainder, `missing_amt`), `refunded`
//     (the payer took an underpayment back), `expired`; over Lightning `paid` or `expired`.

/** A time as OpenNode writes it: ISO 8601 (v2), or seconds since the epoch (v1, callbacks); "" or null for none. */
const time = z.union([z.string(), z.number()]).nullish();

function dateOf(t: z.infer<typeof time>): Date | null {
  if (t === null || t === undefined || t === "") return null;
  const ms = typeof t === "number" ? t * 1000 : /^\d+$/.test(t) ? Number(t) * 1000 : Date.parse(t);
  return Number.isFinite(ms) ? new Date(ms) : null;
}

const sats = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/** The create answer (v1): only what we hand out and check. */
export const createdCharge = z.object({
  id: z.string().min(1),
  created_at: z.number(),
  amount: z.number(),
  order_id: z.string().nullish(),
  lightning_invoice: z.object({ payreq: z.string().min(1), expires_at: z.number().optional() }).nullish(),
});

/** The v2 read: the fields we act on, and those the spec's providerDetails shows. */
export const chargeV2 = z.object({
  id: z.string().min(1),
  description: z.string().nullish(),
  price: sats,
  status: z.string(),
  created_at: time,
  expires_at: time,
  ttl: z.number().nullish(),
  fee: z.number().nullish(),
  currency: z.string().nullish(),
  auto_settle: z.boolean().nullish(),
  notes: z.string().nullish(),
  order_id: z.string().nullish(),
  address: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  missing_amt: sats.nullish(),
  settled_at: time,
  payment_method: z.string().nullish(),
  onchain: z.array(z.unknown()).nullish(),
  lightning: z
    .object({ payreq: z.string().nullish(), status: z.string().nullish(), expires_at: time, settled_at: time })
    .nullish(),
});
export type ChargeV2 = z.infer<typeof chargeV2>;

/** One on-chain payment to the charge's address (v1's `transactions` entry; v2 keeps it under `onchain`). */
const onchainTx = z.object({
  tx: z.string().nullish(),
  amount: sats.nullish(),
  created_at: time,
  settled_at: time,
  status: z.string().nullish(),
});

/** The charge's on-chain payments we can read; one OpenNode writes otherwise is left out of the sums. */
function onchainPayments(c: ChargeV2) {
  return (c.onchain ?? []).flatMap((t) => {
    const parsed = onchainTx.safeParse(t);
    return parsed.success ? [{ amount: parsed.data.amount ?? 0, seenAt: dateOf(parsed.data.created_at) }] : [];
  });
}

function latest(dates: (Date | null)[]): Date | null {
  const known = dates.filter((d): d is Date => d !== null);
  return known.length ? new Date(Math.max(...known.map((d) => d.getTime()))) : null;
}

/** When OpenNode stops taking payments for the charge: its `expires_at`, else its creation plus `ttl` minutes. */
function closesAt(c: ChargeV2): Date | null {
  const created = dateOf(c.created_at);
  return (
    dateOf(c.expires_at) ??
    (created && c.ttl ? new Date(created.getTime() + c.ttl * 60_000) : null) ??
    dateOf(c.lightning?.expires_at)
  );
}

/**
 * What a charge says about its payment. The payment time is OpenNode's own: a Lightning payment's
 * settlement; an on-chain one's is when OpenNode first saw its last transaction in the mempool (the
 * payer paid then; confirmations come later), so a payment seen before the order's expiry and confirmed
 * after it is still in time.
 */
export function remoteInvoiceOf(c: ChargeV2, now = new Date()): RemoteInvoice {
  const onchain = onchainPayments(c);
  const lastSeen = latest(onchain.map((t) => t.seenAt));
  const paid = c.status === "paid";
  const lightningPaid = dateOf(c.lightning?.settled_at);
  const paidAt = !paid
    ? null
    : c.payment_method === "lightning"
      ? (lightningPaid ?? dateOf(c.settled_at))
      : c.payment_method === "onchain"
        ? (lastSeen ?? dateOf(c.settled_at))
        : // Not said: a settled Lightning invoice, else the on-chain transactions, else the charge's settlement.
          (lightningPaid ?? lastSeen ?? dateOf(c.settled_at));
  const received = onchain.reduce((sum, t) => sum + t.amount, 0);
  // An underpaid charge names what is missing; an expired one that had money sent to it is one too.
  const partial = c.status === "underpaid" || (c.status === "expired" && received > 0);
  const receivedSatoshis = c.status === "underpaid" && c.missing_amt ? c.price - c.missing_amt : received;
  const closes = closesAt(c);
  return {
    id: c.id,
    status: c.status,
    paid,
    paidAt,
    satoshis: c.price,
    // Callbacks write "N/A" for a charge made without one (charges-webhooks).
    orderRef: c.order_id && c.order_id !== "N/A" ? c.order_id : null,
    pending: c.status === "processing" ? { at: lastSeen } : null,
    underpaid:
      partial && receivedSatoshis > 0
        ? {
            receivedSatoshis,
            missingSatoshis: c.price - receivedSatoshis,
            at: lastSeen ?? now,
            open: c.status === "underpaid" && (closes === null || closes.getTime() > now.getTime()),
          }
        : null,
  };
}

/** The spec's providerDetails from a v2 charge; what v2 does not carry (a name, a fiat value in BRL) is ours. */
export function chargeDetails(c: ChargeV2, state: InvoiceState): LightningProviderDetails {
  const created = dateOf(c.created_at);
  return {
    success: true,
    data: {
      id: c.id,
      name: state.name,
      status: c.status,
      // No currency is sent at creation: the amount is satoshis.
      currency: c.currency ?? "BTC",
      created_at: created ? Math.floor(created.getTime() / 1000) : Math.floor(state.createdAt.getTime() / 1000),
      fee: c.fee ?? 0,
      notes: c.notes ?? "",
      address: c.address ?? "",
      metadata: c.metadata ?? {},
      // The spec's fiat_value is BRL; OpenNode's is in the account's currency, so ours is shown.
      fiat_value: centavosToBrl(state.fiatCentavos),
      amount: c.price,
      description: c.description ?? state.description,
      auto_settle: c.auto_settle ?? false,
      // v2's `onchain` is v1's `transactions` (the SDK's CHANGELOG 2.0.0).
      transactions: c.onchain ?? [],
    },
  };
}
