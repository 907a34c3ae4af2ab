import "server-only";
import { eq } from "drizzle-orm";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { db } from "@/db";
import { merchants, type Merchant } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import { RETURN_TO_HEADER, signInUrl } from "./callback-url";
import { authOptions } from "./options";
import { userBelongsTo } from "./users";

export type SignedIn = { merchant: Merchant; userId: string; email: string };

/**
 * The signed-in user's merchant, read fresh from the database (balance, PIX key), or null. Cached
 * per request so a layout and its page share one lookup. A session whose user was removed or moved
 * to another merchant counts as signed out.
 */
export const currentMerchant = cache(async (): Promise<SignedIn | null> => {
  const session = await getServerSession(authOptions());
  const user = session?.user;
  if (!user?.merchantId || !user.id || !isUuid(user.merchantId) || !isUuid(user.id)) return null;
  if (!(await userBelongsTo(user.id, user.merchantId))) return null;
  const [merchant] = await db().select().from(merchants).where(eq(merchants.id, user.merchantId)).limit(1);
  return merchant ? { merchant, userId: user.id, email: user.email } : null;
});

/**
 * For pages and server actions: the signed-in merchant, or a redirect to the sign-in page that
 * brings the visitor back to the dashboard page they asked for.
 */
export async function requireMerchant(): Promise<SignedIn> {
  const signedIn = await currentMerchant();
  if (!signedIn) redirect(signInUrl((await headers()).get(RETURN_TO_HEADER)));
  return signedIn;
}
