import { z } from "zod";
import { CHAIN_STATUSES, ORDER_STATUSES, REFUND_STATUSES } from "@/db/schema";
import { brlAmount, cryptoAmount, evmAddress, isoDateTime, urlField } from "@/lib/fields";
import { ASSETS, NETWORKS } from "@/lib/chain/tokens";
import { CRYPTO_PIX_ANY_NETWORKS, PAID_ASSETS } from "@/lib/crypto-pix/schemas";
import { publicInvoiceSchema } from "@/lib/invoice-state/schemas";

// The payer's view of a payment (docs/api.md#endpoints, /public/*): what to pay and how, nothing private to the merchant.
// publicPayment() returns these types; one variant per method, told apart by `method`.

const base = {
  paymentLinkId: z.string(),
  merchantName: z.string(),
  currency: z.literal("BRL"),
  value: brlAmount,
  createdAt: isoDateTime,
  paidAt: isoDateTime.nullable(),
  link: urlField,
  splits: z
    .array(
      z.strictObject({
        name: z.string().meta({ description: "The recipient's name" }),
        value: brlAmount.meta({ description: "Its part of the payment, BRL" }),
      }),
    )
    .optional()
    .meta({
      description:
        "Present only when the merchant chose to show splits on receipts (dashboard Settings → Payer's receipt) and the payment is split: who receives which part",
    }),
};
const qrContent = z.string().meta({ description: "What the QR code encodes" });
const refunded = z
  .strictObject({
    value: brlAmount.meta({ description: "BRL the merchant's refunds have returned so far" }),
    at: isoDateTime.meta({ description: "When the latest of them was concluded" }),
  })
  .optional()
  .meta({
    description:
      "Present only when the merchant refunded part or all of the payment (concluded refunds): to the account or wallet that paid",
  });
const orderBase = { ...base, status: z.enum(ORDER_STATUSES), expiresAt: isoDateTime.nullable(), refunded };

export const publicPaymentSchema = z
  .discriminatedUnion("method", [
    z.strictObject({
      ...orderBase,
      method: z.literal("pix"),
      payment: z.strictObject({
        brcode: z.string(),
        qrContent,
        recipientName: z.string().meta({
          description: "The name the payer's bank app shows as the recipient (the service's, not the shop's)",
        }),
      }),
      description: z.string().optional().meta({
        description:
          "What is being paid, as the merchant described it for the payer; present only when the order was created with one",
      }),
      returned: z.strictObject({ value: brlAmount, at: isoDateTime }).optional().meta({
        description:
          "Present only when the payer's bank had the payment returned (the Central Bank's MED): BRL returned, and when",
      }),
      invoice: publicInvoiceSchema.optional().meta({
        description:
          "Present only for an invoice with a due date: `value` is then what paying today takes, `expiresAt` the end of its last payable day",
      }),
    }),
    z.strictObject({
      ...orderBase,
      method: z.literal("lightning"),
      payment: z.strictObject({ invoice: z.string(), satoshis: z.int(), qrContent }),
    }),
    z.strictObject({
      ...orderBase,
      method: z.literal("exchange"),
      payment: z.strictObject({
        qrCodeLink: urlField,
        qrContent,
        checkoutUrl: urlField
          .optional()
          .meta({ description: "The exchange wallet's own checkout page, when it has one" }),
        deeplink: z
          .string()
          .optional()
          .meta({ description: "Opens the exchange wallet's app on the payment, when it has one" }),
      }),
    }),
    z.strictObject({
      ...base,
      method: z.literal("onchain"),
      status: z.enum(CHAIN_STATUSES),
      expiresAt: isoDateTime,
      payment: z.strictObject({
        address: evmAddress,
        network: z.enum(NETWORKS),
        asset: z.enum(ASSETS),
        tokenAddress: evmAddress,
        amount: cryptoAmount,
        received: cryptoAmount,
        remaining: cryptoAmount,
        unapplied: cryptoAmount.meta({
          description:
            "Tokens that arrived beyond the amount or after the order was final: held for the merchant to return or accept",
        }),
        unappliedResolutions: z
          .array(
            z.strictObject({
              kind: z.enum(["accept", "return"]),
              status: z.enum(REFUND_STATUSES),
              amount: cryptoAmount.meta({ description: "The unapplied tokens this covers" }),
              sent: cryptoAmount
                .optional()
                .meta({ description: "A return: the tokens the payer receives, the network fee deducted" }),
              txHash: z.string().optional().meta({ description: "The return's transaction, once mined" }),
            }),
          )
          .meta({
            description:
              "What the merchant did with unapplied tokens: accepted them as payment, or is returning them (PENDING until mined; FAILED: being handled)",
          }),
        qrContent: qrContent.meta({ description: "EIP-681 transfer URI" }),
      }),
      final: z
        .boolean()
        .meta({ description: "True once the order can take no more payment (completed, or closed at its expiry)" }),
    }),
  ])
  .meta({ id: "PublicPayment" });
export type PublicPayment = z.infer<typeof publicPaymentSchema>;

export const publicPaymentResponse = z.strictObject({ payment: publicPaymentSchema });

/**
 * A Crypto-PIX payment as its payer sees it (/pay/crypto-pix/{payCryptoPixId}): the PIX being paid
 * (recipient, masked key, BRL), what to send and where, how much arrived, and the refund of money
 * that did not pay it. Nothing private to the merchant.
 */
export const publicCryptoPixSchema = z
  .strictObject({
    payCryptoPixId: z.string(),
    merchantName: z.string(),
    status: z.enum(CHAIN_STATUSES),
    value: brlAmount.meta({ description: "The PIX being paid, BRL" }),
    currency: z.literal("BRL"),
    recipientName: z.string(),
    recipientCity: z.string(),
    pixKey: z.string().meta({ description: "The recipient's PIX key, masked" }),
    createdAt: isoDateTime,
    expiresAt: isoDateTime,
    paidAt: isoDateTime.nullable(),
    link: urlField,
    payment: z.strictObject({
      network: z.enum(CRYPTO_PIX_ANY_NETWORKS),
      asset: z.enum(PAID_ASSETS),
      address: z.string().meta({ description: "The deposit address, or over Lightning the invoice" }),
      tokenAddress: evmAddress.optional(),
      amount: cryptoAmount,
      received: cryptoAmount,
      remaining: cryptoAmount,
      satoshis: z.int().optional().meta({ description: "Over Lightning only" }),
      qrContent: qrContent.meta({ description: "EIP-681 transfer URI, or lightning: invoice" }),
    }),
    txHash: z.string().optional().meta({ description: "The transfer that paid it, once paid on a chain" }),
    refund: z
      .strictObject({ status: z.enum(REFUND_STATUSES), amount: cryptoAmount, txHash: z.string().optional() })
      .optional()
      .meta({
        description: "Money sent back to the payer: a partial payment at expiry, or a PIX that could not be sent",
      }),
  })
  .meta({ id: "PublicCryptoPixPayment" });
export type PublicCryptoPix = z.infer<typeof publicCryptoPixSchema>;

export const publicCryptoPixResponse = z.strictObject({ payment: publicCryptoPixSchema });
