// The fast path already holds each request's body bytes and each JSON response's text. Reading them
// back through Web streams (Request.body, Response.arrayBuffer) cost a measurable share of every
// request under load, so both are remembered beside their objects and used when present. Anything
// built another way (Next, tests) simply goes through the streams.

const requestBodies = new WeakMap<Request, Uint8Array>();
const responseBodies = new WeakMap<Response, string>();

export function rememberRequestBody(req: Request, body: Uint8Array): void {
  requestBodies.set(req, body);
}

export function knownRequestBody(req: Request): Uint8Array | undefined {
  return requestBodies.get(req);
}

export function rememberResponseBody(res: Response, text: string): void {
  responseBodies.set(res, text);
}

export function knownResponseBody(res: Response): string | undefined {
  return responseBodies.get(res);
}
