import { eq, getTableColumns, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openPool } from "@/db";
import { compile } from "@/db/prepared";
import { apiKeys, merchants, orders } from "@/db/schema";
import { foldBalances } from "@/lib/ledger/ledger";
import { createLightningOrder, createPixOrder } from "@/lib/orders/service";
import { hashApiKey } from "@/lib/identity/api-keys/keys";
import { seedMerchant } from "./helpers";

// db/prepared.ts runs Drizzle-built statements straight on postgres.js with its own row decoder.
// Every row it returns must be exactly what Drizzle's own execute() returns for the same statement.

describe("prepared(): the fast execution of a Drizzle prepared query", () => {
  it("decodes every column type of an order as Drizzle does (timestamps, numeric, bigint, jsonb, nulls)", async () => {
    const { merchant } = await seedMerchant();
    const profile = { ...merchant };
    const pix = await createPixOrder(profile, {
      value: 1050,
      expiresIn: 600,
      orderId: "abc",
      name: "Zé Ünïcode",
    } as never);
    const ln = await createLightningOrder(profile, { value: 2599, email: "a@b.co" } as never);
    const { db, sql: client } = openPool();
    const query = db
      .select()
      .from(orders)
      .where(eq(orders.id, sql.placeholder("id")))
      .prepare("test_prepared_order");
    const fast = compile(client, query);
    for (const id of [pix.id, ln.id]) {
      const viaDrizzle = await query.execute({ id });
      const viaFast = await fast.execute({ id });
      expect(viaFast).toEqual(viaDrizzle);
      expect(viaFast[0].createdAt).toBeInstanceOf(Date);
      expect(Object.keys(viaFast[0])).toEqual(Object.keys(viaDrizzle[0]));
    }
    const [lightning] = await fast.execute({ id: ln.id });
    expect(typeof lightning.rate).toBe(typeof (await query.execute({ id: ln.id }))[0].rate);
    expect(lightning.satoshis).toBe(ln.satoshis);
    expect(await fast.execute({ id: "00000000-0000-0000-0000-000000000000" })).toEqual([]);
  });

  it("nests joined columns and decodes SQL expressions with their declared decoder", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 12345 });
    await foldBalances(); // the seeded credit, moved into the row this query reads
    const { db, sql: client } = openPool();
    const { balanceCentavos: _b, ...profile } = getTableColumns(merchants);
    const query = db
      .select({
        keyId: apiKeys.id,
        merchant: profile,
        doubled: sql<number>`${merchants.balanceCentavos} * 2`.mapWith(Number),
        label: sql<string>`'m:' || ${sql.placeholder("tag")}`,
      })
      .from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(eq(apiKeys.keyHash, sql.placeholder("hash")))
      .prepare("test_prepared_join");
    const values = { hash: hashApiKey(apiKey), tag: "x" };
    const viaFast = await compile(client, query).execute(values);
    expect(viaFast).toEqual(await query.execute(values));
    expect(viaFast[0].merchant.id).toBe(merchant.id);
    expect(viaFast[0].doubled).toBe(24690);
    expect(viaFast[0].label).toBe("m:x");
  });

  it("encodes placeholders through their column, as an insert … returning does", async () => {
    const { merchant } = await seedMerchant();
    const { db, sql: client } = openPool();
    const query = db
      .update(merchants)
      .set({ updatedAt: sql.placeholder("at") as never, companyName: sql.placeholder("name") as never })
      .where(eq(merchants.id, sql.placeholder("id")))
      .returning()
      .prepare("test_prepared_update");
    const at = new Date("2026-01-02T03:04:05.678Z");
    const [row] = await compile(client, query).execute({ at, name: "Nova Razão", id: merchant.id });
    expect(row.updatedAt).toEqual(at);
    expect(row.companyName).toBe("Nova Razão");
    const [again] = await db.select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row).toEqual(again);
  });

  it("refuses a call that misses a placeholder, and queries it cannot decode as Drizzle would", async () => {
    const { db, sql: client } = openPool();
    const byId = db
      .select()
      .from(orders)
      .where(eq(orders.id, sql.placeholder("id")))
      .prepare("test_prepared_missing");
    expect(() => compile(client, byId).execute({})).toThrow(/No value for placeholder "id"/);
    const outer = db
      .select()
      .from(apiKeys)
      .leftJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .prepare("test_prepared_outer");
    expect(() => compile(client, outer)).toThrow(/outer joins/);
  });
});
