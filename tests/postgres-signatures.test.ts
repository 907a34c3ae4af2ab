import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";

// postgres.js names a prepared statement by its signature (parameter types + text). It used to build
// that string anew on every execution, so each run of a multi-row INSERT built, flattened and hashed a
// few kB to find its statement; the patch (patches/postgres+3.4.9.patch) keeps each text's signature
// and reuses it while the types match. These tests hold the reuse to what it must be: the same text
// with the same types runs its prepared statement, and a change of any parameter's type is a new one.

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(require.resolve("postgres")), "../..");

const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 1 }));

const prepared = async () =>
  Number((await sql.unsafe<{ n: string }[]>("select count(*) as n from pg_prepared_statements"))[0].n);

describe("postgres.js statement signatures (patched)", () => {
  it("is installed in every build Node can load", () => {
    for (const build of ["cjs/src/connection.js", "src/connection.js"]) {
      expect(fs.readFileSync(path.join(root, build), "utf8")).toContain("function signatureOf(types, string, tagged)");
    }
  });

  it("runs the same text with the same types as one prepared statement", async () => {
    const text = "select $1::int + $2::int as sum";
    const before = await prepared();
    for (let i = 0; i < 5; i++) {
      const [row] = await sql.unsafe<{ sum: number }[]>(text, [i, 1], { prepare: true });
      expect(row.sum).toBe(i + 1);
    }
    // The count's own statement was prepared before it first counted: the sum is the one new statement.
    expect(await prepared()).toBe(before + 1);
  });

  it("prepares the same text again when a parameter's type changes, and answers by the new type", async () => {
    const text = "select pg_typeof(v)::text as t from (select $1 as v) p";
    const types: string[] = [];
    // bigint → int8, string → unknown (text), boolean → bool, then back to bigint: the first statement again.
    for (const v of [5n, "five", true, 6n]) {
      const [row] = await sql.unsafe<{ t: string }[]>(text, [v as never], { prepare: true });
      types.push(row.t);
    }
    expect(types).toEqual(["bigint", "text", "boolean", "bigint"]);
  });

  it("tells apart texts that only differ after the parameter types", async () => {
    const a = await sql.unsafe<{ x: number }[]>("select $1::int + 1 as x", [1], { prepare: true });
    const b = await sql.unsafe<{ x: number }[]>("select $1::int + 2 as x", [1], { prepare: true });
    expect([a[0].x, b[0].x]).toEqual([2, 3]);
  });
});
