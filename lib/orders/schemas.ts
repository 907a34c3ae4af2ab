import { z } from "zod";
import { ORDER_KINDS, ORDER_STATUSES, REFUND_STATUSES } from "@/db/schema";
import { messageError } from "@/lib/http/error-body";
import {
  bodyObject,
  brlAmount,
  brlValue,
  cnpjField,
  cpfField,
  emailField,
  isoDateTime,
  metadataField,
  metadataView,
  optionalText,
  urlField,
} from "@/lib/fields";
import { splitsField, splitsView } from "@/lib/splits/schemas";

export const createPixOrderBody = bodyObject({
  value: brlValue,
  orderRequest: optionalText(),
  merchant: optionalText(),
  orderId: optionalText(),
  description: optionalText(140).meta({
    description: "What is being paid, for the payer: shown on the payment page (the other references are not)",
  }),
  name: optionalText(),
  cnpj: cnpjField,
  cpf: cpfField,
  /** Optional expiry in seconds; a PIX code does not expire by default (docs/api.md#states-expiry-and-money). */
  expiresIn: z
    .number({ error: "must be a whole number of seconds" })
    .int("must be a whole number of seconds")
    .min(60, "must be at least 60 seconds")
    .max(60 * 60 * 24 * 365, "must be at most one year")
    .optional()
    .meta({ description: "Seconds until the order expires (60 to one year); none by default" }),
  metadata: metadataField,
  splits: splitsField,
});
export type CreatePixOrderInput = z.output<typeof createPixOrderBody>;

export const createExchangeOrderBody = bodyObject({
  value: brlValue,
  payerId: optionalText(),
  merchant: z
    .object({ subMerchantId: optionalText() }, { error: "must be an object like { subMerchantId }" })
    .optional(),
  metadata: metadataField,
  splits: splitsField,
});
export type CreateExchangeOrderInput = z.output<typeof createExchangeOrderBody>;

export const createLightningOrderBody = bodyObject({
  value: brlValue,
  email: emailField,
  name: optionalText(),
  metadata: metadataField,
  splits: splitsField,
});
export type CreateLightningOrderInput = z.output<typeof createLightningOrderBody>;

// Responses (docs/api.md#endpoints). The views in ./views return these types, so a view that drifts from its
// schema fails to compile; the OpenAPI document is generated from the same schemas.

const orderStatus = z.enum(ORDER_STATUSES);

/** The references the create request carried (orderId, orderRequest, merchant, name, cpf, …), as sent. */
export const orderReferenceView = z.record(z.string(), z.string()).meta({
  description:
    "The references sent at creation, under their request names (PIX: orderRequest, merchant, orderId, name, cpf, cnpj, description; exchange wallet: payerId, subMerchantId; Lightning: email, name); {} when none was",
  example: { orderId: "sale-1001" },
});
/** What every view of an order adds to the spec's fields: the merchant's own reference, metadata and split. */
const merchantOwn = { reference: orderReferenceView, metadata: metadataView, splits: splitsView };

export const orderViewSchema = z
  .strictObject({
    id: z.uuid(),
    paymentLinkId: z.string(),
    type: z.enum(ORDER_KINDS),
    value: brlAmount,
    status: orderStatus,
    createdAt: isoDateTime,
    brcode: z.string().optional().meta({ description: "PIX BR Code; present only for PIX orders" }),
    qrCodeLink: urlField.optional().meta({ description: "QR-code PNG; present only for exchange-wallet orders" }),
    invoice: z.string().optional().meta({ description: "BOLT11 invoice; present only for Lightning orders" }),
    satoshis: z.int().optional().meta({ description: "Amount to pay in satoshis; present only for Lightning orders" }),
    link: urlField.meta({ description: "Hosted checkout for the payer" }),
    expiresAt: isoDateTime.optional(),
    paidAt: isoDateTime.optional(),
    ...merchantOwn,
  })
  .meta({ id: "Order", description: "An order as the generic lookup shows it" });
export type OrderView = z.infer<typeof orderViewSchema>;

export const pixOrderSchema = z
  .strictObject({
    provider: z.string(),
    hash: z.string(),
    merchant: z.uuid(),
    value: brlAmount,
    status: orderStatus,
    currency: z.literal("BRL"),
    universalUrl: urlField,
    removedAt: z.null(),
    _id: z.uuid(),
    paymentLinkId: z.string(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    __v: z.int(),
    expiresAt: isoDateTime.optional().meta({ description: "Present only when the order was created with expiresIn" }),
    ...merchantOwn,
  })
  .meta({ id: "PixOrder", description: "The PIX order as created" });
export type PixOrderView = z.infer<typeof pixOrderSchema>;

const createdOrderBase = {
  id: z.uuid(),
  paymentLinkId: z.string(),
  value: brlAmount,
  status: orderStatus,
  link: urlField,
  createdAt: isoDateTime,
  expiresAt: isoDateTime.optional(),
  ...merchantOwn,
};

export const exchangeOrderSchema = z
  .strictObject({
    ...createdOrderBase,
    qrCodeLink: urlField.meta({ description: "QR-code PNG for the payer's exchange wallet" }),
  })
  .meta({ id: "ExchangeOrder", description: "An exchange-wallet order as created" });
export type ExchangeOrderView = z.infer<typeof exchangeOrderSchema>;

export const lightningOrderSchema = z
  .strictObject({
    ...createdOrderBase,
    invoice: z.string().meta({ description: "BOLT11 invoice" }),
    satoshis: z.int().meta({ description: "The exact amount to pay, in satoshis" }),
  })
  .meta({ id: "LightningOrder", description: "A Lightning invoice as created; value is BRL" });
export type LightningOrderView = z.infer<typeof lightningOrderSchema>;

/** `providerDetails`: the Lightning provider's view of the invoice. */
export const lightningProviderDetailsSchema = z
  .strictObject({
    success: z.boolean(),
    data: z.strictObject({
      id: z.string(),
      name: z.string().nullable(),
      status: z.string(),
      currency: z.string(),
      created_at: z.number().meta({ description: "Seconds since the epoch" }),
      fee: z.number(),
      notes: z.string(),
      address: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      fiat_value: brlAmount,
      amount: z.number().meta({ description: "Satoshis" }),
      description: z.string(),
      auto_settle: z.boolean(),
      transactions: z.array(z.unknown()),
    }),
  })
  .meta({ id: "LightningProviderDetails" });

export const createPixOrderResponse = z.strictObject({
  message: z.string(),
  pixOrder: pixOrderSchema,
  qrCode: z.string().meta({ description: "PIX BR Code (copy and paste)" }),
});
export const createExchangeOrderResponse = z.strictObject({ message: z.string(), order: exchangeOrderSchema });
export const createLightningOrderResponse = z.strictObject({ message: z.string(), order: lightningOrderSchema });
/**
 * One refund of a PIX or exchange-wallet order, as its 201 and the order lookup show it (docs/api.md#refunds).
 * Defined here because the lookup lists them; lib/refunds requests and decides them.
 */
export const refundViewSchema = z
  .strictObject({
    id: z.uuid(),
    orderId: z.uuid(),
    value: brlAmount,
    status: z.enum(REFUND_STATUSES).meta({
      description:
        "PENDING until the provider decides; COMPLETED: the money went back; FAILED: it did not, and the balance was credited back",
    }),
    createdAt: isoDateTime,
    metadata: metadataView,
  })
  .meta({ id: "Refund" });
export type RefundView = z.infer<typeof refundViewSchema>;

export const getOrderResponse = z.strictObject({
  message: z.string(),
  order: orderViewSchema,
  providerDetails: lightningProviderDetailsSchema.optional().meta({ description: "Present only for Lightning orders" }),
  refunds: z.array(refundViewSchema).meta({ description: "The order's refunds, oldest first; [] when it has none" }),
});
export type CreatePixOrderResponse = z.infer<typeof createPixOrderResponse>;
export type CreateExchangeOrderResponse = z.infer<typeof createExchangeOrderResponse>;
export type CreateLightningOrderResponse = z.infer<typeof createLightningOrderResponse>;
export type GetOrderResponse = z.infer<typeof getOrderResponse>;

/** Create-PIX's 400 adds `details` when the merchant has no PIX key to be paid out to. */
export const createPixOrderError = messageError.extend({
  details: z.strictObject({ pixKey: z.string().nullable(), identifier: z.string() }).optional(),
});

export const ORDER_LIST_TYPES = ["pix", "exchange", "lightning", "onchain", "crypto_pix"] as const;
export type OrderListType = (typeof ORDER_LIST_TYPES)[number];
/** Every status of every kind of order: general orders and on-chain/Crypto-PIX share PENDING, COMPLETED, FAILED. */
export const ANY_ORDER_STATUSES = [
  "PENDING",
  "COMPLETED",
  "CANCELLED",
  "FAILED",
  "REFUND",
  "REFUNDED",
  "PARTIAL_ORDER",
] as const;
export type AnyOrderStatus = (typeof ANY_ORDER_STATUSES)[number];

export const listOrdersQuery = z.object({
  type: z.enum(ORDER_LIST_TYPES, { error: `must be one of ${ORDER_LIST_TYPES.join(", ")}` }).optional(),
  status: z.enum(ANY_ORDER_STATUSES, { error: "is not a known status" }).optional(),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
  q: z.string().trim().max(100).optional().meta({
    description:
      "Search: part of the client's references (orderId, name, CPF/CNPJ masked or bare, e-mail, payer id; 3+ characters), the beginning of an id (6+ hex digits), a payment link id, a payCryptoPixId, or an amount (25,90 or 25.90)",
  }),
});
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

export const orderListItemSchema = z.strictObject({
  id: z.uuid(),
  type: z.enum(ORDER_LIST_TYPES),
  paymentLinkId: z.string().nullable(),
  status: z.enum(ANY_ORDER_STATUSES),
  value: brlAmount,
  createdAt: isoDateTime,
  link: urlField.optional(),
  payCryptoPixId: z
    .string()
    .optional()
    .meta({ description: "Present only for Crypto-PIX payments: the id GET /api/v1/crypto-pix/order/{id} takes" }),
  reference: orderReferenceView.optional().meta({
    description: "The references sent at creation; present only for PIX, exchange-wallet and Lightning orders",
  }),
  metadata: metadataView,
  splits: splitsView,
});
export const listOrdersResponse = z.strictObject({
  orders: z.array(orderListItemSchema),
  nextCursor: z.string().nullable(),
});
export type OrderList = z.infer<typeof listOrdersResponse>;
