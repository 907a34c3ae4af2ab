import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { merchants, securityLinks, users } from "@/db/schema";
import { env, publicBaseUrl } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { formatDateTime, translate, type Locale } from "@/lib/i18n";
import { sendMail } from "@/lib/mail/mailer";
import { factorConfirmMail } from "@/lib/mail/messages";
import { alertAdmins } from "./alerts";
import { audit, type Actor } from "./audit";
import { confirmFactorChange, factorHeldUntil } from "./factor-hold";
import { consumeSecurityLink, createSecurityLink } from "./links";
import { hashLinkToken, isLinkToken } from "./tokens";

// What follows a second factor enrolled or removed: every owner and admin is alerted, and the owners
// who can vouch for the member get a link that confirms the change (lib/identity/links.ts), which
// lifts the member's hold (lib/identity/factor-hold.ts) without signing in.

export type FactorChange = "enrolled" | "removed";

/** How long a mailed link works: lib/identity/links.ts issues them for 48 hours. */
const LINK_HOURS = 48;

/**
 * Who gets the confirmation link: the merchant's owners but the member and any owner whose own
 * factor is on hold (a taken-over owner must not vouch for an accomplice). A sole owner vouching for
 * themselves gets it too: nobody else could, and the mailbox was already needed to enrol.
 */
async function confirmers(merchantId: string, subjectId: string): Promise<{ id: string; email: string }[]> {
  const owners = await db()
    .select()
    .from(users)
    .where(and(eq(users.merchantId, merchantId), eq(users.role, "owner")));
  const others = owners.filter((o) => o.id !== subjectId && factorHeldUntil(o) === null);
  if (others.length > 0) return others;
  return owners.filter((o) => o.id === subjectId);
}

/** Links for an earlier change of this member stop working: they must not confirm this one. */
export async function retireFactorLinks(subjectId: string, ex: Executor): Promise<void> {
  await ex
    .update(securityLinks)
    .set({ expiresAt: sql`now()` })
    .where(
      and(
        eq(securityLinks.kind, "factor_change"),
        eq(securityLinks.subjectId, subjectId),
        isNull(securityLinks.usedAt),
        gt(securityLinks.expiresAt, sql`now()`),
      ),
    );
}

/** Alerts the owners and admins, and mails the confirmation link when the change starts a hold. */
export async function announceFactorChange(
  actor: Actor & { merchantId: string; userId: string },
  change: FactorChange,
  locale: Locale,
): Promise<void> {
  await alertAdmins(actor, change === "enrolled" ? "factorEnrolled" : "factorRemoved", actor.email, locale);
  if (change !== "enrolled") return;
  const [subject] = await db().select().from(users).where(eq(users.id, actor.userId)).limit(1);
  const until = subject ? factorHeldUntil(subject) : null;
  if (!until) return;
  const [merchant] = await db()
    .select({ companyName: merchants.companyName })
    .from(merchants)
    .where(eq(merchants.id, actor.merchantId))
    .limit(1);
  for (const owner of await confirmers(actor.merchantId, actor.userId)) {
    const token = await createSecurityLink(actor.merchantId, "factor_change", actor.userId);
    const text = factorConfirmMail(locale, {
      company: merchant?.companyName ?? "",
      member: actor.email,
      what: translate(locale, "mail.factorConfirm.enrolled"),
      until: formatDateTime(until, locale),
      link: `${publicBaseUrl()}/confirm-factor?token=${token}`,
      hours: LINK_HOURS,
    });
    await sendMail({ ...text, to: owner.email, merchantId: actor.merchantId });
  }
}

/** What a live confirmation link is about, for the page that asks before spending it; null when it is not one. */
export async function openFactorLink(
  token: unknown,
): Promise<{ member: string; company: string; changedAt: Date | null; holdHours: number } | null> {
  if (!isLinkToken(token)) return null;
  const [row] = await db()
    .select({ member: users.email, company: merchants.companyName, changedAt: users.factorChangedAt })
    .from(securityLinks)
    .innerJoin(users, and(eq(users.id, securityLinks.subjectId), eq(users.merchantId, securityLinks.merchantId)))
    .innerJoin(merchants, eq(merchants.id, securityLinks.merchantId))
    .where(
      and(
        eq(securityLinks.tokenHash, hashLinkToken(token)),
        eq(securityLinks.kind, "factor_change"),
        isNull(securityLinks.usedAt),
        gt(securityLinks.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row ? { ...row, holdHours: env().FACTOR_CHANGE_HOLD_HOURS } : null;
}

/**
 * Spends a confirmation link and confirms the change it was mailed for, in one transaction (a link
 * of another kind is refused and stays unspent). The member's e-mail; throws when the link does not work.
 */
export async function confirmFactorChangeByLink(token: unknown, ip: string | null): Promise<string> {
  return db().transaction(async (tx) => {
    const link = await consumeSecurityLink(token, tx);
    if (!link || link.kind !== "factor_change") throw InvalidInput.of("security.linkInvalid");
    const member = await confirmFactorChange(link.merchantId, link.subjectId, null, tx);
    if (!member) throw InvalidInput.of("security.linkInvalid");
    const actor: Actor = { merchantId: link.merchantId, userId: null, email: "link mailed to the owners", ip };
    await audit(actor, "twoFactor.changeConfirmed", link.subjectId, { by: "link", member }, tx);
    return member;
  });
}
