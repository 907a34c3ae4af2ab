import { db, type Tx } from "@/db";
import type { PaymentLink, PayerField } from "@/db/schema";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { formatBrl } from "@/lib/money";
import { merchantById } from "@/lib/merchants/queries";
import { createDeposit } from "@/lib/onchain/service";
import type { OrderMaker } from "@/lib/order-maker";
import { createExchangeOrder, createLightningOrder, createPixOrder } from "@/lib/orders/service";
import { paymentLink } from "@/lib/links";
import { centavosToBrl } from "@/lib/money";
import { railEnabled } from "@/lib/providers/rails";
import { insertSale, linkBySlug, lockLink, saleCounts } from "./queries";
import type { PublicPaymentLink, SellInput } from "./schemas";
import { availability, publicLinkView } from "./views";

// A payer buys from a link (docs/api.md#payment-links): opening its page makes nothing; choosing a rail
// (and an amount, when the payer chooses it) makes the payer's own order of that rail through the
// orders' own services, so its status, receipts, refunds, exports and webhooks are every order's.
//
// The N-payment limit: a sale is decided in the order's own transaction while holding the link's row
// lock, counting the link's orders that are paid or still payable; at N a new order is refused (409).
// So concurrent payers can never make more than N payable orders, and at most N are paid. The one
// exception is money we must not refuse: an order cancelled at its expiry whose payment was made in
// time but reported late still completes (docs/api.md#payment-links), and the link counts it.

/** A PIX order made by a link can be paid for this long: an abandoned one then frees its place under the limit. */
export const LINK_PIX_EXPIRY_SECONDS = 30 * 60;

const UNAVAILABLE: Record<"paused" | "expired" | "sold_out", string> = {
  paused: "This payment link is paused: it takes no new orders",
  expired: "This payment link is no longer available",
  sold_out: "This payment link has reached its number of payments",
};

/** Whether `slug` has the shape of a link's public id (ids.ts newPaymentLinkId). */
export const isSlug = (slug: string) => /^[A-Za-z0-9]{16,64}$/.test(slug);

async function publicLink(slug: string): Promise<PaymentLink> {
  const link = isSlug(slug) ? await linkBySlug(db(), slug) : undefined;
  if (!link) throw new NotFound("Payment link not found");
  return link;
}

export async function publicPaymentLink(slug: string): Promise<PublicPaymentLink> {
  const link = await publicLink(slug);
  const merchant = await merchantById(db(), link.merchantId);
  return publicLinkView(link, await saleCounts(db(), link.id), merchant?.companyName ?? "");
}

/** What the payer must pay: the fixed price times the quantity, or their amount within the link's bounds. */
export function saleValue(
  link: PaymentLink,
  input: Pick<SellInput, "amount" | "quantity">,
): { value: number; quantity: number } {
  if (link.priceCentavos !== null) {
    if (input.amount !== undefined) throw new InvalidInput("amount: this link has a fixed price");
    const quantity = input.quantity ?? 1;
    const max = link.maxQuantity ?? 1;
    if (quantity > max) throw new InvalidInput(`quantity must be at most ${max}`);
    return { value: link.priceCentavos * quantity, quantity };
  }
  if (input.quantity !== undefined && input.quantity !== 1)
    throw new InvalidInput("quantity: this link sells one at a time");
  if (input.amount === undefined) throw new InvalidInput("amount is required: this link lets the payer choose it");
  const min = link.minCentavos ?? 1;
  if (input.amount < min) throw new InvalidInput(`amount must be at least ${centavosToBrl(min)} (${formatBrl(min)})`);
  if (link.maxCentavos !== null && input.amount > link.maxCentavos)
    throw new InvalidInput(
      `amount must be at most ${centavosToBrl(link.maxCentavos)} (${formatBrl(link.maxCentavos)})`,
    );
  return { value: input.amount, quantity: 1 };
}

function payerOf(link: PaymentLink, input: SellInput): Partial<Record<PayerField, string>> {
  const payer: Partial<Record<PayerField, string>> = {};
  for (const field of link.payerFields) {
    const v = input.payer[field];
    if (!v) throw new InvalidInput(`payer.${field} is required by this payment link`);
    payer[field] = v;
  }
  return payer;
}

function refuseUnavailable(link: PaymentLink, counts: { paid: number; pending: number }): void {
  const a = availability(link, counts);
  if (!a.available) throw new Conflict(UNAVAILABLE[a.unavailableReason!]);
}

/** The link's part of the order's transaction: under its lock, still sellable and under its limit; then the sale's record. */
function saleMaker(
  link: PaymentLink,
  value: number,
  quantity: number,
  payer: Partial<Record<PayerField, string>>,
): OrderMaker {
  const reference: Record<string, string> = { linkId: link.id };
  if (link.reference) reference.linkReference = link.reference;
  for (const [k, v] of Object.entries(payer)) if (k !== "cpf" && k !== "name") reference[k] = v;
  return {
    reference,
    async record(tx: Tx, type, insert) {
      const current = await lockLink(tx, link.id);
      if (!current) throw new NotFound("Payment link not found");
      refuseUnavailable(current, await saleCounts(tx, link.id));
      // The terms the payer saw must still be the link's: an edit of the price since they were read refuses.
      if (current.version !== link.version && saleValueChanged(link, current))
        throw new Conflict("This payment link was just changed: open it again to see its current terms");
      const order = await insert();
      await insertSale(tx, {
        linkId: link.id,
        merchantId: link.merchantId,
        orderType: type,
        orderId: order.id,
        valueCentavos: value,
        quantity,
        payer,
        linkVersion: current.version,
      });
      return order;
    },
  };
}

const saleValueChanged = (a: PaymentLink, b: PaymentLink) =>
  a.priceCentavos !== b.priceCentavos ||
  a.minCentavos !== b.minCentavos ||
  a.maxCentavos !== b.maxCentavos ||
  a.maxQuantity !== b.maxQuantity;

export type Sold = {
  paymentLinkId: string;
  type: "pix" | "lightning" | "exchange" | "onchain";
  value: number;
  link: string;
};

/** The payer's order of the rail they chose, made by the orders' own services. */
export async function sell(slug: string, input: SellInput): Promise<Sold> {
  const link = await publicLink(slug);
  // Cheap refusals first, without the lock; the locked count decides (saleMaker).
  refuseUnavailable(link, await saleCounts(db(), link.id));
  if (!link.rails.includes(input.rail) || !railEnabled(input.rail))
    throw new InvalidInput(`rail: this payment link does not offer ${input.rail}`);
  const { value, quantity } = saleValue(link, input);
  const payer = payerOf(link, input);
  const merchant = await merchantById(db(), link.merchantId);
  if (!merchant) throw new NotFound("Payment link not found");
  const maker = saleMaker(link, value, quantity, payer);
  const description = link.title.slice(0, 140);
  // The link's metadata rides on each order it makes, so its webhooks and exports carry it.
  const metadata = link.metadata;
  let made: { paymentLinkId: string };
  switch (input.rail) {
    case "pix":
      made = await createPixOrder(
        merchant,
        { value, description, name: payer.name, cpf: payer.cpf, expiresIn: LINK_PIX_EXPIRY_SECONDS, metadata },
        maker,
      );
      break;
    case "lightning":
      made = await createLightningOrder(merchant, { value, name: payer.name, email: payer.email, metadata }, maker);
      break;
    case "exchange":
      made = await createExchangeOrder(merchant, { value, metadata }, maker);
      break;
    case "onchain": {
      const option = link.onchainOptions.find((o) => o.network === input.network && o.asset === input.asset);
      if (!option)
        throw new InvalidInput(
          `network and asset: this payment link offers ${link.onchainOptions.map((o) => `${o.asset} on ${o.network}`).join(", ")}`,
        );
      made = await createDeposit(merchant, { value, network: option.network, asset: option.asset, metadata }, maker);
      break;
    }
  }
  return {
    paymentLinkId: made.paymentLinkId,
    type: input.rail,
    value: centavosToBrl(value),
    link: paymentLink(made.paymentLinkId),
  };
}
