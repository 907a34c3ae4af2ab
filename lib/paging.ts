import { InvalidInput } from "@/lib/errors";
import { isUuid } from "./ids";

// Keyset pagination, newest first: the cursor is the last item's (createdAt, id), opaque to clients.
// Timestamps are stored with millisecond precision, so the Date round-trips exactly.

export function encodeKeysetCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify({ at: at.toISOString(), id })).toString("base64url");
}

/** The position a cursor names; anything that is not one of ours is a 400 with `message`. */
export function decodeKeysetCursor(cursor: string, message = "Invalid cursor"): { at: Date; id: string } {
  try {
    const c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { at?: unknown; id?: unknown };
    if (typeof c.at === "string" && typeof c.id === "string" && isUuid(c.id) && !Number.isNaN(Date.parse(c.at))) {
      return { at: new Date(c.at), id: c.id };
    }
  } catch {
    // not JSON: fall through to the refusal
  }
  throw new InvalidInput(message);
}
