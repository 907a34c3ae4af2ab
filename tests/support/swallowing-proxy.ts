import { createConnection, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that can lose a server's answer the way PgBouncer 1.18 does in
 * transaction mode ("got packet '1' from server when not linked"): once armed, the next Parse a client
 * sends still reaches the server, but nothing the server says on that connection from then on reaches
 * the client. The connection stays open, so the client hears neither an answer nor a close.
 *
 * The client's side of the protocol is followed message by message (an untyped startup packet, after
 * an SSL or GSS request another one, then typed messages) to find the Parse ('P').
 */
export async function startSwallowingProxy(target: { host: string; port: number }) {
  let armed = 0;
  let connections = 0;
  let swallowed = 0;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    connections++;
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    let deaf = false;
    let untyped = true;
    let pending: Buffer = Buffer.alloc(0);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);

    // Whole messages of what the client sent; the bytes themselves are forwarded as they come.
    const scan = (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (untyped) {
          if (pending.length < 8) return;
          const length = pending.readUInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readUInt32BE(4);
          // SSLRequest and GSSENCRequest are followed by the startup packet, also untyped.
          untyped = code === 80877103 || code === 80877104;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readUInt32BE(1) + 1;
        if (pending.length < length) return;
        if (pending[0] === 0x50 /* P */ && armed > 0 && !deaf) {
          armed--;
          swallowed++;
          deaf = true;
        }
        pending = pending.subarray(length);
      }
    };
    client.on("data", (chunk: Buffer) => {
      scan(chunk);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!deaf) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    /** The next Parse any client sends goes unanswered, and so does everything after it on that connection. */
    swallowNextParse() {
      armed++;
    },
    /** Connections accepted so far. */
    connections: () => connections,
    /** Connections made deaf so far. */
    swallowed: () => swallowed,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
