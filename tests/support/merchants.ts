import { db } from "@/db";
import { apiKeys } from "@/db/schema";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import { seedMerchant } from "../helpers";

/** A fresh merchant with a live API key (for a server in live mode), and `balanceCentavos` to spend. */
export async function liveMerchant(balanceCentavos = 0) {
  const { merchant } = await seedMerchant({ balanceCentavos });
  const key = generateApiKey("live");
  await db()
    .insert(apiKeys)
    .values({ merchantId: merchant.id, name: "live", prefix: key.prefix, keyHash: key.hash, mode: "live" });
  return { merchant, apiKey: key.key };
}
