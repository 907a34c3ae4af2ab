import { z } from "zod";
import { isAddress } from "viem";
import { CHAIN_STATUSES, REFUND_STATUSES } from "@/db/schema";
import { bodyObject, brlAmount, brlValue, cryptoAmount, evmAddress, isoDateTime } from "@/lib/fields";
import { ASSETS } from "@/lib/chain/tokens";

/** Networks Crypto-PIX takes payment on (spec §4.6). */
export const CRYPTO_PIX_NETWORKS = ["bsc", "eth"] as const;

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
    .meta({ type: "string", enum: [...CRYPTO_PIX_NETWORKS], clientRequired: true }),
  asset: z
    .unknown()
    .optional()
    .meta({ type: "string", enum: [...ASSETS], default: "USDT" }),
  /** BRL, required only when the BR Code carries no amount. */
  value: brlValue.optional().meta({ description: "BRL; required only when the BR Code carries no amount, and must match it when it does" }),
  refundAddress: z
    .string({ error: "must be a string" })
    .refine((a) => isAddress(a, { strict: true }), "must be a valid EVM address (0x…, EIP-55 checksum if mixed-case)")
    .optional(),
});
export type PayCryptoPixInput = z.output<typeof payCryptoPixBody>;

// Responses (spec §2.6, §2.7). The view and the handler return these types.

export const cryptoPixCreatedSchema = z
  .strictObject({
    pixKey: z.string().meta({ description: "The PIX key the BR Code pays" }),
    payCryptoPixId: z.string().meta({ description: "base64url id for GET /api/v1/crypto-pix/order/{id}" }),
    value: brlAmount,
    address: evmAddress.meta({ description: "Send the crypto here" }),
    network: z.enum(CRYPTO_PIX_NETWORKS),
    asset: z.enum(ASSETS),
    tokenAddress: evmAddress,
    cryptoValue: cryptoAmount.meta({ description: "Tokens to send, rounded up to 6 decimals" }),
    rate: z.number().meta({ description: "BRL per token, fixed when the request was received" }),
    recipientName: z.string(),
    status: z.enum(CHAIN_STATUSES),
    expiresAt: isoDateTime,
  })
  .meta({ id: "CryptoPixCreated", description: "Crypto-PIX pay result (spec §2.7)" });

export const cryptoPixSchema = z
  .strictObject({
    payCryptoPixId: z.string(),
    value: brlAmount,
    cryptoValue: cryptoAmount,
    updatedAt: isoDateTime,
    status: z.enum(CHAIN_STATUSES),
    network: z.enum(CRYPTO_PIX_NETWORKS),
    asset: z.enum(ASSETS),
    address: evmAddress,
    receivedValue: cryptoAmount,
    originalCryptoValue: cryptoAmount,
    partialUpdatedAt: isoDateTime.nullable(),
    partialBrlValue: brlAmount.nullable(),
    isPartial: z.boolean(),
    remaining: cryptoAmount,
    hash: z.string().meta({ description: "Transaction hash of the payer's transfer; empty until one arrives" }),
    btcQuote: z.number().meta({ description: "Always 0 outside Lightning" }),
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
  })
  .meta({ id: "CryptoPixPayment", description: "A Crypto-PIX payment (spec §2.6); satoshis is Lightning-only and omitted" });
export type CryptoPixView = z.infer<typeof cryptoPixSchema>;

export const payCryptoPixResponse = z.strictObject({ data: cryptoPixCreatedSchema });
export type PayCryptoPixResponse = z.infer<typeof payCryptoPixResponse>;
