import type { CryptoPixInvoice, CryptoPixPayment, OnchainOrder } from "@/db/schema";
import { networkName } from "@/lib/chain/network-names";
import type { ChainPayment } from "@/lib/crypto-pix/kinds";
import type { HoldInvoiceStatus } from "@/lib/crypto-pix/schemas";
import { holdInvoiceStatus } from "@/lib/crypto-pix/views";
import type { MessageKey } from "@/lib/i18n";
import { Decimal } from "@/lib/money";
import { formatTaxId } from "@/lib/pix/keys";

// The facts of an order the dashboard lists under its details, each under its catalog label: the
// merchant's own references first, then what was asked and received on a chain or over Lightning.

export type Fact =
  | { label: MessageKey; type: "text" | "mono"; value: string }
  | { label: MessageKey; type: "money"; value: number }
  | { label: MessageKey; type: "date"; value: string }
  /** A refund's state: PENDING, COMPLETED or FAILED (an operator retries a FAILED one). */
  | { label: MessageKey; type: "status"; value: string }
  | { label: MessageKey; type: "crypto"; value: string; unit: string }
  /** Where a Crypto-PIX payment's hold invoice stands at the node (settling, failing to settle, …). */
  | { label: MessageKey; type: "holdInvoice"; value: HoldInvoiceStatus }
  /** `rate` BRL for one `asset`, shown as "1 USDT = R$ 5,40". */
  | { label: MessageKey; type: "rate"; value: string; asset: string };

/**
 * The creation request's reference fields (lib/orders/service references()), each under its own
 * label, in this order (the merchant's own id first): they are how the merchant knows the order.
 */
const REFERENCE_LABELS: Record<string, MessageKey> = {
  orderId: "order.ref.orderId",
  name: "order.ref.name",
  cpf: "order.ref.cpf",
  cnpj: "order.ref.cnpj",
  email: "order.ref.email",
  payerId: "order.ref.payerId",
  subMerchantId: "order.ref.subMerchantId",
  orderRequest: "order.ref.orderRequest",
  description: "order.ref.description",
  merchant: "order.ref.merchant",
  invoiceId: "order.ref.invoiceId",
  // A payment link's sale (lib/payment-links/sell.ts): the link, its reference, what the payer gave.
  linkReference: "order.ref.linkReference",
  linkId: "order.ref.linkId",
  phone: "order.ref.phone",
  address: "order.ref.address",
};

const REFERENCE_ORDER = Object.keys(REFERENCE_LABELS);

export function referenceFacts(reference: Record<string, string>): Fact[] {
  const rank = (k: string) => (REFERENCE_ORDER.includes(k) ? REFERENCE_ORDER.indexOf(k) : REFERENCE_ORDER.length);
  return Object.entries(reference)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([k, v]) => ({
      label: REFERENCE_LABELS[k] ?? "order.ref.other",
      type: "text",
      value: k === "cpf" || k === "cnpj" ? formatTaxId(v) : v,
    }));
}

const remaining = (due: string, received: string) => Decimal.max(0, new Decimal(due).minus(received)).toFixed();

export function chainFacts(o: OnchainOrder | ChainPayment): Fact[] {
  return [
    { label: "order.network", type: "text", value: networkName(o.network) },
    { label: "order.cryptoAmount", type: "crypto", value: new Decimal(o.cryptoAmount).toFixed(), unit: o.asset },
    { label: "order.rate", type: "rate", value: new Decimal(o.rate).toFixed(), asset: o.asset },
    { label: "order.received", type: "crypto", value: new Decimal(o.receivedAmount).toFixed(), unit: o.asset },
    { label: "order.remaining", type: "crypto", value: remaining(o.cryptoAmount, o.receivedAmount), unit: o.asset },
    ...(new Decimal(o.unappliedAmount).gt(0)
      ? [
          {
            label: "order.unapplied" as const,
            type: "crypto" as const,
            value: new Decimal(o.unappliedAmount).toFixed(),
            unit: o.asset,
          },
        ]
      : []),
    { label: "order.address", type: "mono", value: o.address },
  ];
}

export function lightningFacts(p: CryptoPixPayment, invoice: CryptoPixInvoice | undefined): Fact[] {
  return [
    { label: "order.network", type: "text", value: "Lightning" },
    {
      label: "order.satoshis",
      type: "crypto",
      value: new Decimal(p.cryptoAmount).times(100_000_000).toFixed(0),
      unit: "sats",
    },
    { label: "order.rate", type: "rate", value: new Decimal(p.rate).toFixed(), asset: "BTC" },
    { label: "order.received", type: "crypto", value: new Decimal(p.receivedAmount).toFixed(), unit: "BTC" },
    ...(invoice ? holdInvoiceFacts(invoice) : []),
  ];
}

/** Whether the sats are the merchant's yet: a settle pending or failing after the PIX was made shows here. */
function holdInvoiceFacts(i: CryptoPixInvoice): Fact[] {
  return [
    { label: "order.holdInvoice", type: "holdInvoice", value: holdInvoiceStatus(i) },
    ...(i.attention
      ? [{ label: "order.holdInvoiceAttention" as const, type: "text" as const, value: i.attention }]
      : []),
    ...(i.lastError && !i.attention
      ? [{ label: "order.holdInvoiceError" as const, type: "text" as const, value: i.lastError }]
      : []),
    ...(i.htlcExpiryHeight
      ? [{ label: "order.htlcExpiryHeight" as const, type: "text" as const, value: String(i.htlcExpiryHeight) }]
      : []),
  ];
}
