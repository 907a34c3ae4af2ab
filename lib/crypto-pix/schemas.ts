import { z } from "zod";
import { isAddress } from "viem";
import { CHAIN_STATUSES, REFUND_STATUSES } from "@/db/schema";
import {
  bodyObject,
  brlAmount,
  brlValue,
  cryptoAmount,
  evmAddress,
  isoDateTime,
  metadataField,
  metadataView,
} from "@/lib/fields";
import { ASSETS } from "@/lib/chain/tokens";

/** Chains Crypto-PIX takes payment on (docs/api.md#endpoints). */
export const CRYPTO_PIX_NETWORKS = ["bsc", "eth"] as const;
/** …and Lightning (docs/providers.md#crypto-pix-over-lightning): a hold invoice, settled once the PIX is made. */
export const CRYPTO_PIX_ANY_NETWORKS = [...CRYPTO_PIX_NETWORKS, "lightning"] as const;
export const PAID_ASSETS = [...ASSETS, "BTC"] as const;
const payTo = z
  .string()
  .meta({ description: "Where to pay: the deposit address on a chain, or the BOLT11 invoice over Lightning" });

export const payCryptoPixBody = bodyObject({
  qrcode: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "must not be empty")
    .max(512, "is too long to be a PIX QR code"),
  // Checked by the service (resolveToken), which names the supported networks; see onchain/schemas.
  network: z
    .unknown()
    .optional()
    .meta({ type: "string", enum: [...CRYPTO_PIX_ANY_NETWORKS], clientRequired: true }),
  asset: z
    .unknown()
    .optional()
    .meta({ type: "string", enum: [...ASSETS], default: "USDT" }),
  /** BRL, required only when the BR Code carries no amount. */
  value: brlValue
    .optional()
    .meta({ description: "BRL; required only when the BR Code carries no amount, and must match it when it does" }),
  refundAddress: z
    .string({ error: "must be a string" })
    .refine((a) => isAddress(a, { strict: true }), "must be a valid EVM address (0x…, EIP-55 checksum if mixed-case)")
    .optional(),
  metadata: metadataField,
});
export type PayCryptoPixInput = z.output<typeof payCryptoPixBody>;

// Responses (docs/api.md#endpoints). The view and the handler return these types.

/**
 * Where a Crypto-PIX payment's hold invoice stands at the node (Lightning only): waiting for the payer,
 * the payer's sats held while the PIX is paid, being settled (the PIX was made) or cancelled (the sats
 * go back), and done.
 */
export const HOLD_INVOICE_STATUSES = [
  "OPEN",
  "HELD",
  "SETTLING",
  "SETTLE_FAILING",
  "CANCELLING",
  "SETTLED",
  "CANCELED",
] as const;
export type HoldInvoiceStatus = (typeof HOLD_INVOICE_STATUSES)[number];

const holdInvoiceSchema = z
  .strictObject({
    status: z.enum(HOLD_INVOICE_STATUSES).meta({
      description:
        "OPEN until the payer pays; HELD while the payer's sats are held and the PIX is paid; SETTLING once the PIX was made, until the node settles the invoice (SETTLE_FAILING while its last attempt failed: retried until it succeeds); CANCELLING / CANCELED when the sats go back; SETTLED when they are the merchant's",
    }),
    lastError: z
      .string()
      .nullable()
      .meta({ description: "The node's answer to the last settle or cancel that failed; null once one succeeded" }),
    attention: z.string().nullable().meta({
      description: "Set while an operator must act (a settle still failing after the PIX was made), with why",
    }),
    attentionSince: isoDateTime.nullable(),
    acceptHeight: z
      .number()
      .int()
      .nullable()
      .meta({ description: "Block height at which the node accepted the payer's HTLC" }),
    htlcExpiryHeight: z.number().int().nullable().meta({
      description:
        "Block height at which the payer's HTLC expires; the node gives the sats back some blocks before (invoices.holdexpirydelta)",
    }),
  })
  .meta({ id: "CryptoPixHoldInvoice" });

export const cryptoPixCreatedSchema = z
  .strictObject({
    pixKey: z.string().meta({ description: "The PIX key the BR Code pays" }),
    payCryptoPixId: z.string().meta({ description: "base64url id for GET /api/v1/crypto-pix/order/{id}" }),
    value: brlAmount,
    address: payTo,
    network: z.enum(CRYPTO_PIX_ANY_NETWORKS),
    asset: z.enum(PAID_ASSETS),
    tokenAddress: evmAddress.optional().meta({ description: "The token's contract; absent over Lightning" }),
    cryptoValue: cryptoAmount.meta({ description: "Tokens to send, rounded up to 6 decimals; BTC over Lightning" }),
    satoshis: z.string().optional().meta({ description: "Lightning only: the invoice's amount in satoshis" }),
    rate: z
      .number()
      .meta({ description: "BRL per token (per BTC over Lightning), fixed when the request was received" }),
    recipientName: z.string(),
    status: z.enum(CHAIN_STATUSES),
    expiresAt: isoDateTime,
    metadata: metadataView,
  })
  .meta({ id: "CryptoPixCreated", description: "Crypto-PIX pay result" });

export const cryptoPixSchema = z
  .strictObject({
    payCryptoPixId: z.string(),
    value: brlAmount,
    cryptoValue: cryptoAmount,
    updatedAt: isoDateTime,
    status: z.enum(CHAIN_STATUSES),
    network: z.enum(CRYPTO_PIX_ANY_NETWORKS),
    asset: z.enum(PAID_ASSETS),
    address: payTo,
    receivedValue: cryptoAmount,
    originalCryptoValue: cryptoAmount,
    partialUpdatedAt: isoDateTime.nullable(),
    partialBrlValue: brlAmount.nullable(),
    isPartial: z.boolean(),
    remaining: cryptoAmount,
    hash: z.string().meta({ description: "Transaction hash of the payer's transfer; empty until one arrives" }),
    btcQuote: z.number().meta({ description: "BRL per BTC over Lightning; always 0 on other networks" }),
    satoshis: z.string().optional().meta({ description: "Lightning only: the invoice's amount in satoshis" }),
    pixKey: z.string(),
    recipientName: z.string(),
    expiresAt: isoDateTime,
    createdAt: isoDateTime,
    refundStatus: z.enum(REFUND_STATUSES).optional().meta({
      description:
        "Present once a refund was decided: PENDING while its transaction is sent, COMPLETED when mined (the payment is then REFUNDED), FAILED when the chain refused it (an operator resolves it)",
    }),
    refundHash: z.string().optional().meta({ description: "The refund's transaction hash, once it is mined" }),
    failureReason: z.string().optional(),
    metadata: metadataView,
    holdInvoice: holdInvoiceSchema.optional().meta({
      description:
        "Lightning only, on the lookup: the hold invoice at the node, and whether its settlement is pending or failing",
    }),
  })
  .meta({ id: "CryptoPixPayment", description: "A Crypto-PIX payment; satoshis and holdInvoice only over Lightning" });
export type CryptoPixView = z.infer<typeof cryptoPixSchema>;

export const payCryptoPixResponse = z.strictObject({ data: cryptoPixCreatedSchema });
export type PayCryptoPixResponse = z.infer<typeof payCryptoPixResponse>;
