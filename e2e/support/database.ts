import postgres from "postgres";

/** The e2e server's own embedded PostgreSQL (playwright.config.ts): the only way to move an order's expiry into the past. */
export function database() {
  return postgres(`postgres://postgres:postgres@127.0.0.1:${Number(process.env.E2E_PG_PORT ?? 54339)}/payments`, {
    max: 1,
    onnotice: () => {},
  });
}
