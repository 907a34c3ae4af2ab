import postgres from "postgres";
import { afterAll, inject } from "vitest";
import { processSlot } from "@/lib/singleton";

// Runs in each test worker before any test module is imported, so lib/env sees the worker's database:
// one per worker slot (VITEST_POOL_ID), cloned from the run's migrated template on its first file and
// kept for the slot's next files. Files that run at the same time never share a database.
const { templateUrl, template, prefix } = inject("testDatabases");
const name = `${prefix}_w${process.env.VITEST_POOL_ID ?? "1"}`;

function withDatabase(database: string): string {
  const u = new URL(templateUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

const admin = postgres(withDatabase("postgres"), { max: 1, onnotice: () => {} });
try {
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
  if (!exists) await admin.unsafe(`create database "${name}" template "${template}"`);
} finally {
  await admin.end();
}

process.env.DATABASE_URL = withDatabase(name);
/** The worker's database, for tests that change DATABASE_URL or hand it to a child process. */
process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;
process.env.PAYMENTS_MODE ??= "sandbox";
process.env.LOG_LEVEL ??= "silent";
process.env.ADMIN_TOKEN ??= "test-admin-token-0123456789abcdefghijklmnop";
process.env.AUTH_SECRET ??= "test-auth-secret-0123456789abcdefghijklmnop";
process.env.PUBLIC_BASE_URL ??= "http://localhost:3000";
process.env.SANDBOX_SETTLE_SECONDS ??= "0";
process.env.PIX_WEBHOOK_TOKEN ??= "test-pix-webhook-token-0123456789abcdef";
process.env.RATE_LIMIT_PER_MINUTE ??= "100000";
process.env.PROVIDER_CALLBACK_LIMIT_PER_MINUTE ??= "100000";
// Webhooks: retries within a second (0.01 s, then 0.6 s…) and a short timeout, so failure paths run fast.
process.env.WEBHOOK_RETRY_BASE_SECONDS ??= "0.01";
process.env.WEBHOOK_TIMEOUT_MS ??= "1000";

// Whatever a test file made the API answer, the OpenAPI document lists: an error code (or status) an
// endpoint answered that its document does not fails the file (docs/api.md#error-codes).
afterAll(async () => {
  // Nothing answered (the file never loaded the API): nothing to load to check.
  const answered = processSlot<Set<string>>("api.answered-error-codes").value;
  if (!answered || answered.size === 0) return;
  const { undocumentedErrorCodes } = await import("./support/documented-codes");
  const undocumented = undocumentedErrorCodes();
  if (undocumented.length > 0)
    throw new Error(
      `Answered but not in the OpenAPI document (add them to lib/api/error-codes.ts): ${undocumented.join("; ")}`,
    );
});
