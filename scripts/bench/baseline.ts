import http from "node:http";
import postgres from "postgres";

// The benchmark's yardstick: the least a server can do for the same requests — node:http, parse a
// small JSON body, one INSERT … RETURNING or one SELECT by id, reply — on the same PostgreSQL.

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DB_POOL_SIZE ?? 10), onnotice: () => {} });
const port = Number(process.env.PORT ?? 3400);

async function main() {
  await sql`create table if not exists bench_orders (
    id uuid primary key default gen_random_uuid(), merchant_id uuid not null, value_centavos bigint not null,
    payment_link_id text not null, created_at timestamptz not null default now())`;
  await sql`create table if not exists bench_merchants (id uuid primary key default gen_random_uuid(), company_name text, balance bigint)`;
  const [m] = await sql`insert into bench_merchants (company_name, balance) values ('Baseline', 0) returning id`;

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    };
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        if (req.method === "POST" && req.url === "/order") {
          const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
          const [row] = await sql`insert into bench_orders (merchant_id, value_centavos, payment_link_id)
            values (${m.id}, ${Math.round(body.value * 100)}, ${Math.random().toString(36).slice(2)}) returning *`;
          return reply(201, { order: row });
        }
        if (req.method === "GET" && req.url?.startsWith("/order/")) {
          const [row] = await sql`select * from bench_orders where id = ${req.url.slice(7)}`;
          return row ? reply(200, { order: row }) : reply(404, { message: "not found" });
        }
        if (req.method === "GET" && req.url === "/account") {
          const [row] = await sql`select * from bench_merchants where id = ${m.id}`;
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
