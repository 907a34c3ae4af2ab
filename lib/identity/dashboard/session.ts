import "server-only";
import { eq } from "drizzle-orm";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { db } from "@/db";
import { merchants, users, type Merchant, type UserRole } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import type { Actor } from "@/lib/identity/audit";
import { factorHeldUntil } from "@/lib/identity/factor-hold";
import { can, type Permission } from "@/lib/identity/roles";
import { liveSession, stepUpIsFresh } from "@/lib/identity/sessions";
import { RETURN_TO_HEADER, signInUrl } from "./callback-url";
import { addressOf } from "./request-address";
import { authOptions } from "./options";

export type SignedIn = {
  merchant: Merchant;
  userId: string;
  email: string;
  role: UserRole;
  sessionId: string;
  /** The user has a second factor enrolled. */
  twoFactor: boolean;
  /** This session proved a second factor within the last STEP_UP_MINUTES (never one enrolled on it). */
  stepUpFresh: boolean;
  /** The factor was enrolled on this session: no code counts as a step-up here (lib/identity/sessions.ts). */
  factorEnrolledHere: boolean;
  /** The user's factor changed recently and no other owner has confirmed it (lib/identity/factor-hold.ts). */
  factorHeldUntil: Date | null;
  ip: string;
};

/**
 * The signed-in user and their merchant, read fresh from the database (balance, PIX key, role), or
 * null. Cached per request so a layout and its page share one lookup. A cookie whose session row
 * was revoked or expired, or whose user was removed or moved to another merchant, counts as signed out.
 */
export const currentMerchant = cache(async (): Promise<SignedIn | null> => {
  const session = await getServerSession(authOptions());
  const claimed = session?.user;
  if (
    !claimed?.merchantId ||
    !claimed.id ||
    !claimed.sessionId ||
    !isUuid(claimed.merchantId) ||
    !isUuid(claimed.id) ||
    !isUuid(claimed.sessionId)
  )
    return null;
  const row = await liveSession(claimed.sessionId, claimed.id);
  if (!row) return null;
  const [found] = await db()
    .select({ user: users, merchant: merchants })
    .from(users)
    .innerJoin(merchants, eq(merchants.id, users.merchantId))
    .where(eq(users.id, claimed.id))
    .limit(1);
  if (!found || found.user.merchantId !== claimed.merchantId) return null;
  return {
    merchant: found.merchant,
    userId: found.user.id,
    email: found.user.email,
    role: found.user.role,
    sessionId: row.id,
    twoFactor: found.user.totpEnabledAt !== null,
    stepUpFresh: found.user.totpEnabledAt !== null && stepUpIsFresh(row),
    factorEnrolledHere: row.factorEnrolledAt !== null,
    factorHeldUntil: factorHeldUntil(found.user),
    ip: addressOf(await headers()),
  };
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

/** For pages a role may not open: the same 404 as a page that does not exist. */
export async function requirePermission(permission: Permission): Promise<SignedIn> {
  const signedIn = await requireMerchant();
  if (!can(signedIn.role, permission)) notFound();
  return signedIn;
}

export function actorOf(s: SignedIn): Actor {
  return { merchantId: s.merchant.id, userId: s.userId, email: s.email, ip: s.ip };
}
