import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { createMerchant, ownDatabase, startServer, stopServer } from "./support/server";

// Two app instances on one database, load on both: background work (expiry sweeps, withdrawal jobs)
// must happen once per object, never twice, whichever instance picks it up.

test.setTimeout(180_000);

test("two instances share the work: every order expires once, every withdrawal settles once, every event is delivered once", async () => {
  // A webhook receiver counting deliveries per webhook-id (the event id).
  const received = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const id = String(req.headers["webhook-id"] ?? "");
    req.resume();
    req.on("end", () => {
      received.set(id, (received.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const pg = await ownDatabase();
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  const env = { EXPIRY_LIGHTNING_SECONDS: "3", EXPIRY_SWEEP_SECONDS: "1", SANDBOX_SETTLE_SECONDS: "0" };
  const a = await startServer(pg.url, env);
  const b = await startServer(pg.url, env);
  try {
    const { apiKey, merchant } = await createMerchant(a.url, {
      companyName: "Two Instances",
      pixKey: "52998224725",
      accountType: "business",
      openingBalance: 500_000,
    });
    const call = (base: string, method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, body: await r.json() }));

    const hook = await call(a.url, "POST", "/api/v1/webhooks", { url: receiverUrl, description: "two instances" });
    expect(hook.status).toBe(201);

    const work: Promise<{ status: number; body: any }>[] = [];
    for (let i = 0; i < 60; i++) {
      const base = i % 2 ? a.url : b.url;
      work.push(call(base, "POST", "/api/v1/order/create/lightning", { value: 5 + i }));
      if (i % 3 === 0) work.push(call(base, "POST", "/api/v1/order/pix-out", { value: 100 + i }));
      work.push(call(i % 2 ? b.url : a.url, "GET", "/api/v1/account"));
    }
    const results = await Promise.all(work);
    expect(results.filter((r) => r.status >= 300)).toEqual([]);
    const orderIds = results.filter((r) => r.body.order?.invoice).map((r) => r.body.order.id as string);
    const withdrawalIds = results.filter((r) => r.body.amount && r.body.id).map((r) => r.body.id as string);
    expect(orderIds).toHaveLength(60);
    expect(withdrawalIds).toHaveLength(20);

    await expect
      .poll(
        async () =>
          Number(
            (await sql`select count(*)::int as n from orders where id = any(${orderIds}) and status = 'CANCELLED'`)[0]
              .n,
          ),
        { timeout: 60_000 },
      )
      .toBe(60);
    await expect
      .poll(
        async () =>
          Number(
            (
              await sql`select count(*)::int as n from withdrawals where id = any(${withdrawalIds}) and status = 'COMPLETED'`
            )[0].n,
          ),
        {
          timeout: 60_000,
        },
      )
      .toBe(20);

    // Exactly one CANCELLED event per order and one COMPLETED event per withdrawal: no double work.
    const expiryEvents = await sql`
      select subject_id, count(*)::int as n from events
      where type = 'order.status_changed' and data->>'status' = 'CANCELLED' and subject_id = any(${orderIds})
      group by subject_id`;
    expect(expiryEvents).toHaveLength(60);
    expect(expiryEvents.every((r) => r.n === 1)).toBe(true);
    const settleEvents = await sql`
      select subject_id, count(*)::int as n from events
      where type = 'withdrawal.pix_out.status_changed' and data->>'status' = 'COMPLETED' and subject_id = any(${withdrawalIds})
      group by subject_id`;
    expect(settleEvents).toHaveLength(20);
    expect(settleEvents.every((r) => r.n === 1)).toBe(true);

    // Every event of this merchant reaches the receiver, and none twice: two dispatchers never claim
    // the same delivery (with a healthy receiver there is no retry, so no duplicate).
    const eventIds = (await sql`select id::text from events where merchant_id = ${merchant.id}`).map(
      (r) => r.id as string,
    );
    expect(eventIds.length).toBeGreaterThanOrEqual(60 + 40);
    await expect
      .poll(() => eventIds.filter((id) => received.has(id)).length, { timeout: 60_000 })
      .toBe(eventIds.length);
    expect([...received.values()].filter((n) => n > 1)).toEqual([]);

    const [{ balance, ledger }] = await sql`
      select (m.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = m.id), 0))::bigint as balance, (select coalesce(sum(amount_centavos), 0) from ledger_entries where merchant_id = m.id)::bigint as ledger
      from merchants m where m.id = ${merchant.id}`;
    expect(balance).toBe(ledger);
  } finally {
    receiver.close();
    await stopServer(a);
    await stopServer(b);
    await sql.end();
    await pg.stop();
  }
});
