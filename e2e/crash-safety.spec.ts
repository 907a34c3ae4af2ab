import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { createMerchant, ownDatabase, startServer, stopServer } from "./support/server";

// Kill the server with SIGKILL while 200 orders and 50 withdrawals are in flight, start it again, and
// check that every request that was answered 2xx is in the database, nothing is half-written, and
// every balance equals its ledger.

test.setTimeout(180_000);

test("SIGKILL mid-load loses no acknowledged write and leaves nothing half-written", async () => {
  const pg = await ownDatabase();
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  try {
    let server = await startServer(pg.url, { SANDBOX_SETTLE_SECONDS: "0" });
    const { apiKey, merchant } = await createMerchant(server.url, {
      companyName: "Crash Test",
      pixKey: "52998224725",
      accountType: "business",
      openingBalance: 1_000_000,
    });
    const post = (path: string, body: unknown) =>
      fetch(server.url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(
        async (res) => ({ path, status: res.status, body: res.status < 300 ? await res.json() : null }),
        () => ({ path, status: 0, body: null }),
      );

    const requests: Promise<{ path: string; status: number; body: any }>[] = [];
    const kinds = [
      ["/api/v1/order/create/pix", { value: 10 }],
      ["/api/v1/order/create", { value: 11 }],
      ["/api/v1/order/create/lightning", { value: 12 }],
      ["/api/v1/onchain/deposit", { value: 54, asset: "USDT", network: "polygon" }],
    ] as const;
    for (let i = 0; i < 200; i++) {
      const [path, body] = kinds[i % kinds.length];
      requests.push(post(path, body));
      if (i % 4 === 0) {
        requests.push(
          i % 8 === 0
            ? post("/api/v1/order/pix-out", { value: 100 })
            : post("/api/v1/onchain/withdraw/initiate", {
                toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                value: 1,
                network: "polygon",
              }),
        );
      }
    }
    // Kill once 60 writes are acknowledged, so some requests are mid-flight. Acknowledged, not merely
    // answered: on a busy machine part of the load is refused (503) before any write.
    let acknowledged = 0;
    let settled = 0;
    requests.forEach(
      (p) =>
        void p.then((r) => {
          settled++;
          if (r.status >= 200 && r.status < 300) acknowledged++;
        }),
    );
    while (acknowledged < 60 && settled < requests.length) await new Promise((r) => setTimeout(r, 5));
    await stopServer(server, "SIGKILL");
    const results = await Promise.all(requests);
    const ok = results.filter((r) => r.status >= 200 && r.status < 300);
    const cut = results.filter((r) => r.status === 0).length;
    console.log(
      `crash test: ${ok.length} acknowledged, ${cut} cut off by SIGKILL, ${results.length - ok.length - cut} refused`,
    );
    expect(ok.length).toBeGreaterThanOrEqual(60);
    // The kill really happened mid-load: some requests never got an answer.
    expect(cut).toBeGreaterThan(0);
    expect(results.length).toBe(250);

    server = await startServer(pg.url, { SANDBOX_SETTLE_SECONDS: "0" });
    try {
      // Every acknowledged write is there.
      for (const r of ok) {
        if (r.path === "/api/v1/order/create/pix") {
          const [row] = await sql`select brcode, txid from orders where id = ${r.body.pixOrder._id}`;
          expect(row?.brcode).toBe(r.body.qrCode);
        } else if (r.path === "/api/v1/order/create" || r.path === "/api/v1/order/create/lightning") {
          const [row] = await sql`select id from orders where id = ${r.body.order.id}`;
          expect(row).toBeDefined();
        } else if (r.path === "/api/v1/onchain/deposit") {
          const [row] =
            await sql`select o.address, d.address as registered from onchain_orders o join deposit_addresses d using (wallet_index) where payment_link_id = ${r.body.order.paymentLinkId}`;
          expect(row?.address).toBe(r.body.order.address);
          expect(row?.registered).toBe(r.body.order.address);
        } else {
          const [row] = await sql`select id from withdrawals where id = ${r.body.id}`;
          expect(row).toBeDefined();
        }
      }
      // Nothing half-written: every withdrawal has its debit and its event, every debit its withdrawal,
      // and every balance equals its ledger.
      const orphans = await sql`
        select w.id from withdrawals w
        where not exists (select 1 from ledger_entries l where l.ref_type = 'withdrawal' and l.ref_id = w.id::text and l.kind = 'withdrawal_debit')
           or not exists (select 1 from events e where e.subject_id = w.id::text)`;
      expect(orphans).toHaveLength(0);
      const danglingDebits = await sql`
        select l.id from ledger_entries l where l.ref_type = 'withdrawal' and not exists (select 1 from withdrawals w where w.id::text = l.ref_id)`;
      expect(danglingDebits).toHaveLength(0);
      const addressless =
        await sql`select o.id from onchain_orders o left join deposit_addresses d using (wallet_index) where d.address is null`;
      expect(addressless).toHaveLength(0);
      const mismatched = await sql`
        select m.id from merchants m
        where (m.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = m.id), 0)) <> coalesce((select sum(amount_centavos) from ledger_entries l where l.merchant_id = m.id), 0)`;
      expect(mismatched).toHaveLength(0);

      // The restarted server's jobs carry the pending withdrawals to a final state.
      await expect
        .poll(
          async () =>
            Number(
              (
                await sql`select count(*)::int as n from withdrawals where merchant_id = ${merchant.id} and status = 'PENDING'`
              )[0].n,
            ),
          {
            timeout: 60_000,
          },
        )
        .toBe(0);
      const [{ n: after }] =
        await sql`select count(*)::int as n from merchants m where (m.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = m.id), 0)) <> coalesce((select sum(amount_centavos) from ledger_entries l where l.merchant_id = m.id), 0)`;
      expect(after).toBe(0);
    } finally {
      await stopServer(server);
    }
  } finally {
    await sql.end();
    await pg.stop();
  }
});
