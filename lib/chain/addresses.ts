import { sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { depositAddresses } from "@/db/schema";
import { depositXpub } from "./config";
import { deriveDepositAddress } from "./hd";

/**
 * Takes the next HD index from the one sequence shared by every kind of deposit and records it. A
 * sequence value is never handed out twice, even when the transaction later rolls back (the index is
 * then simply skipped), so an address is never reused on any network.
 */
export async function allocateDepositAddress(tx: Tx, ownerKind: "onchain_order" | "crypto_pix") {
  const [{ index }] = await tx.execute<{ index: string }>(sql`select nextval('wallet_index_seq')::text as index`);
  const walletIndex = Number(index);
  const address = deriveDepositAddress(depositXpub(), walletIndex);
  await tx.insert(depositAddresses).values({ walletIndex, address, ownerKind });
  return { walletIndex, address };
}
