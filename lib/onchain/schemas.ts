import { z } from "zod";
import { CHAIN_STATUSES } from "@/db/schema";
import { messageError } from "@/lib/http/error-body";
import {
  bodyObject,
  brlAmount,
  brlValue,
  cryptoAmount,
  evmAddress,
  isoDateTime,
  metadataFieldOf,
  urlField,
} from "@/lib/fields";
import { ASSETS, NETWORKS } from "@/lib/chain/tokens";
import { splitsField, splitsView } from "@/lib/splits/schemas";

// network and asset are checked by the service, not here: the spec answers an unsupported network
// with its own body (`supportedNetworks`), which a schema error could not carry.
/**
 * The keys the lookup's `metadata` (a spec field) holds for the service; a deposit's own metadata sits
 * beside them in the same object, so these four are refused on the request.
 */
export const DEPOSIT_METADATA_KEYS = ["orderId", "tokenAddress", "network", "walletIndex"] as const;

/** The lookup's `metadata`: the spec's four keys, and the metadata sent at creation beside them. */
const depositMetadata = z
  .object({
    orderId: z.uuid(),
    tokenAddress: evmAddress,
    network: z.enum(NETWORKS),
    walletIndex: z.int().min(0),
  })
  // Every key beside the four is the merchant's, a string; the union only lets walletIndex's type through.
  .catchall(z.union([z.string(), z.int()]))
  .meta({
    description:
      "The service's orderId (this deposit's id), tokenAddress, network and walletIndex, and beside them the metadata sent at creation",
  });

export const createDepositBody = bodyObject({
  value: brlValue,
  // optional(): a missing field must reach the service, which answers it like any unsupported
  // value (zod 4 treats a bare z.unknown() key as required and would answer a generic error).
  asset: z
    .unknown()
    .optional()
    .meta({
      type: "string",
      enum: [...ASSETS],
      clientRequired: true,
      description: "Token to receive (no BUSD on polygon)",
    }),
  network: z
    .unknown()
    .optional()
    .meta({ type: "string", enum: [...NETWORKS], clientRequired: true }),
  metadata: metadataFieldOf(DEPOSIT_METADATA_KEYS),
  splits: splitsField,
});
export type CreateDepositInput = z.output<typeof createDepositBody>;

// Responses (docs/api.md#endpoints). The views return these types; the OpenAPI document uses the same schemas.

const chainStatus = z.enum(CHAIN_STATUSES);

export const depositCreatedSchema = z
  .strictObject({
    address: evmAddress.meta({ description: "Deposit address, unique to this order" }),
    paymentLinkId: z.string(),
    network: z.enum(NETWORKS),
    asset: z.enum(ASSETS),
    amount: cryptoAmount.meta({ description: "Tokens to send, rounded up to 6 decimals; the rate is fixed" }),
    id: z.uuid(),
    value: brlAmount,
    status: chainStatus,
    rate: z.number().meta({ description: "BRL per token, fixed at creation" }),
    tokenAddress: evmAddress.meta({ description: "Token contract" }),
    link: urlField,
    expiresAt: isoDateTime,
    metadata: depositMetadata,
    splits: splitsView,
  })
  .meta({ id: "DepositCreated", description: "An on-chain deposit order as created" });
export type DepositCreatedView = z.infer<typeof depositCreatedSchema>;

export const depositSchema = z
  .strictObject({
    id: z.uuid(),
    network: z.enum(NETWORKS),
    value: brlAmount,
    cryptoValue: cryptoAmount,
    address: evmAddress,
    asset: z.enum(ASSETS),
    status: chainStatus,
    metadata: depositMetadata,
    paymentLinkId: z.string(),
    createdAt: isoDateTime,
    receivedValue: cryptoAmount.meta({ description: "Tokens received so far" }),
    remaining: cryptoAmount.meta({ description: "Tokens still due" }),
    unappliedValue: cryptoAmount.meta({
      description: "Tokens received beyond what was due, or after the order was final",
    }),
    creditedValue: brlAmount.meta({ description: "BRL credited to the balance" }),
    rate: z.number().meta({ description: "BRL per token, fixed at creation" }),
    link: urlField,
    expiresAt: isoDateTime,
    final: z.boolean().meta({ description: "True once the order can no longer change" }),
    splits: splitsView,
  })
  .meta({ id: "Deposit", description: "An on-chain deposit order as the lookup shows it" });
export type DepositView = z.infer<typeof depositSchema>;

export const createDepositResponse = z.strictObject({ order: depositCreatedSchema });
export const getDepositResponse = z.strictObject({ order: depositSchema });
export type CreateDepositResponse = z.infer<typeof createDepositResponse>;
export type GetDepositResponse = z.infer<typeof getDepositResponse>;

/** The deposit's 400 (docs/api.md#error-bodies) for an unsupported network lists the supported ones. */
export const createDepositError = messageError.extend({ supportedNetworks: z.array(z.enum(NETWORKS)).optional() });
