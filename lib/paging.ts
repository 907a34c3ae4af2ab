import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { InvalidInput } from "@/lib/errors";
import { isUuid } from "./ids";

// Keyset pagination, newest first, for every list of the API and the dashboard: the cursor is the
// last item's (createdAt, id), opaque to clients. Timestamps are stored with millisecond precision,
// so the Date round-trips exactly.

export type KeysetPosition = { at: Date; id: string };

// PostgreSQL's timestamptz has no year 0 and JavaScript dates reach far past 9999: a cursor outside
// these bounds is not one of ours.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

export function encodeKeysetCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify({ at: at.toISOString(), id })).toString("base64url");
}

/** The position a cursor names; anything that is not one of ours is a 400 with `message`. */
export function decodeKeysetCursor(cursor: string, message = "Invalid cursor"): KeysetPosition {
  try {
    const c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { at?: unknown; id?: unknown };
    if (typeof c.at === "string" && typeof c.id === "string" && isUuid(c.id)) {
      const at = Date.parse(c.at);
      // Ours are written by toISOString: anything else (an impossible date JavaScript would roll over) is not one.
      if (at >= EARLIEST && at <= LATEST && new Date(at).toISOString() === c.at)
        return { at: new Date(at), id: c.id.toLowerCase() };
    }
  } catch {
    // not JSON: fall through to the refusal
  }
  throw new InvalidInput(message);
}

/**
 * The condition for the page after `cursor` in (createdAt desc, id desc) order, on whatever columns
 * or expressions hold them; undefined for the first page.
 */
export function keysetBefore(
  cursor: string | undefined,
  createdAt: SQLWrapper,
  id: SQLWrapper,
  message?: string,
): SQL | undefined {
  if (!cursor) return undefined;
  const after = decodeKeysetCursor(cursor, message);
  return sql`(${createdAt}, ${id}) < (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)`;
}

/** Of `limit + 1` rows read, the page of `limit` and the cursor of the next page (null on the last). */
export function keysetPage<T>(
  rows: T[],
  limit: number,
  position: (row: T) => KeysetPosition,
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  if (rows.length <= limit || !last) return { page, nextCursor: null };
  const p = position(last);
  return { page, nextCursor: encodeKeysetCursor(p.at, p.id) };
}
