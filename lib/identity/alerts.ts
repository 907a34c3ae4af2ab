import { and, eq, inArray } from "drizzle-orm";
import { db } from "@/db";
import { merchants, users } from "@/db/schema";
import { formatDateTime, translate, translator, type Locale } from "@/lib/i18n";
import { sendMail } from "@/lib/mail/mailer";
import { alertMail, type AlertKind } from "@/lib/mail/messages";
import { apiKeyLabels, type Actor } from "./audit";
import { actorName } from "./audit-text";

// Mail to a merchant's owners and admins when where its money or data goes changes (payout key,
// API key, webhook) or someone joins the team: whoever made the change, the people who can undo it
// hear of it at once.

export async function alertAdmins(
  actor: Actor & { merchantId: string },
  kind: AlertKind,
  subject: string,
  locale: Locale,
): Promise<void> {
  const [merchant] = await db()
    .select({ companyName: merchants.companyName })
    .from(merchants)
    .where(eq(merchants.id, actor.merchantId))
    .limit(1);
  if (!merchant) return;
  const recipients = await db()
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.merchantId, actor.merchantId), inArray(users.role, ["owner", "admin"])));
  const text = alertMail(locale, kind, {
    company: merchant.companyName,
    who: actorName(translator(locale), actor.email, await apiKeyLabels(actor.merchantId, [actor.email])),
    ip: actor.ip ?? translate(locale, "mail.unknownAddress"),
    time: formatDateTime(new Date(), locale),
    subject,
  });
  for (const r of recipients) await sendMail({ ...text, to: r.email, merchantId: actor.merchantId });
}
