import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "@/db";

describe("test database", () => {
  it("is migrated and reachable", async () => {
    const rows = await db().execute(sql`select count(*)::int as n from merchants`);
    expect(rows.length).toBe(1);
  });
});
