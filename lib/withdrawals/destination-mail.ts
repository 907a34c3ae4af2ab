import { publicBaseUrl } from "@/lib/env";
import { formatDateTime, translate, translator, type Locale } from "@/lib/i18n";
import type { Executor } from "@/db";
import { queueMail } from "@/lib/mail/mailer";
import { destinationMail } from "@/lib/mail/messages";
import { apiKeyLabels, type Actor } from "@/lib/identity/audit";
import { actorName } from "@/lib/identity/audit-text";
import { LINK_HOURS } from "@/lib/identity/links";
import { teamToTell } from "@/lib/identity/money-mail";
import type { Destination } from "./destinations";

// The mail about a destination the dashboard used or added for the first time: to the owners with
// the link that confirms it (whoever holds an owner's mailbox can vouch for it without signing in),
// to the admins without one (only owners confirm), and to the user who added it. Written in the
// transaction that recorded the destination (lib/mail/mailer.ts queueMail).

/** The page the link opens: it shows the destination and confirms it only when asked to (a mail scanner's GET confirms nothing). */
export function destinationLink(token: string): string {
  return `${publicBaseUrl()}/confirm-destination?token=${token}`;
}

/** How a mail or page names a destination: its kind, its value and its label. */
export function destinationName(d: Pick<Destination, "kind" | "value" | "label">, locale: Locale): string {
  const kind = translate(locale, d.kind === "pix_key" ? "fields.pixKey" : "fields.toAddress");
  return `${kind} ${d.value}${d.label ? ` (${d.label})` : ""}`;
}

export async function announceDestination(
  tx: Executor,
  origin: { actor: Actor & { merchantId: string }; locale: Locale },
  added: { destination: Destination; token: string },
): Promise<void> {
  const { actor, locale } = origin;
  const { destination, token } = added;
  const time = formatDateTime(new Date(), locale);
  const team = await teamToTell(actor.merchantId, actor.userId, tx);
  if (!team) return;
  for (const r of team.recipients) {
    const text = destinationMail(locale, {
      company: team.company,
      destination: destinationName(destination, locale),
      who: actorName(translator(locale), actor.email, await apiKeyLabels(actor.merchantId, [actor.email], tx)),
      ip: actor.ip ?? translate(locale, "mail.unknownAddress"),
      time,
      until: destination.holdUntil ? formatDateTime(destination.holdUntil, locale) : null,
      link: r.role === "owner" ? destinationLink(token) : null,
      hours: LINK_HOURS,
    });
    await queueMail(tx, { ...text, to: r.email, merchantId: actor.merchantId });
  }
}
