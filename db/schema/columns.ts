import { sql } from "drizzle-orm";
import { bigint, jsonb, numeric, timestamp } from "drizzle-orm/pg-core";

// Money: BRL as integer centavos in bigint columns (read as JS numbers: every figure we store
// stays far below 2^53 centavos). Crypto: numeric(38,18) read as exact decimal strings.
export const centavos = (name: string) => bigint(name, { mode: "number" });
export const crypto = (name: string) => numeric(name, { precision: 38, scale: 18 });
// Millisecond precision: a JS Date round-trips exactly, so (created_at, id) cursors are exact.
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });
export const createdAt = () => ts("created_at").notNull().defaultNow();
export const updatedAt = () => ts("updated_at").notNull().defaultNow();

export const inList = (column: string, values: readonly string[]) =>
  sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(", ")})`);

/** The merchant's own key-value pairs on an object it creates (docs/api.md#metadata-and-your-references), echoed on every view. */
export const metadata = () => jsonb("metadata").$type<Record<string, string>>().notNull().default({});
