import { z } from "zod";
import {
  PAYER_FIELDS,
  PAYMENT_LINK_RAILS,
  PAYMENT_LINK_STATUSES,
  SALE_ORDER_TYPES,
  ORDER_STATUSES,
  CHAIN_STATUSES,
} from "@/db/schema";
import { ASSETS, NETWORKS, tokenFor } from "@/lib/chain/tokens";
import {
  bodyObject,
  brlAmount,
  brlValue,
  cpfField,
  isoDateTime,
  optionalText,
  requiredText,
  urlField,
} from "@/lib/fields";

// Requests and responses of /api/v1/payment-links (docs/api.md#payment-links). Amounts are BRL numbers
// with at most 2 decimals, reaching the service as centavos. What needs the other fields or the link as
// it stands (an edit that leaves no price nor bounds, a date already past) is checked by ./terms.ts.

const rail = z.enum(PAYMENT_LINK_RAILS, { error: `must be one of ${PAYMENT_LINK_RAILS.join(", ")}` });
const payerField = z.enum(PAYER_FIELDS, { error: `must be one of ${PAYER_FIELDS.join(", ")}` });

const onchainOption = z
  .strictObject(
    {
      network: z.enum(NETWORKS, { error: `must be one of ${NETWORKS.join(", ")}` }),
      asset: z.enum(ASSETS, { error: `must be one of ${ASSETS.join(", ")}` }),
    },
    { error: "must be an object like { network, asset }" },
  )
  .refine((o) => tokenFor(o.network, o.asset) !== null, { message: "token not supported on this network" });

const unique = <T>(a: T[]) => new Set(a).size === a.length;

const imageUrl = z
  .url({ protocol: /^https$/, error: "must be an https URL" })
  .max(500, "must be at most 500 characters")
  .meta({ description: "An https image shown on the payer's page" });

const metadata = z
  .record(z.string().min(1).max(40), z.string({ error: "must be a string" }).max(500), {
    error: "must be an object whose values are strings",
  })
  .refine((m) => Object.keys(m).length <= 50, "must have at most 50 keys")
  .meta({ description: "Your own key-value pairs (at most 50 keys of up to 40 characters, values up to 500)" });

const terms = {
  title: requiredText(120).meta({ description: "What is sold, as the payer sees it" }),
  description: optionalText(1000),
  imageUrl: imageUrl.optional(),
  price: brlValue.optional().meta({ description: "A fixed price in BRL; without it the payer types the amount" }),
  minAmount: brlValue.optional().meta({ description: "Payer-chosen amount: the least accepted (BRL)" }),
  maxAmount: brlValue.optional().meta({ description: "Payer-chosen amount: the most accepted (BRL)" }),
  maxQuantity: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(2, "must be at least 2")
    .max(1000, "must be at most 1000")
    .optional()
    .meta({ description: "With a fixed price: the payer may buy 1 to this many units in one payment" }),
  rails: z
    .array(rail, { error: "must be an array of rails" })
    .min(1, "must offer at least one rail")
    .refine(unique, "must not name a rail twice")
    .meta({ description: "Which rails the payer may choose: pix, lightning, exchange (wallet), onchain" }),
  onchain: z
    .array(onchainOption, { error: "must be an array of { network, asset }" })
    .max(12)
    .refine((a) => unique(a.map((o) => `${o.network}:${o.asset}`)), "must not name a token twice")
    .optional()
    .meta({ description: "With the onchain rail: the networks and assets offered (at least one)" }),
  payerFields: z
    .array(payerField, { error: "must be an array of payer fields" })
    .refine(unique, "must not name a field twice")
    .optional()
    .meta({ description: "What the payer must give before paying: name, email, cpf, phone, address" }),
  availableUntil: isoDateTime.optional().meta({ description: "No new order after this instant" }),
  maxPayments: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1_000_000, "must be at most 1000000")
    .optional()
    .meta({ description: "No new order once this many are paid or awaiting payment" }),
  reference: optionalText(200).meta({ description: "Your own reference, copied onto every order the link makes" }),
  metadata: metadata.optional(),
};

export const createPaymentLinkBody = bodyObject(terms);
export type CreatePaymentLinkInput = z.output<typeof createPaymentLinkBody>;

const clearable = <S extends z.ZodType>(s: S) => z.union([s, z.null()]).optional();

/** An edit: only the fields sent change; `null` clears an optional one (price: null makes the amount the payer's). */
export const updatePaymentLinkBody = bodyObject({
  title: terms.title.optional(),
  description: clearable(z.string().trim().max(1000, "must be at most 1000 characters")),
  imageUrl: clearable(imageUrl),
  price: clearable(brlValue),
  minAmount: clearable(brlValue),
  maxAmount: clearable(brlValue),
  maxQuantity: clearable(terms.maxQuantity.unwrap()),
  rails: terms.rails.optional(),
  onchain: terms.onchain,
  payerFields: terms.payerFields,
  availableUntil: clearable(isoDateTime),
  maxPayments: clearable(terms.maxPayments.unwrap()),
  reference: clearable(z.string().trim().max(200, "must be at most 200 characters")),
  metadata: metadata.optional(),
});
export type UpdatePaymentLinkInput = z.output<typeof updatePaymentLinkBody>;

export const listPaymentLinksQuery = z.object({
  status: z.enum(PAYMENT_LINK_STATUSES, { error: `must be one of ${PAYMENT_LINK_STATUSES.join(", ")}` }).optional(),
  reference: z.string().trim().min(1).max(200).optional(),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});
export type ListPaymentLinksQuery = z.output<typeof listPaymentLinksQuery>;

export const listSalesQuery = z.object({
  limit: z.coerce.number({ error: "must be a number" }).int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});
export type ListSalesQuery = z.output<typeof listSalesQuery>;

const payerBody = z
  .strictObject(
    {
      name: optionalText(200),
      email: z.email({ error: "must be a valid e-mail address" }).max(254).optional(),
      cpf: cpfField,
      phone: z
        .string({ error: "must be a string" })
        .transform((s) => s.replace(/[\s().-]/g, ""))
        .refine((s) => /^\+?\d{10,15}$/.test(s), "must be a phone number with area code")
        .optional(),
      address: optionalText(300),
    },
    { error: "must be an object like { name, email, cpf, phone, address }" },
  )
  .default({});

/** What the payer sends from the link's page: the rail (and token), the amount or quantity, and the fields asked. */
export const sellBody = bodyObject({
  rail,
  network: z.enum(NETWORKS, { error: `must be one of ${NETWORKS.join(", ")}` }).optional(),
  asset: z.enum(ASSETS, { error: `must be one of ${ASSETS.join(", ")}` }).optional(),
  amount: brlValue.optional().meta({ description: "A payer-chosen amount (BRL), within the link's bounds" }),
  quantity: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .optional(),
  payer: payerBody,
});
export type SellInput = z.output<typeof sellBody>;

// Responses.

const payerFieldsView = z.array(z.enum(PAYER_FIELDS));
const onchainView = z.array(z.strictObject({ network: z.enum(NETWORKS), asset: z.enum(ASSETS) }));

export const paymentLinkViewSchema = z
  .strictObject({
    id: z.uuid(),
    url: urlField.meta({ description: "The public page to share" }),
    qrCodeLink: urlField.meta({ description: "A PNG QR code of `url`, for a shop's counter" }),
    status: z.enum(PAYMENT_LINK_STATUSES),
    available: z.boolean().meta({ description: "Whether a payer can make an order now" }),
    unavailableReason: z
      .enum(["paused", "expired", "sold_out"])
      .nullable()
      .meta({ description: "Why not, when `available` is false" }),
    title: z.string(),
    description: z.string().nullable(),
    imageUrl: z.string().nullable(),
    price: brlAmount.nullable().meta({ description: "The fixed price; null when the payer chooses the amount" }),
    minAmount: brlAmount.nullable(),
    maxAmount: brlAmount.nullable(),
    maxQuantity: z.int().nullable(),
    rails: z.array(z.enum(PAYMENT_LINK_RAILS)),
    onchain: onchainView,
    payerFields: payerFieldsView,
    availableUntil: isoDateTime.nullable(),
    maxPayments: z.int().nullable(),
    payments: z
      .strictObject({ paid: z.int(), pending: z.int() })
      .meta({ description: "Orders made by the link: paid (or refunded after) and awaiting payment" }),
    reference: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    version: z.int().meta({ description: "Bumped by every edit; each sale records the version it was sold under" }),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: "PaymentLink" });
export type PaymentLinkView = z.infer<typeof paymentLinkViewSchema>;

export const paymentLinkResponse = z.strictObject({ paymentLink: paymentLinkViewSchema });
export const listPaymentLinksResponse = z.strictObject({
  paymentLinks: z.array(paymentLinkViewSchema),
  nextCursor: z.string().nullable(),
});

export const saleViewSchema = z
  .strictObject({
    orderId: z.uuid(),
    paymentLinkId: z
      .string()
      .meta({ description: "The order's own payment link id (GET /api/v1/order/{id} takes it)" }),
    type: z.enum(SALE_ORDER_TYPES),
    status: z.enum([...new Set([...ORDER_STATUSES, ...CHAIN_STATUSES])] as [string, ...string[]]),
    value: brlAmount.meta({ description: "What this order costs: the price when it was made, times the quantity" }),
    quantity: z.int(),
    payer: z
      .record(z.string(), z.string())
      .meta({ description: "The fields the link asked for, as the payer gave them" }),
    linkVersion: z.int(),
    link: urlField.meta({ description: "The order's hosted checkout" }),
    createdAt: isoDateTime,
    paidAt: isoDateTime.nullable(),
  })
  .meta({ id: "PaymentLinkSale" });
export type SaleView = z.infer<typeof saleViewSchema>;
export const listSalesResponse = z.strictObject({ sales: z.array(saleViewSchema), nextCursor: z.string().nullable() });

export const publicPaymentLinkSchema = z
  .strictObject({
    slug: z.string(),
    merchantName: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    imageUrl: z.string().nullable(),
    price: brlAmount.nullable(),
    minAmount: brlAmount.nullable(),
    maxAmount: brlAmount.nullable(),
    maxQuantity: z.int().nullable(),
    rails: z.array(z.enum(PAYMENT_LINK_RAILS)).meta({ description: "The link's rails this server has enabled" }),
    onchain: onchainView,
    payerFields: payerFieldsView,
    available: z.boolean(),
    unavailableReason: z.enum(["paused", "expired", "sold_out"]).nullable(),
  })
  .meta({ id: "PublicPaymentLink" });
export type PublicPaymentLink = z.infer<typeof publicPaymentLinkSchema>;
export const publicPaymentLinkResponse = z.strictObject({ paymentLink: publicPaymentLinkSchema });

export const sellResponse = z.strictObject({
  order: z.strictObject({
    paymentLinkId: z.string().meta({ description: "The payer's own order: its page is `link`" }),
    type: z.enum(SALE_ORDER_TYPES),
    value: brlAmount,
    link: urlField,
  }),
});
