import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { seedMerchant } from "./helpers";

// SIGTERM on a real server process (tests/fixtures/ops-server.ts: the production server's node:http
// server, job runner and shutdown, without Next): a request in flight when the signal arrives is
// answered, new connections are refused meanwhile, and the process exits 0 once it is done.

const ROOT = path.resolve(__dirname, "..");
const children: ChildProcess[] = [];

type Started = {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  output: () => string;
};

function startServer(env: Record<string, string> = {}): Promise<Started> {
  // node with tsx's loader: the signal reaches the server itself, not a tsx CLI in front of it.
  const child = spawn(process.execPath, ["--import", "tsx", "tests/fixtures/ops-server.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      output += d.toString();
      const m = /listening (\d+)/.exec(output);
      if (m) resolve({ child, port: Number(m[1]), exited, output: () => output });
    });
    void exited.then(({ code }) => reject(new Error(`server exited (${code}) before listening: ${output}`)));
  });
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

type Answer = { status: number; body: string; at: number };

/**
 * A POST whose body is sent in two parts: the request is in flight until `finish`. Over a keep-alive
 * connection, which stays open after the answer unless the server closes it.
 */
function slowPost(port: number, path: string, headers: Record<string, string>, body: string) {
  const bytes = Buffer.from(body);
  const agent = new http.Agent({ keepAlive: true });
  const req = http.request({
    host: "127.0.0.1",
    port,
    path,
    method: "POST",
    agent,
    headers: { ...headers, "content-type": "application/json", "content-length": String(bytes.length) },
  });
  const answered = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body: text, at: Date.now() }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  req.write(bytes.subarray(0, 10));
  return { answered, finish: () => req.end(bytes.subarray(10)) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connectionRefused(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`);
    return false;
  } catch (err) {
    return (err as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED";
  }
}

describe("graceful shutdown", () => {
  it("SIGTERM while a request is in flight: new connections are refused, the request is answered, the process exits 0", async () => {
    const { apiKey } = await seedMerchant();
    const s = await startServer({ SHUTDOWN_TIMEOUT_MS: "15000" });
    expect((await fetch(`http://127.0.0.1:${s.port}/readyz`)).status).toBe(200);

    const post = slowPost(
      s.port,
      "/api/v1/order/create/pix",
      { authorization: `Bearer ${apiKey}` },
      JSON.stringify({ value: 12.34 }),
    );
    await sleep(300);
    s.child.kill("SIGTERM");
    await sleep(500);
    // Still draining: the listener is closed, the request is waiting for the rest of its body.
    expect(s.child.exitCode).toBeNull();
    expect(await connectionRefused(s.port)).toBe(true);

    post.finish();
    const answer = await post.answered;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).pixOrder.value).toBe(12.34);
    const exit = await s.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at).toBeGreaterThanOrEqual(answer.at);
    // Its keep-alive connection was closed once answered, not left to hold the shutdown to the deadline.
    expect(exit.at - answer.at).toBeLessThan(10_000);
    expect(s.output()).toContain("shutting down");
    expect(s.output()).toContain('"msg":"shut down"');
  });

  it("idle keep-alive connections do not hold the shutdown: the process exits long before SHUTDOWN_TIMEOUT_MS", async () => {
    const s = await startServer({ SHUTDOWN_TIMEOUT_MS: "60000" });
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) =>
      http
        .get({ host: "127.0.0.1", port: s.port, path: "/healthz", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode!));
        })
        .on("error", reject),
    );
    expect(status).toBe(200);
    const sent = Date.now();
    s.child.kill("SIGTERM");
    const exit = await s.exited;
    agent.destroy();
    expect(exit.code).toBe(0);
    // The job runner's own stop takes about a second; the keep-alive timeout (65 s) is never waited out.
    expect(exit.at - sent).toBeLessThan(20_000);
  });

  it("a request still unanswered at SHUTDOWN_TIMEOUT_MS is cut, and the process still exits 0", async () => {
    const { apiKey } = await seedMerchant();
    const s = await startServer({ SHUTDOWN_TIMEOUT_MS: "1000", JOBS_ENABLED: "false" });
    const post = slowPost(
      s.port,
      "/api/v1/order/create/pix",
      { authorization: `Bearer ${apiKey}` },
      JSON.stringify({ value: 1 }),
    );
    await sleep(300);
    s.child.kill("SIGTERM");
    await expect(post.answered).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await s.exited).code).toBe(0);
    expect(s.output()).toContain("closing connections with requests still in flight");
  });
});
