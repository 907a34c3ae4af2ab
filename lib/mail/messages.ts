import { translate, type Locale, type MessageKey, type Vars } from "@/lib/i18n";

// The text of every mail the service sends, from the i18n catalogs like everything else a person
// reads. Plain text: links stay visible and nothing needs an HTML sanitiser.

export type MailText = { subject: string; text: string };

const mail = (locale: Locale, subject: MessageKey, body: MessageKey, vars: Vars): MailText => ({
  subject: translate(locale, subject, vars),
  text: translate(locale, body, vars),
});

export function passwordResetMail(locale: Locale, link: string, minutes: number): MailText {
  return mail(locale, "mail.reset.subject", "mail.reset.body", { link, minutes });
}

export function invitationMail(locale: Locale, vars: { company: string; role: string; link: string; days: number }): MailText {
  return mail(locale, "mail.invite.subject", "mail.invite.body", vars);
}

export function passwordChangedMail(locale: Locale, vars: { ip: string; time: string }): MailText {
  return mail(locale, "mail.passwordChanged.subject", "mail.passwordChanged.body", vars);
}

export type AlertKind = "payoutKey" | "apiKey" | "webhook" | "member";
const ALERT_KEYS: Record<AlertKind, MessageKey> = {
  payoutKey: "mail.alert.payoutKey",
  apiKey: "mail.alert.apiKey",
  webhook: "mail.alert.webhook",
  member: "mail.alert.member",
};

/** "Security alert": what changed (its own sentence per kind), who did it, from where, when. */
export function alertMail(locale: Locale, kind: AlertKind, vars: { company: string; who: string; ip: string; time: string; subject: string }): MailText {
  const what = translate(locale, ALERT_KEYS[kind], vars);
  return mail(locale, "mail.alert.subject", "mail.alert.body", { ...vars, what });
}
