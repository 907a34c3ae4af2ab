import postgres from "postgres";
import { closeDb } from "@/db";
import { runMigrations } from "@/db/migrate";
import { listOrders } from "@/lib/orders/list";
import { listOrdersQuery } from "@/lib/orders/schemas";

// Order search at scale (lib/orders/search.ts): seeds one merchant with 1,000,000 orders (and
// another merchant with 200,000, so the indexes are shared as in production) into the database
// DATABASE_URL names, then times GET /api/v1/orders?q= searches through the same listOrders() the API
// calls. Use a database of its own, never a real one:
//   createdb -h 127.0.0.1 -U postgres search_bench
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/search_bench npx tsx scripts/bench/search.ts
// Seeding happens once (about 3 minutes on 2 cores); later runs only search. ORDERS=… changes the count.

const ORDERS = Number(process.env.ORDERS ?? 1_000_000);
const OTHER_ORDERS = Math.round(ORDERS / 5);
const RUNS = Number(process.env.RUNS ?? 20);
const BATCH = 100_000;
const BENCH_MERCHANT = "Search bench merchant";

async function seedMerchant(sql: postgres.Sql, companyName: string, count: number): Promise<string> {
  const [existing] = await sql<{ id: string; n: string }[]>`
    select m.id, (select count(*) from orders o where o.merchant_id = m.id) as n from merchants m where company_name = ${companyName}`;
  if (existing && Number(existing.n) >= count) return existing.id;
  const id =
    existing?.id ??
    (
      await sql<
        { id: string }[]
      >`insert into merchants (company_name, pix_key) values (${companyName}, 'bench@example.com') returning id`
    )[0].id;
  const from = existing ? Number(existing.n) : 0;
  for (let start = from; start < count; start += BATCH) {
    const end = Math.min(start + BATCH, count) - 1;
    const t = performance.now();
    // One order every 30 s going back from now: a year of a busy shop. 8 in 10 are PIX (orderId, name,
    // CPF), 1 exchange wallet (payerId), 1 Lightning (e-mail, name); names from 40 × 40 common ones.
    await sql`
      with names as (
        select array['Maria','José','Ana','João','Antônio','Francisca','Carlos','Paulo','Pedro','Lucas','Luiz','Marcos','Luis','Gabriel','Rafael','Daniel','Marcelo','Bruno','Eduardo','Felipe','Raimundo','Rodrigo','Manoel','Mateus','André','Fernando','Fábio','Leonardo','Gustavo','Guilherme','Leandro','Tiago','Adriana','Juliana','Márcia','Fernanda','Patrícia','Aline','Sandra','Camila'] as first,
               array['Silva','Santos','Oliveira','Souza','Rodrigues','Ferreira','Alves','Pereira','Lima','Gomes','Costa','Ribeiro','Martins','Carvalho','Almeida','Lopes','Soares','Fernandes','Vieira','Barbosa','Rocha','Dias','Nascimento','Andrade','Moreira','Nunes','Marques','Machado','Mendes','Freitas','Cardoso','Ramos','Gonçalves','Santana','Teixeira','Araújo','Pinto','Correia','Moura','Cavalcanti'] as last
      ), g as (
        select n, (array['pix','pix','pix','pix','pix','pix','pix','pix','exchange','lightning'])[1 + n % 10] as kind,
               first[1 + (hashint4(n) & 2147483647) % 40] || ' ' || last[1 + (hashint4(n + 7) & 2147483647) % 40] as name
        from names, generate_series(${start}::int, ${end}::int) n
      )
      insert into orders (merchant_id, kind, payment_link_id, hash, status, value_centavos, reference, provider, created_at, updated_at)
      select ${id}, kind, substr(md5(${id} || n || 'link'), 1, 20), md5(${id} || n || 'hash'),
             (array['COMPLETED','COMPLETED','COMPLETED','CANCELLED','PENDING'])[1 + n % 5],
             100 + (hashint4(n + 3) & 2147483647) % 200000,
             case kind
               when 'pix' then jsonb_build_object('orderId', 'PED-' || lpad(n::text, 7, '0'), 'name', name, 'cpf', lpad(((hashint8(n) & 9223372036854775807) % 100000000000)::text, 11, '0'))
               when 'exchange' then jsonb_build_object('payerId', 'cliente-' || n)
               else jsonb_build_object('email', lower(replace(name, ' ', '.')) || n || '@example.com', 'name', name)
             end,
             'sandbox', now() - n * interval '30 seconds', now() - n * interval '30 seconds'
      from g`;
    console.log(`  ${companyName}: orders ${start}–${end} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await sql`analyze orders`;
  return id;
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1] };
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("Set DATABASE_URL to a database of its own (createdb search_bench)");
  await runMigrations(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const merchantId = await seedMerchant(sql, BENCH_MERCHANT, ORDERS);
  await seedMerchant(sql, "Search bench other merchant", OTHER_ORDERS);

  // Real values of the seeded data to look for: an order in the middle of the range.
  const probe = Math.floor(ORDERS * 0.73);
  const [row] = await sql<
    { id: string; payment_link_id: string; value_centavos: string; cpf: string; order_id: string }[]
  >`
    select id, payment_link_id, value_centavos, reference->>'cpf' as cpf, reference->>'orderId' as order_id from orders
    where merchant_id = ${merchantId} and reference->>'orderId' = ${"PED-" + String(probe - (probe % 10)).padStart(7, "0")}`;
  const cpf = row.cpf;
  const reais = `${Math.floor(Number(row.value_centavos) / 100)},${String(Number(row.value_centavos) % 100).padStart(2, "0")}`;
  const searches: [string, string][] = [
    ["(no search: the newest page)", ""],
    ["merchant's orderId, exact", row.order_id],
    ["orderId, partial (PED-07300…)", row.order_id.slice(0, 9)],
    ["customer name, full", "Maria Oliveira"],
    ["customer name, one common word", "maria"],
    ["CPF, masked", `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`],
    ["CPF, digits", cpf],
    ["order id, first 8 characters", row.id.slice(0, 8)],
    ["payment link id", row.payment_link_id],
    ["amount, pt-BR", reais],
    ["full order id", row.id],
    ["nothing matches", "zzqxw"],
  ];
  console.log(
    `\n${ORDERS.toLocaleString("en")} orders for one merchant (+${OTHER_ORDERS.toLocaleString("en")} for another); ${RUNS} runs each, first page of 20:`,
  );
  console.log("search".padEnd(40), "q".padEnd(38), "found", "median ms", "p95 ms", "max ms");
  for (const [what, q] of searches) {
    const query = listOrdersQuery.parse({ q, limit: "20" });
    const found = (await listOrders(merchantId, query)).orders.length; // warm-up, and what it found
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await listOrders(merchantId, query);
      times.push(performance.now() - t);
    }
    const { median, p95, max } = stats(times);
    console.log(
      what.padEnd(40),
      q.padEnd(38),
      String(found).padStart(5),
      median.toFixed(1).padStart(9),
      p95.toFixed(1).padStart(6),
      max.toFixed(1).padStart(6),
    );
  }
  await sql.end();
  await closeDb();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
