// `npm run db:migrate`: applies db/migrations to DATABASE_URL, or to the embedded database.
async function main() {
  const { ensureDatabase } = await import("@/db/bootstrap");
  const { url, embedded } = await ensureDatabase();
  console.log(`migrations applied to ${url.replace(/:[^:@/]*@/, ":***@")}`);
  await embedded?.stop();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
