import http from "node:http";
import postgres from "postgres";

// The benchmark's floor: node:http and postgres.js doing one INSERT or one SELECT on a one-table
// schema (a uuid primary key, an amount, a timestamp). Nothing a payment needs: no authentication,
// no indexes beyond the key, no constraints, no validation. The same-SQL baseline (baseline.ts)
// says what the service's own statements cost; this one says what any service on this machine,
// this PostgreSQL and this load generator could reach at best.

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DB_POOL_SIZE ?? 10), onnotice: () => {} });
const port = Number(process.env.PORT ?? 3400);

async function main() {
  await sql`create table if not exists bench_bare (
    id uuid primary key default gen_random_uuid(),
    value_centavos bigint not null,
    created_at timestamptz not null default now())`;

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
        if (req.method === "POST" && req.url === "/order") {
          const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
          const [row] =
            await sql`insert into bench_bare (value_centavos) values (${Math.round(body.value * 100)}) returning id, value_centavos, created_at`;
          return reply(201, { order: row });
        }
        if (req.method === "GET" && req.url?.startsWith("/order/")) {
          const [row] = await sql`select id, value_centavos, created_at from bench_bare where id = ${req.url.slice(7)}`;
          return row ? reply(200, { order: row }) : reply(404, { message: "not found" });
        }
        reply(404, { message: "not found" });
      } catch (err) {
        reply(500, { message: String(err) });
      }
    });
  });
  server.listen(port, "127.0.0.1", () => console.log(`bare ready on ${port}`));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
