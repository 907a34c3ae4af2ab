import type { IncomingMessage, ServerResponse } from "node:http";
import { toApiRequest, writeWebResponse } from "@/lib/http/node-bridge";
import { log } from "@/lib/log";
import { apiRouter } from "./endpoints";

// The two ways a request reaches /api/v1, both ending in the one router: Next's catch-all route
// (app/api/v1/[[...slug]]/route.ts) hands it a Web Request; the production server's fast path
// (scripts/start.ts) hands it node:http's request, skipping Next's router, whose own cost per request
// is several times the handlers' (docs/performance.md).

/** For Next's route file: every method of every /api/v1 path. */
export function serveApiRequest(req: Request): Promise<Response> {
  return apiRouter.handle(req);
}

/**
 * The requests the fast path owns: /api/v1 paths in canonical form. Next answers a path with a
 * trailing slash or an empty segment with a 308 to the canonical one; leaving those to Next keeps the
 * two serving paths alike for them too.
 */
export function isApiPath(url: string): boolean {
  if (!url.startsWith("/api/v1")) return false;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (path === "/api/v1") return true;
  return path.startsWith("/api/v1/") && !path.endsWith("/") && !path.includes("//");
}

/** Serves one /api/v1 request straight from node:http. Never rejects: every failure is answered here. */
export async function dispatchApi(req: IncomingMessage, res: ServerResponse, baseUrl: string): Promise<void> {
  try {
    // Lookups come back synchronously: awaiting only real promises keeps promise creation (and
    // every AsyncLocalStorage's hook on it) off their path.
    const pending = toApiRequest(req, baseUrl);
    const request = pending instanceof Promise ? await pending : pending;
    const writing = writeWebResponse(res, await apiRouter.handle(request));
    if (writing) await writing;
  } catch (err) {
    log.error("api dispatch failed", { err });
    if (!res.headersSent)
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ message: "Internal error" }));
    else res.destroy();
  }
}
