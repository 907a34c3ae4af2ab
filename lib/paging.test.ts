import { describe, expect, it } from "vitest";
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage } from "./paging";

const ID = "0c7e4a91-3d2f-4b6a-8e15-9f2d7a6b3c40";
const cursorOf = (at: string, id = ID) => Buffer.from(JSON.stringify({ at, id })).toString("base64url");

describe("keyset cursors", () => {
  it("round-trip a position exactly", () => {
    const at = new Date("2026-11-24T10:11:12.345Z");
    expect(decodeKeysetCursor(encodeKeysetCursor(at, ID))).toEqual({ at, id: ID });
  });

  it.each([
    ["garbage", "not-a-cursor"],
    ["not a uuid", cursorOf("2026-01-01T00:00:00.000Z", "x")],
    ["year 0, which PostgreSQL has not", cursorOf("0000-01-01T00:00:00.000Z")],
    ["before 1970", cursorOf("1969-12-31T23:59:59.000Z")],
    ["past year 9999", cursorOf("+010000-01-01T00:00:00.000Z")],
    ["an impossible date", cursorOf("2024-02-31T00:00:00.000Z")],
  ])("refuses %s with a 400", (_why, cursor) => {
    expect(() => decodeKeysetCursor(cursor, "Invalid cursor")).toThrow(
      expect.objectContaining({ status: 400, message: "Invalid cursor" }),
    );
  });

  it("pages limit + 1 rows: a next cursor only when a further row was read", () => {
    const rows = [1, 2, 3].map((n) => ({ n, at: new Date(Date.UTC(2026, 0, n)), id: ID }));
    const full = keysetPage(rows, 2, (r) => r);
    expect(full.page.map((r) => r.n)).toEqual([1, 2]);
    expect(decodeKeysetCursor(full.nextCursor!).at).toEqual(rows[1].at);
    expect(keysetPage(rows.slice(0, 2), 2, (r) => r).nextCursor).toBeNull();
  });
});
