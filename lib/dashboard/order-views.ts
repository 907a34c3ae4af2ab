import type { SplitView } from "@/lib/splits/schemas";
import type {
  ChainTransfer,
  CryptoPixInvoice,
  CryptoPixPayment,
  OnchainOrder,
  Order,
  UnappliedResolution,
} from "@/db/schema";
import { assetOf } from "@/lib/chain/config";
import { networkName } from "@/lib/chain/network-names";
import { depositTransferUri } from "@/lib/chain/payment-uri";
import type { Network } from "@/lib/chain/tokens";
import { transferUse, type TransferUse } from "@/lib/chain/transfers";
import { chainPayment, overLightning } from "@/lib/crypto-pix/kinds";
import type { MessageKey } from "@/lib/i18n";
import { encodeCryptoPixId } from "@/lib/ids";
import { cryptoPixPayLink, paymentLink } from "@/lib/links";
import { Decimal } from "@/lib/money";
import type { OrderListType } from "@/lib/orders/schemas";
import { orderNaming, type OrderTitle } from "@/lib/orders/title";
import { chainFacts, lightningFacts, referenceFacts, type Fact } from "./order-facts";

// One order of any kind as the dashboard shows it: what to pay and how, its facts, the events it
// went through and the webhook deliveries of those events. Plain JSON, so the same object is
// rendered by the server and re-fetched by the client's polling. The mappers here turn each kind's
// row into it; lib/dashboard/server/order-detail.ts reads the rows.

export type { Fact, TransferUse };

/** An on-chain order's unapplied tokens on one transfer, what accepting them would credit, and what the merchant did with them. */
export type UnappliedLine = {
  transferId: string;
  txHash: string;
  amount: string;
  asset: string;
  /** The order's network, by name, and its fixed rate (BRL per token). */
  network: string;
  rate: string;
  fromAddress: string | null;
  /** Beyond what was due on a transfer that also paid the order, or arrived once the order was final. */
  reason: "overpayment" | "after_final";
  /** The tokens' BRL value at the order's fixed rate, rounded down: what accepting credits. */
  creditCentavos: number;
  resolution: {
    kind: UnappliedResolution["kind"];
    status: UnappliedResolution["status"];
    creditedCentavos: number | null;
    toAddress: string | null;
    fee: string | null;
    sent: string | null;
    /** Only once mined: a pending return may still be replaced by a version with another hash. */
    txHash: string | null;
    at: string;
    id: string;
    /** A return to a new address that waits for an owner's confirmation, until the hold's end (ISO); cancellable meanwhile. */
    waitingUntil: string | null;
  } | null;
};

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

export type OrderDetail = {
  id: string;
  kind: OrderListType;
  status: string;
  valueCentavos: number;
  createdAt: string;
  expiresAt: string | null;
  paidAt: string | null;
  final: boolean;
  paymentLinkId: string | null;
  /** What the merchant knows the order by (lib/orders/title.ts), and its customer when the title is not already the customer. */
  title: OrderTitle;
  customer: string | null;
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
  /** The order's split as the API shows it, each part with its recipient's name; [] without one. */
  splits: SplitLine[];
};

/** One part of an order's split (lib/splits/schemas.ts SplitView) and whom it goes to. */
export type SplitLine = SplitView & { recipientName: string };

export type DisputeLine = {
  id: string;
  valueCentavos: number;
  natureza: string;
  status: string;
  debited: boolean;
  at: string;
};

export type RefundLine = {
  id: string;
  valueCentavos: number;
  status: "PENDING" | "COMPLETED" | "FAILED";
  reason: string | null;
  failureReason: string | null;
  createdAt: string;
};

const OPEN_STATUSES = new Set(["PENDING", "PARTIAL_ORDER"]);

const open = (status: string, expiresAt: Date | null) =>
  OPEN_STATUSES.has(status) && (!expiresAt || expiresAt.getTime() > Date.now());

export type OrderBase = Omit<
  OrderDetail,
  "events" | "deliveries" | "canSimulate" | "transfers" | "refunds" | "refundable" | "disputes" | "unapplied" | "splits"
>;

export function fromOrder(o: Order): OrderBase {
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
    ...orderNaming({
      id: o.id,
      kind: o.kind,
      valueCentavos: o.valueCentavos,
      paymentLinkId: o.paymentLinkId,
      reference: o.reference,
    }),
    link,
    payment: open(o.status, o.expiresAt) ? payment : null,
    facts,
  };
}

export function fromDeposit(o: OnchainOrder): OrderBase {
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
    ...orderNaming({
      id: o.id,
      kind: "onchain",
      valueCentavos: o.valueCentavos,
      paymentLinkId: o.paymentLinkId,
      reference: null,
    }),
    link: paymentLink(o.paymentLinkId),
    payment:
      !o.closedAt && open(o.status, o.expiresAt)
        ? { qrContent: depositTransferUri(o), code: o.address, codeLabel: "order.address" }
        : null,
    facts: [
      { label: "order.id", type: "mono", value: o.id },
      { label: "order.paymentLinkId", type: "mono", value: o.paymentLinkId },
      ...chainFacts(o),
      ...(o.creditedCentavos > 0
        ? [{ label: "order.credited" as const, type: "money" as const, value: o.creditedCentavos }]
        : []),
    ],
  };
}

/** How the payer pays a Crypto-PIX payment: the chain transfer, or the Lightning invoice. */
function payCryptoPix(p: CryptoPixPayment): OrderDetail["payment"] {
  if (overLightning(p))
    return { qrContent: `lightning:${p.address.toUpperCase()}`, code: p.address, codeLabel: "order.invoice" };
  return { qrContent: depositTransferUri(chainPayment(p)), code: p.address, codeLabel: "order.address" };
}

export function fromCryptoPix(p: CryptoPixPayment, invoice?: CryptoPixInvoice): OrderBase {
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
    ...orderNaming({
      id: p.id,
      kind: "crypto_pix",
      valueCentavos: p.valueCentavos,
      paymentLinkId: null,
      reference: { recipientName: p.recipientName },
    }),
    // The payer's page, keyed by payCryptoPixId (Crypto-PIX payments have no payment link id).
    link: cryptoPixPayLink(encodeCryptoPixId(p.id)),
    payment: !p.closedAt && open(p.status, p.expiresAt) ? payCryptoPix(p) : null,
    facts: [
      { label: "order.id", type: "mono", value: p.id },
      { label: "order.payCryptoPixId", type: "mono", value: encodeCryptoPixId(p.id) },
      { label: "order.recipient", type: "text", value: `${p.recipientName} (${p.recipientCity})` },
      { label: "order.pixKey", type: "mono", value: p.pixKey },
      ...(overLightning(p) ? lightningFacts(p, invoice) : chainFacts(chainPayment(p))),
      ...(p.refundAddress
        ? [{ label: "order.refundAddress" as const, type: "mono" as const, value: p.refundAddress }]
        : []),
      ...(p.refundStatus
        ? [{ label: "order.refundStatus" as const, type: "status" as const, value: p.refundStatus }]
        : []),
      ...(p.refundTxHash ? [{ label: "order.refundTx" as const, type: "mono" as const, value: p.refundTxHash }] : []),
    ],
  };
}

export function transferLine(t: ChainTransfer, o: OnchainOrder | CryptoPixPayment): TransferLine {
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
