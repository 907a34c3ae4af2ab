import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";

/** ACTIVE: sells; PAUSED: by the merchant, refuses new orders (those already made can still be paid). */
export const PAYMENT_LINK_STATUSES = ["ACTIVE", "PAUSED"] as const;
/** The rails a link can offer: the ones the service creates orders for. */
export const PAYMENT_LINK_RAILS = ["pix", "lightning", "exchange", "onchain"] as const;
/** What a link may ask the payer for before making their order. */
export const PAYER_FIELDS = ["name", "email", "cpf", "phone", "address"] as const;
export const SALE_ORDER_TYPES = ["pix", "lightning", "exchange", "onchain"] as const;

export type PaymentLinkRail = (typeof PAYMENT_LINK_RAILS)[number];
export type PayerField = (typeof PAYER_FIELDS)[number];
export type OnchainOption = { network: string; asset: string };

/**
 * Reusable payment links (docs/api.md#payment-links): a product and a price (or an amount the payer
 * chooses within bounds), shared as one public page (`slug`); every payer who opens it and picks a
 * rail gets an order of their own, made by the orders' own services and recorded in
 * payment_link_sales. Edits change what later payers see; sold orders keep their own price.
 */
export const paymentLinks = pgTable(
  "payment_links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    // The public page's id (/pay/link/{slug}): URL-safe, hard to guess, like an order's payment link id.
    slug: text("slug").notNull(),
    status: text("status", { enum: PAYMENT_LINK_STATUSES }).notNull().default("ACTIVE"),
    title: text("title").notNull(),
    description: text("description"),
    imageUrl: text("image_url"),
    // A fixed price, or (null) an amount the payer types, between min and max.
    priceCentavos: centavos("price_centavos"),
    minCentavos: centavos("min_centavos"),
    maxCentavos: centavos("max_centavos"),
    // How many units a payer may buy at once at the fixed price (null: one).
    maxQuantity: integer("max_quantity"),
    rails: jsonb("rails").$type<PaymentLinkRail[]>().notNull(),
    onchainOptions: jsonb("onchain_options").$type<OnchainOption[]>().notNull().default([]),
    payerFields: jsonb("payer_fields").$type<PayerField[]>().notNull().default([]),
    // Limits: no new order after this instant, or once this many payments are paid or under way.
    availableUntil: ts("available_until"),
    maxPayments: integer("max_payments"),
    reference: text("reference"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    // Bumped by every edit: a sale records the version it was sold under.
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("payment_links_slug").on(t.slug),
    index("payment_links_merchant_created").on(t.merchantId, t.createdAt, t.id),
    check("payment_links_status", inList("status", PAYMENT_LINK_STATUSES)),
    check(
      "payment_links_amount",
      sql`(price_centavos is not null and price_centavos > 0 and min_centavos is null and max_centavos is null) or (price_centavos is null and max_quantity is null)`,
    ),
    check("payment_links_bounds", sql`min_centavos is null or max_centavos is null or min_centavos <= max_centavos`),
    check("payment_links_max_payments", sql`max_payments is null or max_payments > 0`),
    check("payment_links_max_quantity", sql`max_quantity is null or max_quantity > 1`),
  ],
);

/**
 * Each order a link made, of whichever table its rail keeps (orders, onchain_orders), written in the
 * order's own transaction while the link's row is locked: what the N-payment limit counts, and what
 * the payer chose (quantity, the fields the link asked for) at the price of the link's version then.
 */
export const paymentLinkSales = pgTable(
  "payment_link_sales",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    linkId: uuid("link_id")
      .notNull()
      .references(() => paymentLinks.id),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    orderType: text("order_type", { enum: SALE_ORDER_TYPES }).notNull(),
    orderId: uuid("order_id").notNull(),
    valueCentavos: centavos("value_centavos").notNull(),
    quantity: integer("quantity").notNull().default(1),
    payer: jsonb("payer").$type<Partial<Record<PayerField, string>>>().notNull().default({}),
    linkVersion: integer("link_version").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("payment_link_sales_order").on(t.orderId),
    index("payment_link_sales_link_created").on(t.linkId, t.createdAt, t.id),
    check("payment_link_sales_order_type", inList("order_type", SALE_ORDER_TYPES)),
    check("payment_link_sales_quantity", sql`quantity > 0`),
  ],
);

export type PaymentLink = typeof paymentLinks.$inferSelect;
export type PaymentLinkSale = typeof paymentLinkSales.$inferSelect;
export type PaymentLinkStatus = (typeof PAYMENT_LINK_STATUSES)[number];
