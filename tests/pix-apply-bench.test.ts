import { describe, expect, it } from "vitest";
import { db } from "@/db";
import type { Order } from "@/db/schema";
import { env } from "@/lib/env";
import { randomBase62 } from "@/lib/ids";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { orderById } from "@/lib/orders/queries";
import { api, seedMerchant } from "./helpers";

// Throughput of the one path a PIX pays an order by (applyReceivedPix), for before/after figures.
// Runs only with BENCH_PIX=1 (a measurement, not a check).
describe.skipIf(!process.env.BENCH_PIX)("applyReceivedPix throughput", () => {
  it("pays N orders at concurrency C", { timeout: 600_000 }, async () => {
    const n = Number(process.env.BENCH_N ?? 400);
    const c = Number(process.env.BENCH_C ?? 8);
    const merchants = await Promise.all(
      Array.from({ length: Number(process.env.BENCH_MERCHANTS ?? 1) }, () => seedMerchant()),
    );
    const orders: Order[] = [];
    for (let i = 0; i < n; i++) {
      const res = await api("POST", "/api/v1/order/create/pix", {
        apiKey: merchants[i % merchants.length].apiKey,
        body: { value: 12.34 },
      });
      orders.push((await orderById(db(), res.body.pixOrder._id))!);
    }
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: c }, async () => {
        while (next < orders.length) {
          const o = orders[next++];
          const out = await applyReceivedPix(
            {
              endToEndId: `E00000000${randomBase62(21)}`,
              txid: o.txid,
              valueCentavos: o.valueCentavos,
              paidAt: new Date(),
              chave: env().PIX_RECEIVER_KEY,
            },
            "sandbox",
          );
          expect(out.duplicate).toBe(false);
        }
      }),
    );
    const s = (performance.now() - t0) / 1000;
    const { loadavg } = await import("node:os");
    console.log(
      `BENCH applyReceivedPix n=${n} c=${c}: ${(n / s).toFixed(0)} pays/s, load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
  });
});
