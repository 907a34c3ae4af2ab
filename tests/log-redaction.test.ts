import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { databaseUrl, db } from "@/db";
import { log, setLoggerForTests } from "@/lib/log";
import { captureLogs, seedMerchant } from "./helpers";

// Real database errors, provoked with a marker among their bound parameters (where a CPF, a PIX key
// or a key hash would be), logged through the service's logger: the marker never reaches the line,
// while what locates the failure (SQLSTATE, constraint, table) does.

const MARK = "MARKER-52998224725-sk_test";

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("the query was expected to fail");
}

describe("database errors in logs", () => {
  afterEach(() => setLoggerForTests(undefined));

  it("an invalid cast: the value PostgreSQL quotes back and drizzle's params are redacted", async () => {
    const lines = captureLogs();
    const err = await failure(() => db().execute(sql`select ${MARK}::uuid`));
    expect(JSON.stringify({ message: (err as Error).message, cause: String((err as Error).cause) })).toContain(MARK); // the raw error does carry it
    log.error("query failed", { err });
    const line = JSON.parse(lines[0]);
    expect(lines[0]).not.toContain(MARK);
    expect(line.err.message).toBe("Failed query: select $1::uuid");
    expect(line.err.cause).toMatchObject({
      code: "22P02",
      message: 'invalid input syntax for type uuid: "[redacted]"',
    });
  });

  it("a unique violation: the detail listing the row's values is dropped, the constraint kept", async () => {
    const { merchant } = await seedMerchant();
    const insert = () =>
      db().execute(
        sql`insert into idempotency_keys (merchant_id, key, method, path, body_hash, expires_at) values (${merchant.id}, ${MARK}, 'POST', '/x', ${MARK}, now())`,
      );
    await insert();
    const err = await failure(insert);
    const lines = captureLogs();
    log.warn("insert failed", { error: err });
    expect(lines[0]).not.toContain(MARK);
    expect(JSON.parse(lines[0]).error.cause).toMatchObject({
      code: "23505",
      constraint_name: "idempotency_keys_merchant_id_key_method_path_pk",
      table_name: "idempotency_keys",
    });
  });

  it("postgres.js in debug mode (parameters, args and query enumerable): none of them is written", async () => {
    const client = postgres(databaseUrl(), { max: 1, debug: () => {}, onnotice: () => {} });
    try {
      const err = await failure(() => client`select ${MARK}::int`);
      expect(Object.keys(err as object)).toContain("parameters");
      const wrapped = await failure(() => drizzle(client).execute(sql`select * from merchants where id = ${MARK}`));
      const lines = captureLogs();
      log.error("raw", { err });
      log.error("wrapped", { err: wrapped });
      expect(lines.join("")).not.toContain(MARK);
      expect(JSON.parse(lines[0]).err).toMatchObject({ code: "22P02", type: "PostgresError" });
    } finally {
      await client.end({ timeout: 5 });
    }
  });
});
