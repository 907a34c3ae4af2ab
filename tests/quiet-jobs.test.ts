import { spawn } from "node:child_process";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/pg-cluster";
import { testDatabaseUrl } from "./support/database";

// Quiet when healthy: the app with its job runner on (scripts/faults/server.ts, the production HTTP
// server and every job sandbox mode runs), left alone for two scheduling minutes, writes no line at
// error level and nothing to stderr. pg-boss's durable once-a-minute schedules are what it waits
// for: each firing records its job's id on the schedule's row, a statement that failed every minute
// when the job adapter sent its JSON parameter as a JSON string (lib/jobs/postgres-js-db.ts).

const ROOT = path.resolve(__dirname, "..");
const testUrl = testDatabaseUrl();
const database = `quiet_${process.pid}_${Date.now()}`;
const url = (() => {
  const u = new URL(testUrl);
  u.pathname = `/${database}`;
  return u.toString();
})();

beforeAll(async () => {
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}"`);
  await admin.end();
});

afterAll(async () => {
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${database}" with (force)`);
  await admin.end();
});

/** Lines at error level or above, and whatever is not a log line (a stack trace, a runtime warning). */
function loud(stdout: string, stderr: string): string[] {
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  const errors = lines.filter((l) => {
    if (!l.startsWith("{")) return false;
    const level = (JSON.parse(l) as { level?: string }).level;
    return level === "error" || level === "fatal";
  });
  return [...errors, ...stderr.split("\n").filter((l) => l.trim() !== "")];
}

describe("two scheduling minutes with every job on", () => {
  it("log no error: the schedules fire and their job ids are recorded", async () => {
    const { runMigrations } = await import("@/db/migrate");
    await runMigrations(url);
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/faults/server.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        PAYMENTS_MODE: "sandbox",
        DATABASE_URL: url,
        HOST: "127.0.0.1",
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        AUTH_SECRET: "quiet-jobs-auth-secret-0123456789abcdefghij",
        ADMIN_TOKEN: "quiet-jobs-admin-token-0123456789abcdefghij",
        SEED_DEMO_MERCHANT: "false",
        JOBS_ENABLED: "true",
        LOG_LEVEL: "info",
        SHUTDOWN_TIMEOUT_MS: "3000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const recorded = new Set<string>();
    try {
      // Two firings recorded on the sweep's schedule: two cron minutes passed, each one's bookkeeping ran.
      for (const until = Date.now() + 200_000; recorded.size < 2; await new Promise((r) => setTimeout(r, 1000))) {
        expect(loud(stdout, stderr), "error lines while waiting for the schedules").toEqual([]);
        expect(child.exitCode, `the app exited:\n${stdout}\n${stderr}`).toBeNull();
        if (Date.now() > until) throw new Error(`the schedules fired ${recorded.size} times in 200 s:\n${stdout}`);
        const rows = await sql<{ id: string | null }[]>`
          select last_job_id::text as id from pgboss.schedule where name = 'sweep'`.catch(() => []);
        for (const r of rows) if (r.id) recorded.add(r.id);
      }
      const fired = await sql<{ name: string }[]>`
        select distinct name from pgboss.schedule where last_job_id is not null order by name`;
      console.log(
        `two scheduling minutes: ${fired.map((f) => f.name).join(", ")} recorded their jobs; ${stdout.split("\n").length - 1} log lines, none at error level`,
      );
    } finally {
      await sql.end();
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(loud(stdout, stderr)).toEqual([]);
  }, 260_000);
});
