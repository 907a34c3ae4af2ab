import { sql } from "drizzle-orm";
import { privateKeyToAddress } from "viem/accounts";
import type { Tx } from "@/db";
import { depositAddresses } from "@/db/schema";
import { depositXpub, hotWalletKey } from "./config";
import { deriveDepositAddress } from "./hd";

/**
 * The hot wallet's address, when it can be told, to keep it out of the deposit addresses: the sandbox's
 * hot-wallet key is index 1 of the very test mnemonic its deposit xpub derives from, and a live
 * deployment may derive both from one seed too. A deposit paid into the hot wallet could not be told
 * from the wallet's own funds (nor swept or reconciled as a deposit).
 */
function hotWalletAddressOrNull(): string | null {
  try {
    return privateKeyToAddress(hotWalletKey()).toLowerCase();
  } catch {
    return null; // no hot wallet configured (a live deployment without withdrawals): nothing to avoid
  }
}

/**
 * Takes the next HD index from the one sequence shared by every kind of deposit and records it. A
 * sequence value is never handed out twice, even when the transaction later rolls back (the index is
 * then simply skipped), so an address is never reused on any network. An index whose address is the
 * hot wallet's is skipped the same way.
 */
export async function allocateDepositAddress(tx: Tx, ownerKind: "onchain_order" | "crypto_pix") {
  const hotWallet = hotWalletAddressOrNull();
  for (;;) {
    const [{ index }] = await tx.execute<{ index: string }>(sql`select nextval('wallet_index_seq')::text as index`);
    const walletIndex = Number(index);
    const address = deriveDepositAddress(depositXpub(), walletIndex);
    if (address.toLowerCase() === hotWallet) continue;
    await tx.insert(depositAddresses).values({ walletIndex, address, ownerKind });
    return { walletIndex, address };
  }
}
