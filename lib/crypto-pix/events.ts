import type { Tx } from "@/db";
import type { CryptoPixPayment } from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { cryptoPixView } from "./views";

/** crypto_pix.status_changed: the lookup's view (docs/api.md#events) plus the status it came from. */
export async function emitStatusChange(tx: Tx, p: CryptoPixPayment, previousStatus: string): Promise<void> {
  await recordEvent(tx, {
    merchantId: p.merchantId,
    type: "crypto_pix.status_changed",
    subjectType: "crypto_pix",
    subjectId: p.id,
    data: { ...cryptoPixView(p), previousStatus },
  });
}

/**
 * crypto_pix.refund.status_changed: a refund was decided, sent back, or refused by the chain. `refund`
 * says which: the payment's (`transferId` null) or one late or extra transfer's.
 */
export async function emitRefundChange(
  tx: Tx,
  p: CryptoPixPayment,
  refund: {
    status: "PENDING" | "COMPLETED" | "FAILED";
    amount: string;
    to: string | null;
    txHash: string | null;
    transferId: string | null;
    reason?: string;
  },
): Promise<void> {
  await recordEvent(tx, {
    merchantId: p.merchantId,
    type: "crypto_pix.refund.status_changed",
    subjectType: "crypto_pix",
    subjectId: p.id,
    data: { ...cryptoPixView(p), refund: { ...refund, amount: Number(refund.amount) } },
  });
}
