// `npx tsx scripts/bench/dashboard-rss.ts [appDir]`: the built app's resident memory (RSS, off /proc)
// and V8 heap before and after every dashboard page has been rendered, as `npm start` runs it (its heap
// cap included). A scratch database, a merchant seeded through the operator API with one record of each
// kind a detail page shows, a browser signed in through the real form, then each page opened in turn
// (twice: the second pass shows what stays). RSS is sampled every 100 ms; the peak is over the whole run.
// At start and at the end it also prints where the RSS is (`/proc/<pid>/smaps`, resident MB by mapping:
// the node binary, each native addon, other files, anonymous memory, the malloc heap) and the V8 heap
// by space, committed and used (the server's own /metrics): `where` in the output.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench/dashboard-rss.ts .
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { chromium } from "@playwright/test";
import postgres from "postgres";
import { runMigrations } from "@/db/migrate";
import { productionNodeFlags } from "../production-flags";

const APP = path.resolve(process.argv[2] ?? ".");
const ADMIN_TOKEN = "dashboard-rss-admin-token-0123456789abcdef";
const METRICS_TOKEN = "dashboard-rss-metrics-token-0123456789abcdef";
const PASSWORD = "correct horse battery";
const PAGES = [
  "/dashboard",
  "/dashboard/orders",
  "/dashboard/orders/new",
  "/dashboard/statement",
  "/dashboard/withdrawals",
  "/dashboard/withdrawals/destinations",
  "/dashboard/payment-links",
  "/dashboard/payment-links/new",
  "/dashboard/invoices",
  "/dashboard/invoices/new",
  "/dashboard/subscriptions",
  "/dashboard/subscriptions/new",
  "/dashboard/recipients",
  "/dashboard/recipients/new",
  "/dashboard/disputes",
  "/dashboard/developers",
  "/dashboard/team",
  "/dashboard/settings",
  "/dashboard/security",
  "/dashboard/audit",
  "/dashboard/outbox",
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
};

/** Resident MB by what is mapped: the node binary, each `.node` addon, other files, anonymous, [heap]. */
function residentByMapping(pid: number): Record<string, number> {
  const kb = new Map<string, number>();
  let name = "";
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const file = head[1];
      name =
        file === ""
          ? "anonymous (V8 heap, malloc arenas, thread stacks)"
          : file === process.execPath || file.endsWith("/bin/node")
            ? "node binary"
            : file.endsWith(".node")
              ? path.basename(file)
              : file.startsWith("[")
                ? file
                : "other files";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kb.set(name, (kb.get(name) ?? 0) + Number(rss[1]));
  }
  return Object.fromEntries(
    [...kb]
      .filter(([, v]) => v >= 512)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, Math.round(v / 1024)]),
  );
}

/** The V8 heap by space, committed / used MB, and memory outside it, off the server's /metrics. */
async function heapBySpace(base: string): Promise<Record<string, string>> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const mb = (v: string) => Math.round(Number(v) / 1048576);
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^nodejs_heap_space_size_(total|used)_bytes\{space="(\w+)"\} (\S+)$/gm)) {
    const [, kind, space, v] = m;
    const [total, used] = (out[space] ?? "?/?").split("/");
    out[space] = kind === "total" ? `${mb(v)}/${used}` : `${total}/${mb(v)}`;
  }
  const total = /^nodejs_heap_size_total_bytes (\S+)$/m.exec(text)?.[1];
  const used = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1];
  const external = /^nodejs_external_memory_bytes (\S+)$/m.exec(text)?.[1];
  if (total && used) out["all (committed/used)"] = `${mb(total)}/${mb(used)}`;
  if (external) out.external = `${mb(external)}`;
  return out;
}

async function main() {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error("DATABASE_URL: a server where a scratch database may be created");
  const name = `dashboard_rss_${process.pid}`;
  const root = postgres(admin, { max: 1, onnotice: () => {} });
  await root.unsafe(`create database "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  let child: ChildProcess | undefined;
  let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
  try {
    await runMigrations(url.toString());
    const port = 56000 + Math.floor(Math.random() * 800);
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [...productionNodeFlags(), "dist/server/start.cjs"], {
      cwd: APP,
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_BASE_URL: base,
        NODE_ENV: "production",
        SEED_DEMO_MERCHANT: "false",
        ADMIN_TOKEN,
        LOG_LEVEL: "warn",
        METRICS_TOKEN,
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const pid = child.pid!;
    let peak = 0;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssMb(pid));
      } catch {
        // exited
      }
    }, 100);
    for (let i = 0; ; i++) {
      if (i > 400) throw new Error("server did not start");
      try {
        if ((await fetch(`${base}/healthz`)).status < 500) break;
      } catch {
        // not yet
      }
      await sleep(300);
    }
    const started = rssMb(pid);
    const whereAtStart = { rss: residentByMapping(pid), heapMb: await heapBySpace(base) };
    const email = `rss-${process.pid}@example.com`;
    const res = await fetch(`${base}/api/v1/admin/merchants`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        companyName: "Loja RSS",
        pixKey: "52998224725",
        email,
        password: PASSWORD,
        openingBalance: 100000,
      }),
    });
    if (res.status !== 201) throw new Error(`merchant: ${res.status} ${await res.text()}`);
    const { apiKey } = (await res.json()) as { apiKey: string };
    const call = async (p: string, body: unknown) => {
      const r = await fetch(`${base}/api/v1${p}`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return r.ok ? ((await r.json()) as Record<string, unknown>) : null;
    };
    const order = await call("/order/create/pix", { value: 12.34, description: "rss" });
    const orderId = (order?.order as { id?: string } | undefined)?.id ?? (order?.id as string | undefined);
    const pages = [...PAGES, ...(orderId ? [`/dashboard/orders/${orderId}`] : [])];
    const afterApi = rssMb(pid);

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
    const page = await browser.newPage({ baseURL: base });
    await page.goto("/signin");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Senha", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Entrar" }).click();
    await page.waitForURL(/\/dashboard$/, { timeout: 60_000 });
    const passes: number[] = [];
    for (let pass = 0; pass < 2; pass++) {
      for (const p of pages) {
        const r = await page.goto(p, { waitUntil: "load" });
        if (!r || r.status() >= 400) console.error(`${p}: ${r?.status()}`);
      }
      passes.push(rssMb(pid));
    }
    await sleep(5000);
    const settled = rssMb(pid);
    clearInterval(sampler);
    const whereAtEnd = { rss: residentByMapping(pid), heapMb: await heapBySpace(base) };
    console.log(
      JSON.stringify({
        app: APP,
        pages: pages.length,
        rssMb: { started, afterApi, afterFirstPass: passes[0], afterSecondPass: passes[1], settled5s: settled, peak },
        load1: os.loadavg()[0],
      }),
    );
    console.log(JSON.stringify({ where: { started: whereAtStart, end: whereAtEnd } }, null, 1));
  } finally {
    await browser?.close();
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child!.once("exit", r));
    }
    await root.unsafe(`drop database "${name}" with (force)`);
    await root.end();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
