import "server-only";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { db } from "@/db";
import {
  events,
  webhookDeliveries,
  webhookEndpoints,
  type ChainTransfer,
  type CryptoPixInvoice,
  type CryptoPixPayment,
  type OnchainOrder,
  type Order,
} from "@/db/schema";
import { encodeCryptoPixId, isUuid } from "@/lib/ids";
import { cryptoPixPayLink, paymentLink } from "@/lib/links";
import { assetOf } from "@/lib/chain/config";
import { depositTransferUri } from "@/lib/chain/payment-uri";
import type { Network } from "@/lib/chain/tokens";
import { networkName } from "@/lib/chain/network-names";
import { transfersOf } from "@/lib/chain/transfers";
import { env } from "@/lib/env";
import type { MessageKey } from "@/lib/i18n";
import { Decimal } from "@/lib/money";
import { chainPayment, overLightning, type ChainPayment } from "@/lib/crypto-pix/kinds";
import { invoiceOf } from "@/lib/crypto-pix/queries";
import type { HoldInvoiceStatus } from "@/lib/crypto-pix/schemas";
import { holdInvoiceStatus } from "@/lib/crypto-pix/views";
import { findAnyOrder } from "@/lib/orders/any-order";
import { refundsOfOrder } from "@/lib/orders/queries";
import { disputesOfOrder, returnedByMed } from "@/lib/med/returns";
import type { OrderListKind } from "./orders";
import { unappliedLines, type UnappliedLine } from "./unapplied";

// One order of any kind as the dashboard shows it: what to pay and how, its facts, the events it
// went through and the webhook deliveries of those events. Plain JSON, so the same object is
// rendered by the server and re-fetched by the client's polling.

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
 * How a transfer to the order's address counted: all of it, part of it (the rest was more than was
 * due), none (it came after the order closed), or none because it was another token or network.
 */
export type TransferUse = "counted" | "partly_counted" | "not_counted" | "wrong_token" | "wrong_network";

export type TransferLine = {
  id: string;
  txHash: string;
  network: string;
  amount: string;
  /** The token's symbol when it is in our table, else its contract address. */
  unit: string;
  counted: string;
  use: TransferUse;
  /** The payment time (block timestamp). */
  at: string;
  fromAddress: string | null;
  /** Money that did not count on a Crypto-PIX payment is sent back to its sender. */
  refundStatus: string | null;
  note: string | null;
};

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
};

export type OrderDetail = {
  id: string;
  kind: OrderListKind;
  status: string;
  valueCentavos: number;
  createdAt: string;
  expiresAt: string | null;
  paidAt: string | null;
  final: boolean;
  paymentLinkId: string | null;
  /** The merchant's own order id (the creation request's `orderId`), when it sent one. */
  merchantOrderId: string | null;
  link: string | null;
  /** What a payer needs while the order can still be paid. */
  payment: { qrContent: string; code: string; codeLabel: MessageKey } | null;
  facts: Fact[];
  /** Token transfers to a deposit address (on-chain and Crypto-PIX only), wrong ones included. */
  transfers: TransferLine[];
  /** `valueCentavos`: a refund's amount, on its events (null on the others). */
  events: { id: string; type: string; status: string | null; valueCentavos: number | null; at: string }[];
  deliveries: {
    id: string;
    endpointUrl: string;
    eventType: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
    at: string;
  }[];
  canSimulate: boolean;
  /** A PIX or exchange-wallet order's refunds, oldest first ([] for other kinds). */
  refunds: RefundLine[];
  /** Set when the order can be refunded now: what is left (its value less the refunds that did not fail). */
  refundable: { leftCentavos: number; sandbox: boolean } | null;
  /** What the payer's bank had returned of a PIX order's payment through the MED, without the merchant asking. */
  disputes: DisputeLine[];
  /** An on-chain order's unapplied funds per transfer, and what the merchant did with them ([] for other kinds). */
  unapplied: UnappliedLine[];
};

export type DisputeLine = { id: string; valueCentavos: number; natureza: string; status: string; debited: boolean; at: string };

export type RefundLine = {
  id: string;
  valueCentavos: number;
  status: "PENDING" | "COMPLETED" | "FAILED";
  reason: string | null;
  failureReason: string | null;
  createdAt: string;
};

const REFERENCE_ORDER = Object.keys(REFERENCE_LABELS);

function referenceFacts(reference: Record<string, string>): Fact[] {
  const rank = (k: string) => (REFERENCE_ORDER.includes(k) ? REFERENCE_ORDER.indexOf(k) : REFERENCE_ORDER.length);
  return Object.entries(reference)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([k, v]) => ({ label: REFERENCE_LABELS[k] ?? "order.ref.other", type: "text", value: k === "cpf" || k === "cnpj" ? formatTaxId(v) : v }));
}

/** 52998224725 → 529.982.247-25; 11222333000181 → 11.222.333/0001-81 (the alphanumeric CNPJ too). */
function formatTaxId(v: string): string {
  if (/^\d{11}$/.test(v)) return v.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, "$1.$2.$3-$4");
  if (/^[0-9A-Z]{12}\d{2}$/.test(v)) return v.replace(/^(.{2})(.{3})(.{3})(.{4})(.{2})$/, "$1.$2.$3/$4-$5");
  return v;
}

const OPEN_STATUSES = new Set(["PENDING", "PARTIAL_ORDER"]);

const remaining = (due: string, received: string) => Decimal.max(0, new Decimal(due).minus(received)).toFixed();
const open = (status: string, expiresAt: Date | null) => OPEN_STATUSES.has(status) && (!expiresAt || expiresAt.getTime() > Date.now());

type Base = Omit<OrderDetail, "events" | "deliveries" | "canSimulate" | "transfers" | "refunds" | "refundable" | "disputes" | "unapplied">;

function fromOrder(o: Order): Base {
  const link = paymentLink(o.paymentLinkId);
  const facts: Fact[] = [
    { label: "order.id", type: "mono", value: o.id },
    { label: "order.paymentLinkId", type: "mono", value: o.paymentLinkId },
  ];
  let payment: OrderDetail["payment"] = null;
  if (o.kind === "pix" && o.brcode) payment = { qrContent: o.brcode, code: o.brcode, codeLabel: "order.brcode" };
  if (o.kind === "exchange") payment = { qrContent: link, code: link, codeLabel: "order.paymentLink" };
  if (o.kind === "lightning" && o.invoice) {
    payment = { qrContent: `lightning:${o.invoice.toUpperCase()}`, code: o.invoice, codeLabel: "order.invoice" };
    facts.push({ label: "order.satoshis", type: "crypto", value: String(o.satoshis ?? 0), unit: "sats" });
  }
  if (o.rate) facts.push({ label: "order.rate", type: "rate", value: new Decimal(o.rate).toFixed(), asset: "BTC" });
  facts.unshift(...referenceFacts(o.reference));
  return {
    id: o.id,
    kind: o.kind,
    status: o.status,
    valueCentavos: o.valueCentavos,
    createdAt: o.createdAt.toISOString(),
    expiresAt: o.expiresAt?.toISOString() ?? null,
    paidAt: o.paidAt?.toISOString() ?? null,
    final: o.status !== "PENDING",
    paymentLinkId: o.paymentLinkId,
    merchantOrderId: o.reference.orderId ?? null,
    link,
    payment: open(o.status, o.expiresAt) ? payment : null,
    facts,
  };
}

function chainFacts(o: OnchainOrder | ChainPayment): Fact[] {
  return [
    { label: "order.network", type: "text", value: networkName(o.network) },
    { label: "order.cryptoAmount", type: "crypto", value: new Decimal(o.cryptoAmount).toFixed(), unit: o.asset },
    { label: "order.rate", type: "rate", value: new Decimal(o.rate).toFixed(), asset: o.asset },
    { label: "order.received", type: "crypto", value: new Decimal(o.receivedAmount).toFixed(), unit: o.asset },
    { label: "order.remaining", type: "crypto", value: remaining(o.cryptoAmount, o.receivedAmount), unit: o.asset },
    ...(new Decimal(o.unappliedAmount).gt(0)
      ? [{ label: "order.unapplied" as const, type: "crypto" as const, value: new Decimal(o.unappliedAmount).toFixed(), unit: o.asset }]
      : []),
    { label: "order.address", type: "mono", value: o.address },
  ];
}

function fromDeposit(o: OnchainOrder): Base {
  return {
    id: o.id,
    kind: "onchain",
    status: o.status,
    valueCentavos: o.valueCentavos,
    createdAt: o.createdAt.toISOString(),
    expiresAt: o.expiresAt.toISOString(),
    paidAt: o.completedAt?.toISOString() ?? null,
    final: o.closedAt !== null,
    paymentLinkId: o.paymentLinkId,
    merchantOrderId: null,
    link: paymentLink(o.paymentLinkId),
    payment: !o.closedAt && open(o.status, o.expiresAt) ? { qrContent: depositTransferUri(o), code: o.address, codeLabel: "order.address" } : null,
    facts: [
      { label: "order.id", type: "mono", value: o.id },
      { label: "order.paymentLinkId", type: "mono", value: o.paymentLinkId },
      ...chainFacts(o),
      ...(o.creditedCentavos > 0 ? [{ label: "order.credited" as const, type: "money" as const, value: o.creditedCentavos }] : []),
    ],
  };
}

/** How the payer pays a Crypto-PIX payment: the chain transfer, or the Lightning invoice. */
function payCryptoPix(p: CryptoPixPayment): OrderDetail["payment"] {
  if (overLightning(p)) return { qrContent: `lightning:${p.address.toUpperCase()}`, code: p.address, codeLabel: "order.invoice" };
  return { qrContent: depositTransferUri(chainPayment(p)), code: p.address, codeLabel: "order.address" };
}

function lightningFacts(p: CryptoPixPayment, invoice: CryptoPixInvoice | undefined): Fact[] {
  return [
    { label: "order.network", type: "text", value: "Lightning" },
    { label: "order.satoshis", type: "crypto", value: new Decimal(p.cryptoAmount).times(100_000_000).toFixed(0), unit: "sats" },
    { label: "order.rate", type: "rate", value: new Decimal(p.rate).toFixed(), asset: "BTC" },
    { label: "order.received", type: "crypto", value: new Decimal(p.receivedAmount).toFixed(), unit: "BTC" },
    ...(invoice ? holdInvoiceFacts(invoice) : []),
  ];
}

/** Whether the sats are the merchant's yet: a settle pending or failing after the PIX was made shows here. */
function holdInvoiceFacts(i: CryptoPixInvoice): Fact[] {
  return [
    { label: "order.holdInvoice", type: "holdInvoice", value: holdInvoiceStatus(i) },
    ...(i.attention ? [{ label: "order.holdInvoiceAttention" as const, type: "text" as const, value: i.attention }] : []),
    ...(i.lastError && !i.attention ? [{ label: "order.holdInvoiceError" as const, type: "text" as const, value: i.lastError }] : []),
    ...(i.htlcExpiryHeight ? [{ label: "order.htlcExpiryHeight" as const, type: "text" as const, value: String(i.htlcExpiryHeight) }] : []),
  ];
}

function fromCryptoPix(p: CryptoPixPayment, invoice?: CryptoPixInvoice): Base {
  return {
    id: p.id,
    kind: "crypto_pix",
    status: p.status,
    valueCentavos: p.valueCentavos,
    createdAt: p.createdAt.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    paidAt: p.paidAt?.toISOString() ?? null,
    final: p.closedAt !== null,
    paymentLinkId: null,
    merchantOrderId: null,
    // The payer's page, keyed by payCryptoPixId (Crypto-PIX payments have no payment link id).
    link: cryptoPixPayLink(encodeCryptoPixId(p.id)),
    payment: !p.closedAt && open(p.status, p.expiresAt) ? payCryptoPix(p) : null,
    facts: [
      { label: "order.id", type: "mono", value: p.id },
      { label: "order.payCryptoPixId", type: "mono", value: encodeCryptoPixId(p.id) },
      { label: "order.recipient", type: "text", value: `${p.recipientName} (${p.recipientCity})` },
      { label: "order.pixKey", type: "mono", value: p.pixKey },
      ...(overLightning(p) ? lightningFacts(p, invoice) : chainFacts(chainPayment(p))),
      ...(p.refundAddress ? [{ label: "order.refundAddress" as const, type: "mono" as const, value: p.refundAddress }] : []),
      ...(p.refundStatus ? [{ label: "order.refundStatus" as const, type: "status" as const, value: p.refundStatus }] : []),
      ...(p.refundTxHash ? [{ label: "order.refundTx" as const, type: "mono" as const, value: p.refundTxHash }] : []),
    ],
  };
}

function transferUse(t: ChainTransfer, o: OnchainOrder | CryptoPixPayment): TransferUse {
  if (t.network !== o.network) return "wrong_network";
  if (t.tokenAddress.toLowerCase() !== o.tokenAddress?.toLowerCase()) return "wrong_token";
  const counted = new Decimal(t.appliedAmount);
  if (counted.gte(t.amount)) return "counted";
  return counted.gt(0) ? "partly_counted" : "not_counted";
}

function transferLine(t: ChainTransfer, o: OnchainOrder | CryptoPixPayment): TransferLine {
  return {
    id: t.id,
    txHash: t.txHash,
    network: networkName(t.network),
    amount: new Decimal(t.amount).toFixed(),
    unit: assetOf(t.network as Network, t.tokenAddress) ?? t.tokenAddress,
    counted: new Decimal(t.appliedAmount).toFixed(),
    use: transferUse(t, o),
    at: (t.blockTime ?? t.createdAt).toISOString(),
    fromAddress: t.fromAddress,
    refundStatus: t.refundStatus,
    note: t.note,
  };
}

/** The order with this id among the merchant's orders of every kind (expired on read), or null. */
async function loadOrder(merchantId: string, id: string): Promise<(Base & Pick<OrderDetail, "transfers" | "refunds" | "refundable" | "unapplied">) | null> {
  const found = await findAnyOrder(merchantId, id);
  if (!found) return null;
  if (found.kind === "order") return { ...fromOrder(found.order), transfers: [], ...(await refundsOf(found.order)), unapplied: [] };
  const order = found.order;
  const rows = await transfersOf(db(), order.id);
  const transfers = rows.map((t) => transferLine(t, order));
  if (found.kind === "onchain") return { ...fromDeposit(found.order), transfers, refunds: [], refundable: null, unapplied: await unappliedLines(found.order, rows) };
  const invoice = overLightning(found.order) ? await invoiceOf(db(), found.order.id) : undefined;
  return { ...fromCryptoPix(found.order, invoice), transfers, refunds: [], refundable: null, unapplied: [] };
}

/**
 * A paid PIX or exchange-wallet order's refunds, and what is left to refund (docs/api.md#refunds): a preview
 * for the form; the service decides again under the order's row lock.
 */
async function refundsOf(o: Order): Promise<Pick<OrderDetail, "refunds" | "refundable">> {
  if (o.kind === "lightning" || (o.status !== "COMPLETED" && o.status !== "REFUND")) return { refunds: [], refundable: null };
  const rows = await refundsOfOrder(db(), o.id);
  const held = rows.filter((r) => r.status !== "FAILED").reduce((sum, r) => sum + r.valueCentavos, 0);
  const left = o.valueCentavos - held - (o.kind === "pix" ? await returnedByMed(db(), o.id) : 0);
  return {
    refunds: rows.map((r) => ({
      id: r.id,
      valueCentavos: r.valueCentavos,
      status: r.status,
      reason: r.reason,
      failureReason: r.failureReason,
      createdAt: r.createdAt.toISOString(),
    })),
    refundable: o.status === "COMPLETED" && left > 0 ? { leftCentavos: left, sandbox: env().PAYMENTS_MODE === "sandbox" } : null,
  };
}

export async function getOrderDetail(merchantId: string, id: string): Promise<OrderDetail | null> {
  // Not a UUID → not an order: answered like an unknown id, never a database error.
  if (!isUuid(id) || !isUuid(merchantId)) return null;
  const base = await loadOrder(merchantId, id.toLowerCase());
  if (!base) return null;
  // A refund's event carries the payment too: the timeline shows the refund's own status (and a
  // resolution of unapplied funds its kind and status).
  const [eventRows, deliveryRows] = await Promise.all([
    db()
      .select({
        id: events.id,
        type: events.type,
        status: sql<
          string | null
        >`coalesce(${events.data}->'refund'->>'status', (${events.data}->'resolution'->>'kind') || ':' || (${events.data}->'resolution'->>'status'), ${events.data}->>'status')`,
        valueCentavos: sql<number | null>`case when ${events.type} = 'refund.status_changed' then round((${events.data}->>'value')::numeric * 100)::int end`,
        at: events.createdAt,
      })
      .from(events)
      .where(and(eq(events.merchantId, merchantId), eq(events.subjectId, base.id)))
      .orderBy(asc(events.seq))
      .limit(100),
    db()
      .select({
        id: webhookDeliveries.id,
        endpointUrl: webhookEndpoints.url,
        eventType: events.type,
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        lastStatusCode: webhookDeliveries.lastStatusCode,
        lastError: webhookDeliveries.lastError,
        at: webhookDeliveries.createdAt,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.subjectId, base.id)))
      .orderBy(desc(webhookDeliveries.createdAt))
      .limit(50),
  ]);
  const disputes = base.kind === "pix" ? await disputesOfOrder(base.id) : [];
  return {
    ...base,
    disputes: disputes.map((d) => ({
      id: d.id,
      valueCentavos: d.valueCentavos,
      natureza: d.natureza,
      status: d.status,
      debited: d.debitedAt !== null,
      at: (d.returnedAt ?? d.createdAt).toISOString(),
    })),
    events: eventRows.map((e) => ({ ...e, at: e.at.toISOString() })),
    deliveries: deliveryRows.map((d) => ({ ...d, at: d.at.toISOString() })),
    canSimulate: env().PAYMENTS_MODE === "sandbox" && base.payment !== null,
  };
}
