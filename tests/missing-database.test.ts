import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ensureDatabase } from "@/db/bootstrap";
import { resetEnvForTests } from "@/lib/env";
import { saveEnv } from "./support/env";

// A DATABASE_URL naming a database that does not exist (docs/configuration.md): start-up creates it
// when the role may, and otherwise stops with one line naming DATABASE_URL, never a stack trace.

const ROOT = path.resolve(__dirname, "..");
const server = new URL(inject("databaseUrl"));
const tag = `${process.pid}_${Date.now()}`;
const created = `missing_${tag}`;
const role = `no_createdb_${tag}`;
const savedEnv = saveEnv();

// Embedded PostgreSQL (CI's default) asks every role for a password; the machine's server trusts.
const rolePassword = `pw_${tag}`;

function urlOf(database: string, user?: string): string {
  const u = new URL(server);
  u.pathname = `/${database}`;
  if (user) {
    u.username = user;
    u.password = rolePassword;
  }
  return u.toString();
}

async function admin<T>(run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(urlOf("postgres"), { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
}

afterAll(async () => {
  savedEnv.restore();
  resetEnvForTests();
  await admin(async (sql) => {
    await sql.unsafe(`drop database if exists "${created}" with (force)`);
    await sql.unsafe(`drop role if exists "${role}"`);
  });
});

describe("a DATABASE_URL naming a database that does not exist", () => {
  it("is created and migrated when the role may create databases", async () => {
    Object.assign(process.env, { DATABASE_URL: urlOf(created) });
    resetEnvForTests();
    const result = await ensureDatabase();
    expect(result.created).toBe(true);
    const sql = postgres(urlOf(created), { max: 1, onnotice: () => {} });
    try {
      const [{ n }] = await sql<
        { n: number }[]
      >`select count(*)::int as n from pg_tables where tablename = 'merchants'`;
      expect(n).toBe(1);
    } finally {
      await sql.end();
    }
    // Started again: it exists now, and nothing is created.
    expect((await ensureDatabase()).created).toBe(false);
  });

  it("stops start-up with one line naming DATABASE_URL when the role may not create it", async () => {
    await admin((sql) => sql.unsafe(`create role "${role}" login nocreatedb password '${rolePassword}'`));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "missing-db-"));
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        PAYMENTS_MODE: "sandbox",
        DATA_DIR: dataDir,
        DATABASE_URL: urlOf(`absent_${tag}`, role),
        HOST: "127.0.0.1",
        PORT: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
    expect(code, stdout + stderr).toBe(1);
    const lines = stderr.trimEnd().split("\n");
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^DATABASE_URL names database "absent_${tag}", which does not exist on .*, and it could not be created \\(role "${role}" may not create databases\\)`,
      ),
    );
    expect(stderr).not.toMatch(/\n\s+at /);
    console.log(`start-up refused: ${lines[0]}`);
  }, 60_000);
});
