import { z } from "zod";
import { WITHDRAWAL_KINDS, WITHDRAWAL_STATUSES } from "@/db/schema";
import {
  bodyObject,
  brlAmount,
  brlValue,
  centavosAmount,
  cryptoAmount,
  evmAddress,
  isoDateTime,
  metadataField,
  metadataView,
} from "@/lib/fields";
import { ASSETS } from "@/lib/chain/tokens";
import { withdrawalAddress } from "./destination";

/** Networks on-chain withdrawals go out on (docs/api.md#endpoints). */
export const WITHDRAW_NETWORKS = ["bsc", "polygon"] as const;

export const onchainWithdrawBody = bodyObject({
  toAddress: withdrawalAddress,
  /** BRL, as every `value` unless a field says otherwise (docs/api.md#amounts). */
  value: brlValue,
  token: z
    .unknown()
    .optional()
    .meta({ type: "string", enum: [...ASSETS], default: "USDT" }),
  // Checked against the allowed networks by the service; a bare z.unknown() would answer a missing
  // network with zod's "expected nonoptional".
  network: z
    .unknown()
    .refine((v) => v !== undefined, "is required (bsc or polygon)")
    .meta({ type: "string", enum: [...WITHDRAW_NETWORKS] }),
  metadata: metadataField,
});
export type OnchainWithdrawInput = z.output<typeof onchainWithdrawBody>;

export const pixOutBody = bodyObject({
  /** Centavos, a whole number > 0 (docs/api.md#amounts). */
  value: z
    .number({ error: (i) => (i.input === undefined ? "is required" : "must be a number of centavos") })
    .int("must be a whole number of centavos")
    .positive("must be greater than 0")
    .max(Number.MAX_SAFE_INTEGER, "is too large")
    .meta({ description: "Amount in centavos (100 = 1 BRL)" }),
  pixKey: z.string({ error: "must be a string" }).trim().min(1, "must not be empty").max(100).optional().meta({
    description: "CPF, CNPJ, e-mail, +55 phone or random (EVP) key; the merchant's registered key when omitted",
  }),
  metadata: metadataField,
});
export type PixOutInput = z.output<typeof pixOutBody>;

export const listWithdrawalsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

// Responses (both withdrawal responses also carry id and status: docs/api.md#endpoints). withdrawalView returns
// this type; kind-specific fields are present only for their kind.

export const withdrawalSchema = z
  .strictObject({
    id: z.uuid(),
    type: z.enum(WITHDRAWAL_KINDS),
    status: z.enum(WITHDRAWAL_STATUSES),
    value: brlAmount,
    amount: centavosAmount.meta({ description: "The value in centavos" }),
    fees: z.strictObject({
      service: brlAmount.meta({ description: "0.5% of value, BRL" }),
      network: brlAmount.meta({ description: "Gas quoted in BRL" }),
    }),
    totalDebited: brlAmount.meta({ description: "value + fees, BRL" }),
    network: z.enum(WITHDRAW_NETWORKS).optional().meta({ description: "On-chain only" }),
    token: z.enum(ASSETS).optional().meta({ description: "On-chain only" }),
    toAddress: evmAddress.optional().meta({ description: "On-chain only" }),
    tokenAmount: cryptoAmount.optional().meta({ description: "On-chain only: tokens sent, rounded down" }),
    transactionHash: z.string().optional().meta({ description: "On-chain only" }),
    pixKey: z.string().optional().meta({ description: "PIX-out only, masked" }),
    failureReason: z.string().optional(),
    waitingReason: z.string().optional().meta({
      description:
        "While PENDING: why it is not sent yet: its destination is new and waits for an owner's confirmation or the end of its hold (cancellable in the dashboard meanwhile), or, on-chain, the service's hot wallet cannot pay it now. It leaves by itself once it can; never failed for this",
    }),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    completedAt: isoDateTime.optional(),
    metadata: metadataView,
  })
  .meta({ id: "Withdrawal" });
export type WithdrawalView = z.infer<typeof withdrawalSchema>;

export const onchainWithdrawResponse = withdrawalSchema.extend({
  message: z.string(),
  transactionHash: z.string(),
  success: z.literal(true),
});
export const pixOutResponse = withdrawalSchema.extend({ message: z.string() });
export const getWithdrawalResponse = z.strictObject({ withdrawal: withdrawalSchema });
export const listWithdrawalsResponse = z.strictObject({
  withdrawals: z.array(withdrawalSchema),
  nextCursor: z.string().nullable(),
});
export type OnchainWithdrawResponse = z.infer<typeof onchainWithdrawResponse>;
export type PixOutResponse = z.infer<typeof pixOutResponse>;
