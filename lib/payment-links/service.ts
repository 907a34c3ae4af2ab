import { db } from "@/db";
import type { PaymentLink, PaymentLinkStatus } from "@/db/schema";
import { NotFound } from "@/lib/errors";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { isUuid, newId, newPaymentLinkId } from "@/lib/ids";
import { keysetPage } from "@/lib/paging";
import {
  insertLink,
  linksPage,
  lockLink,
  merchantLink,
  saleCounts,
  saleCountsOf,
  salesPage,
  updateLink,
} from "./queries";
import type {
  CreatePaymentLinkInput,
  ListPaymentLinksQuery,
  ListSalesQuery,
  PaymentLinkView,
  SaleView,
  UpdatePaymentLinkInput,
} from "./schemas";
import { checkTerms, termsOfCreate, termsOfUpdate } from "./terms";
import { paymentLinkView, saleView } from "./views";

// Reusable payment links, the merchant's side (docs/api.md#payment-links): made, read, listed, edited,
// paused and resumed. Selling is ./sell.ts. An edit changes what later payers see and pay; orders
// already made keep their own value, and each sale records the link's version it was made under.

export async function createPaymentLink(merchantId: string, input: CreatePaymentLinkInput): Promise<PaymentLinkView> {
  const terms = termsOfCreate(input);
  checkTerms(terms, input);
  const link = await db().transaction(async (tx) => {
    const made = await insertLink(tx, { id: newId(), merchantId, slug: newPaymentLinkId(), ...terms });
    await bindIdempotencyKey(tx, { type: "payment_link", id: made.id });
    return made;
  });
  return paymentLinkView(link, { paid: 0, pending: 0 });
}

async function findLink(merchantId: string, id: string): Promise<PaymentLink> {
  if (!isUuid(id)) throw new NotFound("Payment link not found");
  const link = await merchantLink(db(), merchantId, id.toLowerCase());
  if (!link) throw new NotFound("Payment link not found");
  return link;
}

export async function getPaymentLink(merchantId: string, id: string): Promise<PaymentLinkView> {
  const link = await findLink(merchantId, id);
  return paymentLinkView(link, await saleCounts(db(), link.id));
}

export async function listPaymentLinks(
  merchantId: string,
  q: ListPaymentLinksQuery,
): Promise<{ paymentLinks: PaymentLinkView[]; nextCursor: string | null }> {
  const rows = await linksPage(db(), merchantId, q);
  const { page, nextCursor } = keysetPage(rows, q.limit, (l) => ({ at: l.createdAt, id: l.id }));
  const counts = await saleCountsOf(
    db(),
    page.map((l) => l.id),
  );
  return {
    paymentLinks: page.map((l) => paymentLinkView(l, counts.get(l.id) ?? { paid: 0, pending: 0 })),
    nextCursor,
  };
}

/** The fields sent change, under the link's lock (a sale being decided sees the link before or after, whole). */
export async function updatePaymentLink(
  merchantId: string,
  id: string,
  input: UpdatePaymentLinkInput,
): Promise<PaymentLinkView> {
  const { id: linkId } = await findLink(merchantId, id);
  const link = await db().transaction(async (tx) => {
    const current = await lockLink(tx, linkId);
    if (!current) throw new NotFound("Payment link not found");
    const terms = termsOfUpdate(current, input);
    checkTerms(terms, input);
    return (await updateLink(tx, merchantId, linkId, { ...terms, version: current.version + 1 }))!;
  });
  return paymentLinkView(link, await saleCounts(db(), link.id));
}

/** ACTIVE ↔ PAUSED. Pausing refuses new orders; orders already made can still be paid. Repeating it changes nothing. */
export async function setPaymentLinkStatus(
  merchantId: string,
  id: string,
  status: PaymentLinkStatus,
): Promise<PaymentLinkView> {
  const { id: linkId } = await findLink(merchantId, id);
  const link = await db().transaction(async (tx) => {
    const current = await lockLink(tx, linkId);
    if (!current) throw new NotFound("Payment link not found");
    const after = current.status === status ? current : (await updateLink(tx, merchantId, linkId, { status }))!;
    await bindIdempotencyKey(tx, { type: "payment_link", id: after.id });
    return after;
  });
  return paymentLinkView(link, await saleCounts(db(), link.id));
}

export async function listSales(
  merchantId: string,
  id: string,
  q: ListSalesQuery,
): Promise<{ sales: SaleView[]; nextCursor: string | null }> {
  const link = await findLink(merchantId, id);
  const rows = await salesPage(db(), link.id, q);
  const { page, nextCursor } = keysetPage(rows, q.limit, (r) => ({ at: r.sale.createdAt, id: r.sale.id }));
  return { sales: page.map(saleView), nextCursor };
}
