import { sql } from "drizzle-orm";
import { bigint, bigserial, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { merchants } from "./merchants";

/** The outbox: written in the transaction of the change it describes, delivered afterwards. */
export const events = pgTable(
  "events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    type: text("type").notNull(),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    // Assigned after commit, in commit order, by one publisher at a time: a reader paging by
    // position never skips an event whose transaction committed late (seq is taken at insert).
    position: bigint("position", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("events_seq").on(t.seq),
    uniqueIndex("events_position").on(t.position),
    index("events_unpublished")
      .on(t.seq)
      .where(sql`position is null`),
    index("events_merchant_position").on(t.merchantId, t.position),
    index("events_merchant_seq").on(t.merchantId, t.seq),
    index("events_subject").on(t.subjectId, t.seq),
  ],
);

export type Event = typeof events.$inferSelect;
