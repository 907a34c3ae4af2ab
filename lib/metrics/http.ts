import type { Histogram } from "prom-client";
import { histogram, METRIC_PREFIX } from "./registry";

// Requests, by route template and status: rate, errors and latency from one histogram (its _count
// is the request counter). The route label is the endpoint's template (/api/v1/order/{id}) and never
// the raw path, whose ids would make a series per order.
//
// This runs on every request of the fast path, so the labelled child is looked up in nested maps
// instead of through prom-client's labels(), which validates and hashes the label object each time.

/** The route label of a request no endpoint matched (404, 405, OPTIONS): one series, whatever the path. */
export const UNMATCHED_ROUTE = "unmatched";
/** The route label of what Next serves (pages, the dashboard's JSON routes): Next knows their routes, not us. */
export const NEXT_ROUTE = "next";

type Child = ReturnType<Histogram<string>["labels"]>;

const requests = histogram({
  name: `${METRIC_PREFIX}http_request_duration_seconds`,
  help: "HTTP requests by method, route template and status: time from the request reaching the server to its answer being ready",
  labelNames: ["method", "route", "status"] as const,
  // The fast path answers in about a millisecond; the slow end covers provider calls made in a request.
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

const children = new Map<string, Map<string, Map<number, Child>>>();

function child(method: string, route: string, status: number): Child {
  let byMethod = children.get(route);
  if (!byMethod) children.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (!byStatus) byMethod.set(method, (byStatus = new Map()));
  let c = byStatus.get(status);
  if (!c) byStatus.set(status, (c = requests.labels(method, route, String(status))));
  return c;
}

/** Records one answered request; `startedAt` is performance.now() when it arrived. */
export function observeRequest(method: string, route: string, status: number, startedAt: number): void {
  child(method, route, status).observe((performance.now() - startedAt) / 1000);
}
