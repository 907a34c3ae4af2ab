import { z } from "zod";
import { bodyObject } from "@/lib/fields";
import { cryptoPixSchema } from "@/lib/crypto-pix/schemas";
import { Decimal } from "@/lib/money";
import { depositSchema } from "@/lib/onchain/schemas";
import { orderViewSchema } from "@/lib/orders/schemas";

// Sandbox helpers (docs/api.md#sandbox-helpers): the simulated token transfer they take, and what they answer.

const MAX_TRANSFER_AMOUNT = "1000000000000000"; // 10^15 tokens

export const transferBody = bodyObject({
  amount: z
    .union([z.number(), z.string()], { error: "must be a number or a decimal string" })
    .transform((v, ctx) => {
      const s = typeof v === "number" ? String(v) : v.trim();
      if (!/^\d+(\.\d+)?$/.test(s) || !new Decimal(s).gt(0)) {
        ctx.addIssue({ code: "custom", message: "must be a positive decimal amount of the token" });
        return z.NEVER;
      }
      // Amounts are stored as numeric(38,18): a larger one would overflow the column (a 500).
      if (new Decimal(s).gte(MAX_TRANSFER_AMOUNT)) {
        ctx.addIssue({ code: "custom", message: `must be below ${MAX_TRANSFER_AMOUNT} tokens` });
        return z.NEVER;
      }
      return new Decimal(s).toFixed();
    })
    .meta({
      description:
        "Tokens transferred: a positive decimal, as a number or a string (no more decimals than the token has)",
    }),
  txHash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex transaction hash")
    .optional()
    .meta({ description: "Random when omitted; the same hash twice counts once" }),
  from: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address")
    .optional()
    .meta({ description: "Payer address (refunds go here)" }),
  failPix: z
    .boolean({ error: "must be true or false" })
    .optional()
    .meta({ description: "Crypto-PIX only: make the PIX payout fail, so the crypto is refunded" }),
});
export type TransferInput = z.output<typeof transferBody>;

export const sandboxPayOrderResponse = z.strictObject({ order: orderViewSchema });
export const sandboxOnchainTransferResponse = z.strictObject({
  order: depositSchema,
  transfer: z.strictObject({
    txHash: z.string(),
    amount: z.number().meta({ description: "Tokens sent (decimal)" }),
    applied: z.number().meta({ description: "Tokens counted towards the order" }),
    unapplied: z.number().meta({ description: "Tokens beyond what was due, or after the order was final" }),
    duplicate: z.boolean().meta({ description: "True when this transfer had already been recorded" }),
  }),
});
export const sandboxCryptoPixTransferResponse = z.strictObject({
  payment: cryptoPixSchema,
  transfer: z.strictObject({
    txHash: z.string(),
    amount: z.number().meta({ description: "Tokens sent (decimal)" }),
    duplicate: z.boolean(),
  }),
});
export type SandboxPayOrderResponse = z.infer<typeof sandboxPayOrderResponse>;
export type SandboxOnchainTransferResponse = z.infer<typeof sandboxOnchainTransferResponse>;
export type SandboxCryptoPixTransferResponse = z.infer<typeof sandboxCryptoPixTransferResponse>;
