import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { openPool } from "@/db";
import { ConfigError, env } from "@/lib/env";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";
import { log } from "@/lib/log";
import { metricsRegistry } from "@/lib/metrics/registry";
import { secret } from "@/lib/secrets";
import { workerRunning } from "@/lib/worker";
import { registerCollectors } from "./collectors";
import { checkReadiness, type ReadinessDeps } from "./readiness";

// The operator's endpoints, outside /api/v1 and outside Next, answered straight from node:http so a
// probe never waits behind Next or the API's rate limit:
//   GET /healthz  the process is up and serving (no database: a database outage must not get every
//                 instance restarted);
//   GET /readyz   this instance can serve (lib/ops/readiness.ts); 503 says which check failed;
//   GET /metrics  Prometheus metrics, with `Authorization: Bearer <METRICS_TOKEN>`; 404 while no token
//                 is configured, 401 for a missing or wrong one.

export const OPS_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/** The path of an ops request (query ignored), or null for any other request. */
export function opsPath(url: string): string | null {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  return OPS_PATHS.has(path) ? path : null;
}

/** METRICS_TOKEN, from the variable or its file; start-up calls it so a bad file stops the server. */
export function metricsToken(): string | undefined {
  const e = env();
  const token = secret("METRICS_TOKEN", e.METRICS_TOKEN, e.METRICS_TOKEN_FILE);
  if (token !== undefined && token.length < 32)
    throw new ConfigError("Invalid configuration:\n  METRICS_TOKEN_FILE: the token must be at least 32 characters");
  return token;
}

/** Compares digests, so neither the content nor the length of the token shows in the time taken. */
function tokenMatches(given: string, token: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
  return m ? m[1] : null;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    ...SECURITY_HEADERS,
    ...headers,
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) =>
  send(res, status, JSON.stringify(body), headers);

/** What /readyz checks against; tests point it at another database. */
export type OpsOptions = { readiness?: Partial<ReadinessDeps> };

async function readyz(res: ServerResponse, opts: OpsOptions): Promise<void> {
  const r = await checkReadiness({
    sql: opts.readiness?.sql ?? openPool().sql,
    jobsExpected: opts.readiness?.jobsExpected ?? env().JOBS_ENABLED,
    jobsRunning: opts.readiness?.jobsRunning ?? workerRunning,
  });
  if (r.ready) return json(res, 200, { status: "ready", checks: r.checks });
  json(res, 503, {
    status: "unavailable",
    message: `Not ready: ${r.failed.map((c) => `${c} ${r.checks[c]}`).join("; ")}`,
    failed: r.failed,
    checks: r.checks,
  });
}

async function metrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = metricsToken();
  if (!token) return json(res, 404, { message: "Not found: GET /metrics (set METRICS_TOKEN to enable it)" });
  const given = bearer(req);
  if (given === null || !tokenMatches(given, token)) {
    return json(
      res,
      401,
      { message: "Unauthorized: send Authorization: Bearer <METRICS_TOKEN>" },
      { "www-authenticate": 'Bearer realm="metrics"' },
    );
  }
  registerCollectors();
  send(res, 200, await metricsRegistry.metrics(), { "content-type": metricsRegistry.contentType });
}

/** Answers one request to an ops path (`path` from opsPath). Never rejects. */
export async function serveOps(
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  opts: OpsOptions = {},
): Promise<void> {
  try {
    if (req.method !== "GET" && req.method !== "HEAD")
      return json(res, 405, { message: `Method ${req.method} not allowed on ${path}` }, { allow: "GET, HEAD" });
    if (path === "/healthz") return json(res, 200, { status: "ok" });
    if (path === "/readyz") return await readyz(res, opts);
    return await metrics(req, res);
  } catch (err) {
    log.error("ops endpoint failed", { path, err });
    if (!res.headersSent) json(res, 500, { message: "Internal error" });
    else res.destroy();
  }
}
