import { and, desc, eq, or, sql } from "drizzle-orm";
import nodemailer, { type Transporter } from "nodemailer";
import { db } from "@/db";
import { mailOutbox, users } from "@/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";

// Outgoing mail: nodemailer over SMTP_URL, or, with none configured, the outbox table the
// dashboard shows (sandbox). Every mail leaves a row; a sent mail's body is cleared, since it may
// carry a reset or invitation link that must not rest in the database. A failure is logged and
// recorded, never thrown: the action that sent the mail has already happened.

export type Mail = { to: string; subject: string; text: string; merchantId?: string | null };
export type MailResult = "sent" | "outbox" | "failed";

const transports = processSlot<{ url: string; transport: Transporter }>("smtp-transport");

function transport(url: string): Transporter {
  const cached = transports.value;
  if (cached?.url === url) return cached.transport;
  // Bounded waits: a stuck SMTP server must not hold a dashboard request for minutes.
  const created = nodemailer.createTransport(url, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  transports.value = { url, transport: created };
  return created;
}

export async function sendMail(mail: Mail): Promise<MailResult> {
  const url = env().SMTP_URL;
  const row = { merchantId: mail.merchantId ?? null, toAddress: mail.to, subject: mail.subject };
  if (!url) {
    await db()
      .insert(mailOutbox)
      .values({ ...row, body: mail.text, status: "outbox" });
    return "outbox";
  }
  try {
    await transport(url).sendMail({ from: env().MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    await db()
      .insert(mailOutbox)
      .values({ ...row, status: "sent" });
    return "sent";
  } catch (err) {
    const message = err instanceof Error ? err.message.slice(0, 300) : "send failed";
    log.warn("mail not sent", { subject: mail.subject, error: message });
    await db()
      .insert(mailOutbox)
      .values({ ...row, status: "failed", error: message });
    return "failed";
  }
}

/**
 * The outbox as one team member may read it, newest first: mails addressed to them, and, for those
 * who manage the team, invitations to people who have no account yet. Never another member's mail:
 * a reset link is for its owner's eyes only.
 */
export async function outboxFor(merchantId: string, reader: { email: string; seesInvitations: boolean }, limit = 50) {
  const mine = eq(sql`lower(${mailOutbox.toAddress})`, reader.email.toLowerCase());
  const toOutsider = sql`not exists (select 1 from ${users} where lower(${users.email}) = lower(${mailOutbox.toAddress}))`;
  return db()
    .select()
    .from(mailOutbox)
    .where(
      and(
        eq(mailOutbox.merchantId, merchantId),
        eq(mailOutbox.status, "outbox"),
        reader.seesInvitations ? or(mine, toOutsider) : mine,
      ),
    )
    .orderBy(desc(mailOutbox.createdAt))
    .limit(limit);
}
