import http from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import postgres from "postgres";

// The benchmark's yardstick: the least a server can do for the same requests — node:http, parse a
// small JSON body, run the very statement the app runs, reply — on the same PostgreSQL and the same
// tables (the app's migrations have run; see run.ts). What the app does beyond this (authentication,
// validation, ids, the BR Code, views, headers) is what the ratio measures; what PostgreSQL spends
// on the orders table's indexes, checks and foreign key is paid by both.
//
// The statements are the app's, written out by hand:
//   INSERT: lib/orders/queries.ts insertOrder (every column, RETURNING what PostgreSQL decides);
//   SELECT order: lib/orders/queries.ts ordersByIdQuery (by id) and orderByLinkQuery (by payment link
//     id), the merchant checked on the row as the app checks it;
//   SELECT account: lib/withdrawals/limits.ts balanceAndUsedTodayQuery.
// Requests name their merchant as `Authorization: Bearer <merchant id>` (BASELINE_MERCHANTS of them are
// made at start and listed by GET /merchants), so one merchant and many are measured as for the app.

// run.ts passes the pool the app would choose on this machine.
const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DB_POOL_SIZE ?? 10), onnotice: () => {} });
const port = Number(process.env.PORT ?? 3400);

// A BR Code's length and shape; generating one is the app's work, not the baseline's.
const BRCODE =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000520400005303986540510.505802BR5920" +
  "BASELINE PAGAMENTOS6009SAO PAULO62290525baselinetxid0000000000000630412AB";
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function main() {
  const count = Number(process.env.BASELINE_MERCHANTS ?? 1);
  const merchants = (
    await sql`insert into merchants (company_name, pix_key, pix_key_type)
      select 'Baseline ' || n, '52998224725', 'cpf' from generate_series(1, ${count}::int) n returning id`
  ).map((m) => m.id as string);

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res
        .writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
        .end(text);
    };
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        if (req.method === "GET" && req.url === "/merchants") return reply(200, { merchants });
        const merchant = (req.headers.authorization ?? "").slice(7) || merchants[0];
        if (req.method === "POST" && req.url === "/order") {
          const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
          const txid = hex(12);
          const [row] = await sql.unsafe(
            `insert into "orders" ("id", "merchant_id", "kind", "payment_link_id", "hash", "status", "value_centavos", "reference", "provider", "provider_ref", "brcode", "txid", "invoice", "payment_hash", "satoshis", "rate", "rate_source", "rate_at", "expires_at", "paid_at", "version", "created_at", "updated_at") values ($1, $2, $3, $4, $5, default, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, default, default, default, default) returning "id", "status", "rate", "paid_at", "version", "created_at", "updated_at"`,
            [
              randomUUID(),
              merchant,
              "pix",
              hex(11),
              hex(16),
              Math.round(body.value * 100),
              "{}",
              "sandbox-pix",
              txid,
              BRCODE,
              txid,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
            ],
            { prepare: true },
          );
          return reply(201, { order: row });
        }
        if (req.method === "GET" && req.url?.startsWith("/order/")) {
          const key = req.url.slice(7);
          const [row] = UUID.test(key)
            ? await sql`select "o"."id", "o"."merchant_id", "o"."kind", "o"."payment_link_id", "o"."hash", "o"."status", "o"."value_centavos",
                "o"."reference", "o"."provider", "o"."provider_ref", "o"."brcode", "o"."txid", "o"."invoice", "o"."payment_hash", "o"."satoshis",
                "o"."rate", "o"."rate_source", "o"."rate_at", "o"."expires_at", "o"."paid_at", "o"."pay_links", "o"."version", "o"."created_at", "o"."updated_at"
                from unnest(${[key]}::uuid[]) as wanted(id) cross join lateral (select * from "orders" where "orders"."id" = wanted.id limit ${1}) "o"`
            : await sql`select "id", "merchant_id", "kind", "payment_link_id", "hash", "status", "value_centavos",
                "reference", "provider", "provider_ref", "brcode", "txid", "invoice", "payment_hash", "satoshis", "rate",
                "rate_source", "rate_at", "expires_at", "paid_at", "pay_links", "version", "created_at", "updated_at"
                from "orders" where "orders"."payment_link_id" = ${key} limit ${1}`;
          return row && row.merchant_id === merchant
            ? reply(200, { order: row })
            : reply(404, { message: "not found" });
        }
        if (req.method === "GET" && req.url === "/account") {
          const day = new Date().toISOString().slice(0, 10);
          const [row] =
            await sql`select (merchants.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u
            where u.merchant_id = merchants.id), 0))::bigint, (select coalesce(sum(w.value_centavos), 0) from withdrawals w
            where w.merchant_id = merchants.id and w.limit_day = ${day} and w.status <> 'FAILED')
            from "merchants" where "merchants"."id" = ${merchant}`;
          return reply(200, { merchant: row });
        }
        reply(404, { message: "not found" });
      } catch (err) {
        reply(500, { message: String(err) });
      }
    });
  });
  server.listen(port, "127.0.0.1", () => console.log(`baseline ready on ${port}`));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
