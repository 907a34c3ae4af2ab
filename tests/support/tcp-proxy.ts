import { createConnection, createServer, type Socket } from "node:net";

type Pair = { client: Socket; upstream: Socket | null };

/**
 * A TCP proxy on 127.0.0.1 in front of a server (PostgreSQL, here), to fail the network between the
 * app and it: `cut` drops every open connection and resets new ones, as a crashed host does;
 * `partition` lets nothing through either way while connections stay open (bytes wait in the
 * proxy, new connections are accepted and hear nothing), as a network that drops packets does.
 * `restore` ends either; a partition's waiting bytes then flow on.
 */
export async function startTcpProxy(initial: { host: string; port: number }) {
  let target = initial;
  const pairs = new Set<Pair>();
  let mode: "open" | "cut" | "partition" = "open";

  const drop = (p: Pair) => {
    p.client.destroy();
    p.upstream?.destroy();
    pairs.delete(p);
  };
  const connect = (p: Pair) => {
    const upstream = (p.upstream = createConnection(target));
    upstream.on("error", () => drop(p)).on("close", () => drop(p));
    p.client.pipe(upstream).pipe(p.client);
  };
  const server = createServer((client) => {
    if (mode === "cut") {
      client.resetAndDestroy();
      return;
    }
    const p: Pair = { client, upstream: null };
    pairs.add(p);
    client.on("error", () => drop(p)).on("close", () => drop(p));
    if (mode === "partition") client.pause();
    else connect(p);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    /** Every open connection dropped (reset), and new ones refused until restore(). */
    cut() {
      mode = "cut";
      for (const p of pairs) {
        p.client.resetAndDestroy();
        p.upstream?.destroy();
      }
      pairs.clear();
    },
    /** Nothing passes either way until restore(); no connection is closed. */
    partition() {
      mode = "partition";
      for (const p of pairs) {
        if (!p.upstream) continue;
        p.client.unpipe(p.upstream);
        p.upstream.unpipe(p.client);
        p.client.pause();
        p.upstream.pause();
      }
    },
    /** New connections go to `to` from now on; open ones are dropped, as when an address moves to another server. */
    retarget(to: { host: string; port: number }) {
      target = to;
      for (const p of pairs) drop(p);
    },
    restore() {
      const was = mode;
      mode = "open";
      if (was !== "partition") return;
      for (const p of pairs) {
        if (!p.upstream) {
          connect(p);
          continue;
        }
        p.client.pipe(p.upstream).pipe(p.client);
        p.client.resume();
        p.upstream.resume();
      }
    },
    async close() {
      this.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
