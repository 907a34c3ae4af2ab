import { z } from "zod";
import { CHAIN_STATUSES, ORDER_STATUSES } from "@/db/schema";
import { brlAmount, cryptoAmount, evmAddress, isoDateTime, urlField } from "@/lib/fields";
import { ASSETS, NETWORKS } from "@/lib/chain/tokens";

// The payer's view of a payment (CONTRACT §9): what to pay and how, nothing private to the merchant.
// publicPayment() returns these types; one variant per method, told apart by `method`.

const base = {
  paymentLinkId: z.string(),
  merchantName: z.string(),
  currency: z.literal("BRL"),
  value: brlAmount,
  createdAt: isoDateTime,
  paidAt: isoDateTime.nullable(),
  link: urlField,
};
const qrContent = z.string().meta({ description: "What the QR code encodes" });
const orderBase = { ...base, status: z.enum(ORDER_STATUSES), expiresAt: isoDateTime.nullable() };

export const publicPaymentSchema = z
  .discriminatedUnion("method", [
    z.strictObject({ ...orderBase, method: z.literal("pix"), payment: z.strictObject({ brcode: z.string(), qrContent }) }),
    z.strictObject({ ...orderBase, method: z.literal("lightning"), payment: z.strictObject({ invoice: z.string(), satoshis: z.int(), qrContent }) }),
    z.strictObject({
      ...orderBase,
      method: z.literal("exchange"),
      payment: z.strictObject({
        qrCodeLink: urlField,
        qrContent,
        checkoutUrl: urlField.optional().meta({ description: "The exchange wallet's own checkout page, when it has one" }),
        deeplink: z.string().optional().meta({ description: "Opens the exchange wallet's app on the payment, when it has one" }),
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
        qrContent: qrContent.meta({ description: "EIP-681 transfer URI" }),
      }),
    }),
  ])
  .meta({ id: "PublicPayment" });
export type PublicPayment = z.infer<typeof publicPaymentSchema>;

export const publicPaymentResponse = z.strictObject({ payment: publicPaymentSchema });
