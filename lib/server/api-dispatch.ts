import type { IncomingMessage, ServerResponse } from "node:http";
import { notFoundHandler } from "@/lib/api/not-found";
import { newRequestId } from "@/lib/api/ids";
import { json } from "@/lib/api/respond";
import { matchRoute } from "@/lib/api/routes";
import { log } from "@/lib/log";
import { toApiRequest, writeWebResponse } from "./node-bridge";

/** The paths the fast path owns; everything else is Next's. */
export function isApiPath(url: string): boolean {
  return url.startsWith("/api/v1/") || url === "/api/v1";
}

/**
 * Serves one /api/v1 request (see isApiPath) through the route table, the same handlers the
 * app/api/v1 route files export. Never rejects: every failure is answered here.
 */
export async function dispatchApi(req: IncomingMessage, res: ServerResponse, baseUrl: string): Promise<void> {
  const url = req.url ?? "/";
  try {
    const pathname = url.split("?")[0];
    const match = matchRoute(req.method ?? "GET", pathname);
    // Lookups come back synchronously: awaiting only real promises keeps promise creation (and
    // every AsyncLocalStorage's hook on it) off their path.
    const pending = toApiRequest(req, baseUrl, req.socket.remoteAddress);
    const request = pending instanceof Promise ? await pending : pending;
    let response: Response;
    if (!match) response = await notFoundHandler(request);
    else if ("methodNotAllowed" in match) {
      response = json(405, { message: `Method ${req.method} not allowed on ${pathname}` }, { allow: match.methodNotAllowed.join(", "), "x-request-id": newRequestId() });
    } else response = await match.handler(request, { params: match.params });
    const writing = writeWebResponse(res, response);
    if (writing) await writing;
  } catch (err) {
    log.error("api dispatch failed", { err });
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ message: "Internal error" }));
    else res.destroy();
  }
}
