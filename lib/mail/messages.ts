import { translate, withSpans, type Locale, type MessageKey, type Vars } from "@/lib/i18n";

// The text of every mail the service sends, from the i18n catalogs like everything else a person
// reads. Plain text: links stay visible and nothing needs an HTML sanitiser.

export type MailText = { subject: string; text: string };

// Durations (minutes, hours, days) come as numbers and are written with their plural ("1 hora").
const mail = (locale: Locale, subject: MessageKey, body: MessageKey, vars: Vars): MailText => ({
  subject: translate(locale, subject, withSpans(locale, vars)),
  text: translate(locale, body, withSpans(locale, vars)),
});

export function passwordResetMail(locale: Locale, link: string, minutes: number): MailText {
  return mail(locale, "mail.reset.subject", "mail.reset.body", { link, minutes });
}

export function invitationMail(
  locale: Locale,
  vars: { company: string; role: string; link: string; days: number },
): MailText {
  return mail(locale, "mail.invite.subject", "mail.invite.body", vars);
}

/** An invitation to an address that already has an account elsewhere: no link, since it cannot join; told why instead. */
export function invitationExistingMail(locale: Locale, vars: { company: string; role: string }): MailText {
  return mail(locale, "mail.invite.subject", "mail.inviteExisting.body", vars);
}

/** The link that finishes a sign-up (lib/identity/dashboard/sign-up-link.ts). */
export function signUpConfirmMail(locale: Locale, vars: { link: string; hours: number }): MailText {
  return mail(locale, "mail.signUp.subject", "mail.signUp.body", vars);
}

/** A sign-up with an address that already has an account: nothing was created; where to sign in or reset instead. */
export function signUpExistingMail(locale: Locale, vars: { signIn: string; reset: string }): MailText {
  return mail(locale, "mail.signUp.subject", "mail.signUpExisting.body", vars);
}

export function passwordChangedMail(locale: Locale, vars: { ip: string; time: string }): MailText {
  return mail(locale, "mail.passwordChanged.subject", "mail.passwordChanged.body", vars);
}

export type AlertKind =
  | "payoutKey"
  | "apiKey"
  | "webhook"
  | "member"
  | "factorEnrolled"
  | "factorRemoved"
  | "factorFailures"
  | "allowlistOn"
  | "allowlistOff";
const ALERT_KEYS: Record<AlertKind, MessageKey> = {
  payoutKey: "mail.alert.payoutKey",
  allowlistOn: "mail.alert.allowlistOn",
  allowlistOff: "mail.alert.allowlistOff",
  apiKey: "mail.alert.apiKey",
  webhook: "mail.alert.webhook",
  member: "mail.alert.member",
  factorEnrolled: "mail.alert.factorEnrolled",
  factorRemoved: "mail.alert.factorRemoved",
  factorFailures: "mail.alert.factorFailures",
};

/** "Security alert": what changed (its own sentence per kind), who did it, from where, when. */
export function alertMail(
  locale: Locale,
  kind: AlertKind,
  vars: { company: string; who: string; ip: string; time: string; subject: string },
): MailText {
  const what = translate(locale, ALERT_KEYS[kind], vars);
  return mail(locale, "mail.alert.subject", "mail.alert.body", { ...vars, what });
}

type Who = { company: string; who: string; ip: string; time: string };

/**
 * A withdrawal or refund was requested: how much, where it goes, who asked (a user's e-mail or the
 * API key's id), from which address and when, so the owners hear of money leaving while it can
 * still be questioned.
 */
export function moneyOutMail(
  locale: Locale,
  kind: "withdrawal" | "return" | "refund",
  vars: Who & { amount: string; destination: string; waits: string },
): MailText {
  return mail(locale, `mail.${kind}.subject`, `mail.${kind}.body`, vars);
}

/**
 * A withdrawal destination first used or added from the dashboard: until when it is held, and what
 * to do. Owners get the link that confirms it (`link`); the others are told an owner can.
 */
export function destinationMail(
  locale: Locale,
  vars: Who & { destination: string; until: string | null; link: string | null; hours: number },
): MailText {
  const { link, until, ...rest } = vars;
  const next = link
    ? translate(locale, "mail.destination.confirmLink", withSpans(locale, { link, hours: vars.hours }))
    : translate(locale, "mail.destination.confirmOwner");
  return mail(locale, "mail.destination.subject", until ? "mail.destination.held" : "mail.destination.notHeld", {
    ...rest,
    until: until ?? "",
    next,
  });
}

/** The code that, with the password, lets a user enrol a second factor (it also tells them if it was not them). */
export function enrolCodeMail(
  locale: Locale,
  vars: { code: string; minutes: number; ip: string; time: string },
): MailText {
  return mail(locale, "mail.enrolCode.subject", "mail.enrolCode.body", vars);
}

/** To the owners: a member's second factor changed; the link confirms it was them, so their money moves need not wait. */
export function factorConfirmMail(
  locale: Locale,
  vars: { company: string; member: string; what: string; until: string; link: string; hours: number },
): MailText {
  return mail(locale, "mail.factorConfirm.subject", "mail.factorConfirm.body", vars);
}

/** To a user whose second-factor checks were just locked after wrong codes. */
export function factorFailuresMail(locale: Locale, vars: { count: number; until: string; ip: string }): MailText {
  return mail(locale, "mail.factorFailures.subject", "mail.factorFailures.body", vars);
}

/** To the owners and admins: a PIX they received was returned under the MED and debited from the balance. */
export function medReturnMail(
  locale: Locale,
  vars: { company: string; order: string; amount: string; nature: string; endToEndId: string },
): MailText {
  return mail(locale, "mail.medReturn.subject", "mail.medReturn.body", vars);
}

/** To an invoice's payer, when the merchant asks: who bills them, how much, until when, the terms and the link. */
export function invoiceMail(
  locale: Locale,
  vars: {
    company: string;
    payer: string;
    amount: string;
    due: string;
    last: string;
    link: string;
    description: string;
    terms: string;
  },
): MailText {
  return mail(locale, "mail.invoice.subject", vars.terms ? "mail.invoice.body" : "mail.invoice.bodyPlain", vars);
}
