import type { OnchainOrder } from "@/db/schema";
import { paymentLink } from "@/lib/links";
import { centavosToBrl, cryptoToNumber, Decimal } from "@/lib/money";
import type { Asset, Network } from "@/lib/chain/tokens";
import type { SplitView } from "@/lib/splits/schemas";
import type { DepositCreatedView, DepositView } from "./schemas";

// network and asset are text columns, written only after resolveToken accepted them: the casts below
// narrow them to the values the schemas document.

/** The spec's `metadata` keys, with the merchant's own beside them (never in their place: they are refused). */
function depositMetadata(o: OnchainOrder): DepositView["metadata"] {
  return {
    ...o.metadata,
    orderId: o.id,
    tokenAddress: o.tokenAddress,
    network: o.network as Network,
    walletIndex: o.walletIndex,
  };
}

/** The deposit's creation view (docs/api.md#endpoints). */
export function depositCreatedView(o: OnchainOrder, splits: SplitView[]): DepositCreatedView {
  return {
    address: o.address,
    paymentLinkId: o.paymentLinkId,
    network: o.network as Network,
    asset: o.asset as Asset,
    amount: cryptoToNumber(o.cryptoAmount),
    id: o.id,
    value: centavosToBrl(o.valueCentavos),
    status: o.status,
    rate: cryptoToNumber(o.rate),
    tokenAddress: o.tokenAddress,
    link: paymentLink(o.paymentLinkId),
    expiresAt: o.expiresAt.toISOString(),
    metadata: depositMetadata(o),
    splits,
  };
}

/** The deposit's lookup view (docs/api.md#endpoints), plus what was received so far. */
export function depositView(o: OnchainOrder, splits: SplitView[]): DepositView {
  return {
    id: o.id,
    network: o.network as Network,
    value: centavosToBrl(o.valueCentavos),
    cryptoValue: cryptoToNumber(o.cryptoAmount),
    address: o.address,
    asset: o.asset as Asset,
    status: o.status,
    metadata: depositMetadata(o),
    paymentLinkId: o.paymentLinkId,
    createdAt: o.createdAt.toISOString(),
    receivedValue: cryptoToNumber(o.receivedAmount),
    remaining: cryptoToNumber(Decimal.max(0, new Decimal(o.cryptoAmount).minus(o.receivedAmount)).toFixed()),
    unappliedValue: cryptoToNumber(o.unappliedAmount),
    creditedValue: centavosToBrl(o.creditedCentavos),
    rate: cryptoToNumber(o.rate),
    link: paymentLink(o.paymentLinkId),
    expiresAt: o.expiresAt.toISOString(),
    final: o.closedAt !== null,
    splits,
  };
}
