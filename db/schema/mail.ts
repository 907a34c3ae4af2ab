import { sql } from "drizzle-orm";
import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, ts } from "./columns";
import { merchants } from "./merchants";

/**
 * Mail the service sends. With SMTP_URL set a row records the attempt (its body cleared once sent:
 * reset links must not rest in the database); without it (sandbox) the body stays, and the
 * dashboard's outbox shows it.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    body: text("body"),
    // queued/sending: written in a transaction, waiting for SMTP (lib/mail/mailer.ts queueMail).
    status: text("status", { enum: ["outbox", "queued", "sending", "sent", "failed"] }).notNull(),
    error: text("error"),
    // When a queued mail was taken for sending: one taken long ago was lost with its sender.
    claimedAt: ts("claimed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("mail_outbox_merchant").on(t.merchantId, t.createdAt),
    index("mail_outbox_queued")
      .on(t.createdAt)
      .where(sql`status in ('queued', 'sending')`),
  ],
);
