import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { securityLinks } from "@/db/schema";
import { hashLinkToken, isLinkToken, newLinkToken } from "./tokens";

// Links mailed to a merchant's owners to confirm a change that could move money elsewhere (a second
// factor enrolled or removed, a withdrawal destination used for the first time): whoever holds the
// owners' mailbox can release the hold without signing in, once, within LINK_HOURS. Only the token's
// SHA-256 is stored (lib/identity/tokens.ts).

export type SecurityLinkKind = (typeof securityLinks.$inferSelect)["kind"];

/** How long a mailed confirmation link works (the mail says so). */
export const LINK_HOURS = 48;

/** A new link for `subjectId` (the user whose factor changed, the destination's id); the token goes in the mail, never in the database. */
export async function createSecurityLink(
  merchantId: string,
  kind: SecurityLinkKind,
  subjectId: string,
  ex: Executor = db(),
): Promise<string> {
  const { token, hash } = newLinkToken();
  await ex.insert(securityLinks).values({
    merchantId,
    kind,
    subjectId,
    tokenHash: hash,
    expiresAt: sql`now() + make_interval(hours => ${LINK_HOURS})`,
  });
  return token;
}

/**
 * Spends a link: what it confirms, or null when the token is unknown, used or expired. Spent in the
 * caller's transaction, so the confirmation it leads to commits with it or not at all.
 */
export async function consumeSecurityLink(
  token: unknown,
  ex: Executor = db(),
): Promise<{ merchantId: string; kind: SecurityLinkKind; subjectId: string } | null> {
  if (!isLinkToken(token)) return null;
  const [row] = await ex
    .update(securityLinks)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(securityLinks.tokenHash, hashLinkToken(token)),
        isNull(securityLinks.usedAt),
        gt(securityLinks.expiresAt, sql`now()`),
      ),
    )
    .returning({ merchantId: securityLinks.merchantId, kind: securityLinks.kind, subjectId: securityLinks.subjectId });
  return row ?? null;
}
