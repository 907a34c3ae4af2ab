import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { orders } from "@/db/schema";
import { SANDBOX_DEPOSIT_XPRV } from "@/lib/chain/sandbox-keys";
import { api, seedMerchant } from "./helpers";
import { waitFor } from "./support/wait";

// The two processes of a deployment (docs/operations.md "Deploying: API servers and workers"), run as
// `npm start` runs them (scripts/start.ts, with tsx's loader instead of the bundle): the API server
// refuses the deposit key; the worker (--worker) takes it, runs the jobs and listens on nothing.

const ROOT = path.resolve(__dirname, "..");
const children: ChildProcess[] = [];

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, PAYMENTS_MODE: "sandbox", SEED_DEMO_MERCHANT: "false", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

function keyFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "deposit-key-"));
  const file = path.join(dir, "xprv");
  writeFileSync(file, SANDBOX_DEPOSIT_XPRV, { mode: 0o600 });
  return file;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

describe("npm start and npm run worker", () => {
  it(
    "the API server refuses to start with DEPOSIT_XPRV_FILE, naming it and the worker",
    { timeout: 60_000 },
    async () => {
      const server = start([], { DEPOSIT_XPRV_FILE: keyFile(), PORT: "3193" });
      expect(await server.exited).toBe(1);
      expect(server.output()).toMatch(
        /Refusing to start the API server: DEPOSIT_XPRV_FILE is set.*never be in a process that serves HTTP.*npm run worker/,
      );
      expect(await listening(3193)).toBe(false);
    },
  );

  it(
    "--worker holds the key, runs the jobs (the sweep expires an order) and serves no HTTP; SIGTERM stops it",
    { timeout: 90_000 },
    async () => {
      const { apiKey } = await seedMerchant();
      const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 7, expiresIn: 60 } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.pixOrder._id as string;
      await db()
        .update(orders)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(orders.id, id));

      const worker = start(["--worker"], { DEPOSIT_XPRV_FILE: keyFile(), PORT: "3194", EXPIRY_SWEEP_SECONDS: "1" });
      await waitFor(
        "the worker ready",
        async () => worker.output(),
        (out) => /worker ready: .*serving no HTTP.*holding the deposit key/.test(out) || worker.child.exitCode !== null,
        60_000,
      );
      expect(worker.output()).toMatch(/worker ready/);
      await waitFor(
        "the order cancelled by the worker's sweep",
        async () => (await db().select().from(orders).where(eq(orders.id, id)))[0],
        (o) => o.status === "CANCELLED",
        30_000,
      );
      expect(await listening(3194)).toBe(false);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
    },
  );

  it(
    "--worker without DATABASE_URL refuses: the embedded database belongs to the one-process start",
    { timeout: 60_000 },
    async () => {
      const worker = start(["--worker"], { DATABASE_URL: "" });
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toMatch(/Refusing to start the worker: the worker needs DATABASE_URL/);
    },
  );
});
