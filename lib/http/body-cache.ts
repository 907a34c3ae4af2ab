import type { ApiRequest } from "./request";

// The fast path already holds each request's body bytes. Reading them back through a Web stream cost
// a measurable share of every request under load, so they are remembered beside the Request and used
// when present. Requests built another way (Next, tests) simply go through the stream.

const requestBodies = new WeakMap<ApiRequest, Uint8Array>();

export function rememberRequestBody(req: ApiRequest, body: Uint8Array): void {
  requestBodies.set(req, body);
}

export function knownRequestBody(req: ApiRequest): Uint8Array | undefined {
  return requestBodies.get(req);
}
