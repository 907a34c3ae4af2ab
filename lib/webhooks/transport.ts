import http from "node:http";
import https from "node:https";
import net from "node:net";
import { StringDecoder } from "node:string_decoder";
import { classifyAddress, ForbiddenAddressError, guardedLookup } from "./ssrf";

// One HTTP POST to a merchant's endpoint, with the guarantees delivery needs: a hard deadline over
// the whole exchange, no redirects (node:http never follows them), at most 1 KiB of the answer kept,
// and the SSRF guard applied to the address actually connected to.

export const RESPONSE_EXCERPT_BYTES = 1024;
/** Read at most this much of an answer; the rest is not worth holding a socket for. */
const MAX_RESPONSE_READ = 64 * 1024;

export type PostResult = {
  statusCode: number | null;
  /** Why the attempt did not get a complete answer (null when it did). */
  error: string | null;
  responseExcerpt: string | null;
  durationMs: number;
};

// Keep-alive agents: consecutive events to the same receiver reuse the connection, which is most of
// the latency of a small webhook. The address of a reused socket was checked when it was opened.
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 32, keepAliveMsecs: 1000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 32, keepAliveMsecs: 1000 }),
};

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof ForbiddenAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case "EWEBHOOKTIMEOUT":
      return `timed out after ${timeoutMs} ms`;
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset by the receiver";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found (${e.code})`;
    default:
      return (e.code ? `${e.code}: ${e.message}` : String(e.message ?? err)).slice(0, 500);
  }
}

/** PostgreSQL text cannot hold NUL; a character cut at the 1 KiB mark is dropped, not mangled. */
function excerpt(buf: Buffer): string {
  return new StringDecoder("utf8").write(buf).replace(/\u0000/g, "\uFFFD");
}

export function postJson(
  target: string,
  headers: Record<string, string>,
  body: Buffer,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let settled = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const timeoutError = () => Object.assign(new Error("timeout"), { code: "EWEBHOOKTIMEOUT" });
    const finish = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const failure = err ?? (timedOut ? timeoutError() : null);
      resolve({
        statusCode,
        error: failure ? describe(failure, opts.timeoutMs) : null,
        responseExcerpt: statusCode === null ? null : excerpt(Buffer.concat(kept)),
        durationMs: Math.round(performance.now() - started),
      });
    };

    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return finish(new Error("invalid URL"));
    }
    const isHttps = url.protocol === "https:";
    if (!isHttps && url.protocol !== "http:") return finish(new Error(`unsupported protocol ${url.protocol}`));
    // An IP literal is never passed to `lookup`, so it is checked here.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (!opts.allowPrivate && net.isIP(host)) {
      const cls = classifyAddress(host);
      if (cls !== "public") return finish(new ForbiddenAddressError(host, host, cls));
    }

    const req = (isHttps ? https : http).request(url, {
      method: "POST",
      agent: isHttps ? agents.https : agents.http,
      lookup: guardedLookup(opts.allowPrivate),
      headers: { ...headers, "content-type": "application/json", "content-length": String(body.length) },
    });
    timer = setTimeout(() => {
      timedOut = true;
      req.destroy(timeoutError());
    }, opts.timeoutMs);

    // The body is written only once the socket is connected and its peer checked: a second look at
    // the address actually connected to, whatever resolved it.
    req.on("socket", (socket) => {
      const send = () => {
        const peer = socket.remoteAddress;
        if (!opts.allowPrivate && peer) {
          const cls = classifyAddress(peer);
          if (cls !== "public") return req.destroy(new ForbiddenAddressError(host, peer, cls));
        }
        req.end(body);
      };
      if (socket.connecting) socket.once("connect", send);
      else send();
    });
    req.on("response", (res) => {
      statusCode = res.statusCode ?? null;
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (keptBytes < RESPONSE_EXCERPT_BYTES) {
          const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        if (read > MAX_RESPONSE_READ) {
          res.destroy();
          finish(null);
        }
      });
      res.on("end", () => finish(null));
      res.on("error", (err) => finish(err));
      res.on("close", () => finish(null));
    });
    req.on("error", (err) => finish(err));
  });
}
