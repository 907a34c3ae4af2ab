import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedHandle } from "../../db/embedded";
import { productionNodeFlags } from "../../scripts/production-flags";
import { freePort } from "./ports";

// Helpers for system tests that run their own server processes (crash safety, several instances):
// the real server of the built app (`scripts/start.ts` as `npm run build` bundles it), on a PostgreSQL the test owns.

export const ADMIN_TOKEN = "system-admin-token-0123456789abcdefghijklmnop";

export async function ownDatabase(): Promise<EmbeddedHandle> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "payments-system-"));
  fs.chmodSync(dir, 0o755);
  return startEmbeddedPostgres({
    dataDir: path.join(dir, "pg"),
    port: await freePort(),
    database: "system",
    persistent: false,
  });
}

export type Server = { url: string; child: ChildProcess; logs: string[] };

/** The built server on `databaseUrl`, on a port the system picks unless one is given. */
export async function startServer(
  databaseUrl: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<Server> {
  port ??= await freePort();
  const logs: string[] = [];
  const child = spawn(process.execPath, [...productionNodeFlags(), "dist/server/start.cjs"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ADMIN_TOKEN,
      SEED_DEMO_MERCHANT: "false",
      RATE_LIMIT_PER_MINUTE: "0",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => logs.push(String(d)));
  child.stderr?.on("data", (d: Buffer) => logs.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${logs.join("")}`);
    try {
      const res = await fetch(`${url}/api/v1/__ready`);
      if (res.status === 404) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${logs.join("")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child, logs };
}

export async function stopServer(server: Server, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((r) => server.child.once("exit", r));
  server.child.kill(signal);
  await exited;
}

export async function createMerchant(
  baseUrl: string,
  body: Record<string, unknown>,
): Promise<{ apiKey: string; merchant: { id: string } }> {
  const res = await fetch(`${baseUrl}/api/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`merchant creation failed: ${res.status} ${await res.text()}`);
  return res.json();
}
