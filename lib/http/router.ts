import { newRequestId } from "@/lib/ids";
import type { Endpoint } from "./endpoint";
import { setResponseHeader } from "./json-response";
import { pathOf, type ApiRequest } from "./request";
import { json } from "./respond";
import { withSecurityHeaders } from "./security-headers";

// The one router of /api/v1: both serving paths (the production fast path over node:http and Next's
// catch-all route) hand every request to `handle`, so they answer alike by construction, HEAD,
// OPTIONS, 404 and 405 included.

export type RouteMatch = { endpoint: Endpoint; params: Record<string, string> } | { allowed: string[] } | null;

/**
 * Told of every answer: the method, the matched endpoint's path template (null when none matched),
 * the status, and performance.now() when the request reached the router.
 */
export type AnswerObserver = (method: string, route: string | null, status: number, startedAt: number) => void;

export type Router = {
  /** The endpoint for a method and a path, with decoded params; the methods the path has otherwise. */
  match(method: string, pathname: string): RouteMatch;
  /** Answers one request. Never rejects. */
  handle(req: ApiRequest): Promise<Response>;
};

type Compiled = { method: string; pattern: RegExp; names: string[]; endpoint: Endpoint; specificity: number };

function compile(e: Endpoint): Compiled {
  const names: string[] = [];
  const segments = e.path.split("/").filter(Boolean);
  const pattern = segments
    .map((s) => {
      const m = /^\{(.+)\}$/.exec(s);
      if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(m[1]);
      return "([^/]+)";
    })
    .join("/");
  // Static segments win over parameters: /order/create is not /order/{id}.
  const specificity = segments.filter((s) => !s.startsWith("{")).length;
  return { method: e.method, pattern: new RegExp(`^/${pattern}$`), names, endpoint: e, specificity };
}

export function createRouter(endpoints: readonly Endpoint[], opts: { observe?: AnswerObserver } = {}): Router {
  const seen = new Set<string>();
  for (const e of endpoints) {
    const key = `${e.method} ${e.path}`;
    if (seen.has(key)) throw new Error(`Two endpoints are declared as ${key}`);
    seen.add(key);
  }
  const compiled = endpoints.map(compile).sort((a, b) => b.specificity - a.specificity);

  // Routes grouped by their first segment after /api/v1, each group with the routes whose first
  // segment is a parameter ("*") merged in and kept most specific first, so a request only tries the
  // handful that could match. Built once: nothing is allocated or sorted per request.
  const byFirst = new Map<string, Compiled[]>();
  for (const r of compiled) {
    const first = r.endpoint.path.split("/")[3] ?? "";
    const key = first.startsWith("{") ? "*" : first;
    byFirst.set(key, [...(byFirst.get(key) ?? []), r]);
  }
  const paramFirst = byFirst.get("*") ?? [];
  for (const [key, routes] of byFirst) {
    if (key !== "*")
      byFirst.set(
        key,
        [...routes, ...paramFirst].sort((a, b) => b.specificity - a.specificity),
      );
  }

  function match(method: string, pathname: string): RouteMatch {
    const allowed: string[] = [];
    for (const r of byFirst.get(pathname.split("/", 4)[3] ?? "") ?? paramFirst) {
      const m = r.pattern.exec(pathname);
      if (!m) continue;
      if (r.method !== method) {
        if (!allowed.includes(r.method)) allowed.push(r.method);
        continue;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < r.names.length; i++) {
        try {
          params[r.names[i]] = decodeURIComponent(m[i + 1]);
        } catch {
          params[r.names[i]] = m[i + 1];
        }
      }
      // Candidates run from most to least specific: the first match for the method is the route.
      return { endpoint: r.endpoint, params };
    }
    return allowed.length ? { allowed } : null;
  }

  const { observe } = opts;

  function handle(req: ApiRequest): Promise<Response> {
    const method = req.method;
    const startedAt = observe ? performance.now() : 0;
    const ownAnswer = (res: Response) => {
      observe?.(method, null, res.status, startedAt);
      return Promise.resolve(own(res));
    };
    try {
      const pathname = pathOf(req.url);
      // HEAD is GET without the body: Node's HTTP server drops the body and keeps the headers.
      const found = match(method === "HEAD" ? "GET" : method, pathname);
      if (found && "endpoint" in found) {
        // The endpoint adds the security headers itself (endpoint.ts), so its answer is passed on as it is.
        const served = found.endpoint.serve(req, found.params);
        if (!observe) return served;
        const route = found.endpoint.path;
        return served.then((res) => {
          observe(method, route, res.status, startedAt);
          return res;
        });
      }
      if (!found) return ownAnswer(json(404, { message: `Not found: ${method} ${pathname}`, code: "not_found" }));
      const allow = allowHeader(found.allowed);
      if (method === "OPTIONS")
        return ownAnswer(new Response(null, { status: 204, headers: { allow, "cache-control": "no-store" } }));
      return ownAnswer(
        json(405, { message: `Method ${method} not allowed on ${pathname}`, code: "method_not_allowed" }, { allow }),
      );
    } catch {
      // Endpoints answer their own errors; this is the router's own failure, which has no endpoint's shape.
      return ownAnswer(json(500, { message: "Internal error", code: "internal_error" }));
    }
  }

  return { match, handle };
}

/** The router's own answers (no endpoint): a request id and the security headers, like every other. */
function own(res: Response): Response {
  setResponseHeader(res, "x-request-id", newRequestId());
  withSecurityHeaders(res);
  return res;
}

function allowHeader(methods: string[]): string {
  const all = new Set(methods);
  if (all.has("GET")) all.add("HEAD");
  all.add("OPTIONS");
  return [...all].join(", ");
}
