import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { dispatchApi, isApiPath } from "@/lib/api/serve";
import { stampClientAddress } from "@/lib/http/client-address";
import { log } from "@/lib/log";
import { NEXT_ROUTE, observeRequest } from "@/lib/metrics/http";
import { opsPath, serveOps, type OpsOptions } from "@/lib/ops/endpoints";
import { isDraining } from "@/lib/ops/readiness";

// The production server's one node:http server (scripts/start.ts): each request is looked at once
// and goes to the operator's endpoints (/healthz, /readyz, /metrics), the /api/v1 fast path, or Next.

export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export type AppServerOptions = {
  /** Next's request handler: everything that is neither an ops path nor served by the fast path. */
  next: NextHandler;
  /** Serve canonical /api/v1 paths straight from the router (API_FAST_PATH). */
  fastPath: boolean;
  /** The origin handlers see in request URLs. */
  baseUrl: string;
  /** TRUST_PROXY_HOPS: how many proxies' X-Forwarded-For entries to trust (docs/api.md#rate-limits, "Client address"). */
  proxyHops: number;
  ops?: OpsOptions;
};

export function createAppServer(opts: AppServerOptions): http.Server {
  const server = http.createServer((req, res) => {
    // Before anything reads the request: the one place the client's address is decided (docs/api.md#rate-limits).
    stampClientAddress(req, opts.proxyHops);
    // While shutting down, each answer closes its connection, so clients reconnect to another instance.
    if (isDraining()) res.setHeader("connection", "close");
    const url = req.url ?? "/";
    const ops = opsPath(url);
    if (ops) {
      const startedAt = performance.now();
      void serveOps(ops, req, res, opts.ops).then(() =>
        observeRequest(req.method ?? "GET", ops, res.statusCode, startedAt),
      );
    } else if (opts.fastPath && isApiPath(url)) {
      // The router measures these itself, by route template (lib/api/endpoints.ts).
      void dispatchApi(req, res, opts.baseUrl);
    } else {
      const startedAt = performance.now();
      // /api/v1 paths Next serves (API_FAST_PATH=false, non-canonical forms) are measured by the router.
      if (!url.startsWith("/api/v1"))
        res.once("finish", () => observeRequest(req.method ?? "GET", NEXT_ROUTE, res.statusCode, startedAt));
      opts.next(req, res).catch((err: unknown) => {
        // Through the logger, which keeps a database error's bound values out of the line.
        log.error("unhandled error in Next's request handler", { err });
        if (!res.headersSent) res.writeHead(500).end();
      });
    }
  });
  // Longer than the usual load balancer's idle timeout (60 s), so the balancer closes idle connections first.
  server.keepAliveTimeout = 65_000;
  return server;
}
