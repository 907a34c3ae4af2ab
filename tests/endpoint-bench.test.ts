import { describe, it } from "vitest";
import { loadavg } from "node:os";
import { api, seedMerchant } from "./helpers";

// In-process req/s of create-PIX and order lookup through the router (lib/http/endpoint.ts run()),
// for before/after figures. Runs only with BENCH_ENDPOINT=1 (a measurement, not a check).
async function rate(n: number, c: number, one: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) await one(next++);
    }),
  );
  return Math.round(n / ((performance.now() - t0) / 1000));
}

describe.skipIf(!process.env.BENCH_ENDPOINT)("endpoint run() throughput", () => {
  it("create-PIX and lookup", { timeout: 600_000 }, async () => {
    const n = Number(process.env.BENCH_N ?? 1500);
    const merchants = await Promise.all(Array.from({ length: 8 }, () => seedMerchant()));
    const ids: string[] = [];
    const key = (i: number) => merchants[i % merchants.length].apiKey;
    const create = await rate(n, 8, async (i) => {
      const res = await api("POST", "/api/v1/order/create/pix", { apiKey: key(i), body: { value: 10.5 } });
      ids[i] = res.body.pixOrder._id;
    });
    const lookup = await rate(n * 2, 8, async (i) => {
      const j = i % n;
      const res = await api("GET", `/api/v1/order/${ids[j]}`, { apiKey: key(j) });
      if (res.status !== 200) throw new Error(String(res.status));
    });
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
    console.log(`BENCH endpoint create ${create} req/s, lookup ${lookup} req/s, load ${load}`);
  });
});
