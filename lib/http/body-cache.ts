import type { ApiRequest } from "./request";

// The fast path already holds each request's body bytes. Reading them back through a Web stream cost
// a measurable share of every request under load, so they are remembered beside the Request and used
// when present. Requests built another way (Next, tests) simply go through the stream. A body that
// did not arrive in full within the request's deadline is remembered as such, with when the request
// arrived: the endpoint answers it in its own shape, and counts the wait against its deadline.

/** A body whose bytes stopped coming before its end (shorter than its Content-Length) by the deadline. */
export const INCOMPLETE_BODY = Symbol("incomplete body");
export type KnownBody = Uint8Array | typeof INCOMPLETE_BODY;

const requestBodies = new WeakMap<ApiRequest, KnownBody>();
const arrivals = new WeakMap<ApiRequest, number>();

export function rememberRequestBody(req: ApiRequest, body: KnownBody): void {
  requestBodies.set(req, body);
}

export function knownRequestBody(req: ApiRequest): KnownBody | undefined {
  return requestBodies.get(req);
}

/** When the request's first byte arrived (performance.now()), if it was read before it reached the router. */
export function rememberArrival(req: ApiRequest, at: number): void {
  arrivals.set(req, at);
}

export function arrivalOf(req: ApiRequest): number | undefined {
  return arrivals.get(req);
}
