import { and, desc, eq, or, sql } from "drizzle-orm";
import nodemailer, { type Transporter } from "nodemailer";
import { db, type Executor } from "@/db";
import { mailOutbox, users } from "@/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { mailInBackground } from "./background";
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
 * Writes a mail in the caller's transaction, so it exists exactly when the change it reports
 * commits (a withdrawal's mail to the owners cannot be lost to a crash after the money moved, nor
 * sent for a request that rolled back). Without SMTP the row is the delivery (the dashboard's
 * outbox); with SMTP it is queued and sent after commit by deliverQueuedMail (kicked by the caller,
 * and by the sweep for whatever a crash left).
 */
export async function queueMail(ex: Executor, mail: Mail): Promise<void> {
  await ex.insert(mailOutbox).values({
    merchantId: mail.merchantId ?? null,
    toAddress: mail.to,
    subject: mail.subject,
    body: mail.text,
    status: env().SMTP_URL ? "queued" : "outbox",
  });
}

/** A queued mail being sent longer than this is taken again (its sender died mid-send). */
const SENDING_STALE_SECONDS = 300;

/**
 * Sends queued mail over SMTP: each row is claimed (queued → sending) before its send, so two
 * instances do not send one twice; a sent row's body is cleared, a failed one keeps the error.
 * Returns how many it took.
 */
export async function deliverQueuedMail(limit = 50): Promise<number> {
  const url = env().SMTP_URL;
  if (!url) return 0;
  const claimed = await db().execute<{ id: string; to_address: string; subject: string; body: string | null }>(sql`
    update mail_outbox set status = 'sending', claimed_at = now()
    where id in (
      select id from mail_outbox
      where status = 'queued' or (status = 'sending' and claimed_at < now() - make_interval(secs => ${SENDING_STALE_SECONDS}))
      order by created_at limit ${limit} for update skip locked)
    returning id, to_address, subject, body`);
  for (const m of claimed) {
    try {
      await transport(url).sendMail({
        from: env().MAIL_FROM,
        to: m.to_address,
        subject: m.subject,
        text: m.body ?? "",
      });
      await db().update(mailOutbox).set({ status: "sent", body: null, error: null }).where(eq(mailOutbox.id, m.id));
    } catch (err) {
      const message = err instanceof Error ? err.message.slice(0, 300) : "send failed";
      log.warn("mail not sent", { subject: m.subject, error: message });
      await db().update(mailOutbox).set({ status: "failed", error: message }).where(eq(mailOutbox.id, m.id));
    }
  }
  return claimed.length;
}

/** After a commit that queued mail: sent in the background, so the request does not wait for SMTP. */
export function deliverQueuedSoon(): void {
  if (env().SMTP_URL) mailInBackground("queued mail", () => deliverQueuedMail());
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
