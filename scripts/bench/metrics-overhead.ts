import { API_ENDPOINTS } from "@/lib/api/endpoints";
import { PlainHeaders, type ApiRequest } from "@/lib/http/request";
import { createRouter } from "@/lib/http/router";
import { observeRequest, UNMATCHED_ROUTE } from "@/lib/metrics/http";

// `npx tsx scripts/bench/metrics-overhead.ts`: what the request metrics cost on the API's hot path.
// The same route table behind two routers, one with the metrics observer (as lib/api/endpoints.ts
// builds it) and one without, answer the same requests in alternating rounds; the difference per
// request is the observer's cost (a timestamp, one promise step, one histogram observation). Two
// requests that need no database: an endpoint's 401 for a missing API key (through the endpoint's
// wrapper, as every API request goes) and an unknown path (the router's own 404). Also the bare
// observation, on its own. Run it on an idle machine: on a busy one the rounds vary more than this.

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const PER_ROUND = Number(process.env.BENCH_REQUESTS ?? 50_000);

const plain = createRouter(API_ENDPOINTS);
const measured = createRouter(API_ENDPOINTS, {
  observe: (method, route, status, startedAt) => observeRequest(method, route ?? UNMATCHED_ROUTE, status, startedAt),
});

const request = (path: string): ApiRequest => ({
  method: "GET",
  url: `http://127.0.0.1:3000${path}`,
  headers: new PlainHeaders(["host", "127.0.0.1:3000"]),
});

async function round(router: typeof plain, path: string): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < PER_ROUND; i++) {
    const res = await router.handle(request(path));
    if (res.status >= 500) throw new Error(`${path} answered ${res.status}`);
  }
  return Number(process.hrtime.bigint() - started) / PER_ROUND;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function compare(path: string) {
  await round(plain, path);
  await round(measured, path); // warm-up: JIT, label children
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await round(plain, path));
    b.push(await round(measured, path));
  }
  const [without, withMetrics] = [median(a), median(b)];
  console.log(
    `${path.padEnd(24)} without ${(without / 1000).toFixed(2)} µs/req   with ${(withMetrics / 1000).toFixed(2)} µs/req   ` +
      `cost ${((withMetrics - without) / 1000).toFixed(2)} µs/req (${(((withMetrics - without) / without) * 100).toFixed(1)}% of the router's work)`,
  );
}

async function main() {
  console.log(`${ROUNDS} alternating rounds of ${PER_ROUND} requests each; medians`);
  await compare("/api/v1/account");
  await compare("/api/v1/no/such/path");
  const n = 1_000_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) observeRequest("GET", "/api/v1/order/{id}", 200, performance.now());
  console.log(`observeRequest alone: ${(Number(process.hrtime.bigint() - t0) / n).toFixed(0)} ns`);
}

void main();
