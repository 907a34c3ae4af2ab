/** This worker's own database (tests/setup-env.ts), also when a test has pointed DATABASE_URL elsewhere. */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is unset: tests/setup-env.ts did not run");
  return url;
}
