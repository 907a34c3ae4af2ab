import type { OnchainOption, PayerField, PaymentLink, PaymentLinkRail } from "@/db/schema";
import { InvalidInput } from "@/lib/errors";
import type { CreatePaymentLinkInput, UpdatePaymentLinkInput } from "./schemas";

// What a link sells and how, as one set of columns: built from a create, or from the link as it stands
// with an edit's fields over it, and checked whole either way (a price and bounds together, the
// onchain rail without a token, a limit date already past).

export type LinkTerms = {
  title: string;
  description: string | null;
  imageUrl: string | null;
  priceCentavos: number | null;
  minCentavos: number | null;
  maxCentavos: number | null;
  maxQuantity: number | null;
  rails: PaymentLinkRail[];
  onchainOptions: OnchainOption[];
  payerFields: PayerField[];
  availableUntil: Date | null;
  maxPayments: number | null;
  reference: string | null;
  metadata: Record<string, string>;
};

export function termsOfCreate(input: CreatePaymentLinkInput): LinkTerms {
  return {
    title: input.title,
    description: input.description || null,
    imageUrl: input.imageUrl ?? null,
    priceCentavos: input.price ?? null,
    minCentavos: input.minAmount ?? null,
    maxCentavos: input.maxAmount ?? null,
    maxQuantity: input.maxQuantity ?? null,
    rails: input.rails,
    onchainOptions: input.onchain ?? [],
    payerFields: input.payerFields ?? [],
    availableUntil: input.availableUntil ? new Date(input.availableUntil) : null,
    maxPayments: input.maxPayments ?? null,
    reference: input.reference || null,
    metadata: input.metadata ?? {},
  };
}

/** `undefined`: not sent, keep; `null`: clear. */
const pick = <T>(sent: T | null | undefined, current: T | null): T | null => (sent === undefined ? current : sent);

export function termsOfUpdate(link: PaymentLink, input: UpdatePaymentLinkInput): LinkTerms {
  const price = pick(input.price, link.priceCentavos);
  // Choosing a price ends the payer's bounds, and the reverse: what is left must be one or the other.
  const fixed = input.price !== undefined ? input.price !== null : price !== null;
  return {
    title: input.title ?? link.title,
    description: pick(input.description, link.description) || null,
    imageUrl: pick(input.imageUrl, link.imageUrl),
    priceCentavos: fixed ? price : null,
    minCentavos: fixed ? null : pick(input.minAmount, link.minCentavos),
    maxCentavos: fixed ? null : pick(input.maxAmount, link.maxCentavos),
    maxQuantity: fixed ? pick(input.maxQuantity, link.maxQuantity) : null,
    rails: input.rails ?? link.rails,
    onchainOptions: input.onchain ?? link.onchainOptions,
    payerFields: input.payerFields ?? link.payerFields,
    availableUntil:
      input.availableUntil === undefined
        ? link.availableUntil
        : input.availableUntil === null
          ? null
          : new Date(input.availableUntil),
    maxPayments: pick(input.maxPayments, link.maxPayments),
    reference: pick(input.reference, link.reference) || null,
    metadata: input.metadata ?? link.metadata,
  };
}

/** Refuses terms that cannot sell: each a 400 naming the field. */
export function checkTerms(
  t: LinkTerms,
  sent: { minAmount?: unknown; maxAmount?: unknown; maxQuantity?: unknown },
): void {
  if (t.priceCentavos !== null && (sent.minAmount != null || sent.maxAmount != null))
    throw new InvalidInput("minAmount and maxAmount are for a payer-chosen amount: send them without a price");
  if (t.priceCentavos === null && sent.maxQuantity != null) throw new InvalidInput("maxQuantity needs a fixed price");
  if (t.minCentavos !== null && t.maxCentavos !== null && t.minCentavos > t.maxCentavos)
    throw new InvalidInput("minAmount must not be greater than maxAmount");
  if (t.rails.includes("onchain") && t.onchainOptions.length === 0)
    throw new InvalidInput("onchain: the onchain rail needs at least one { network, asset }");
  if (!t.rails.includes("onchain") && t.onchainOptions.length > 0)
    throw new InvalidInput("onchain: add the onchain rail to rails to offer tokens");
  if (t.availableUntil && t.availableUntil.getTime() <= Date.now())
    throw new InvalidInput("availableUntil must be in the future");
}
