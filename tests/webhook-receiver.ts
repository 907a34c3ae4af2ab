import http from "node:http";
import type { AddressInfo } from "node:net";

// A real HTTP receiver for webhook tests, on 127.0.0.1 and a random port. `respond` decides each
// answer (and may take its time, to hold a request open).

export type Received = { headers: Record<string, string>; body: string; json: any; at: number; n: number };
type Answer = { status: number; body?: string };
type Respond = (r: Received) => Answer | Promise<Answer>;

export type Receiver = {
  url: string;
  port: number;
  received: Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: () => number;
  ids: () => string[];
  waitFor: (what: string, done: (received: Received[]) => boolean, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
};

export async function startReceiver(respond: Respond = () => ({ status: 200, body: "ok" })): Promise<Receiver> {
  const received: Received[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = null;
      }
      const r: Received = {
        headers: req.headers as Record<string, string>,
        body,
        json: parsed,
        at: performance.now(),
        n: received.length + 1,
      };
      received.push(r);
      try {
        const a = await respond(r);
        if (!res.destroyed) res.writeHead(a.status, { "content-type": "text/plain" }).end(a.body ?? "");
      } catch {
        res.destroy();
      }
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    connections: () => connections,
    ids: () => received.map((r) => r.json?.id as string),
    async waitFor(what, done, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > until)
          throw new Error(
            `timed out waiting for ${what}; received ${received.length}: ${JSON.stringify(received.map((r) => r.json?.type))}`,
          );
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
