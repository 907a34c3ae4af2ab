import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "@/lib/env";
import { MAX_BODY_BYTES } from "@/lib/http/body";
import { INCOMPLETE_BODY, rememberArrival, rememberRequestBody } from "@/lib/http/body-cache";
import { PlainHeaders, type ApiRequest } from "@/lib/http/request";
import { jsonResponseFields, jsonResponseText } from "@/lib/http/json-response";

// The bridge between node:http and the Web-standard handlers in lib/, for the /api/v1 fast path.
// Measured (docs/architecture.md#how-a-request-enters, docs/performance.md): Next's routing costs ~1–1.5 ms CPU per request,
// several times the handler's own cost, so the API is dispatched straight to the same handlers.

/**
 * The request as handlers see it. Synchronous for requests without a body (every lookup), so they
 * create no promise here: each one costs a pass through every AsyncLocalStorage in the process,
 * Next's included. A body is read to at most MAX_BODY_BYTES + 1 bytes: enough for the handler to
 * answer 413 in its own shape. Reading it counts against the request's deadline: a body still short
 * of its end at REQUEST_DEADLINE_MS is handed on as incomplete, and the endpoint answers 408 in its
 * shape. The client's address is in the header the server stamped (client-address.ts), never taken
 * from the socket here.
 */
export function toApiRequest(req: IncomingMessage, baseUrl: string): ApiRequest | Promise<ApiRequest> {
  const method = req.method ?? "GET";
  const extra: Record<string, string> = {};
  const plain = (): ApiRequest => ({
    method,
    url: baseUrl + (req.url ?? "/"),
    headers: new PlainHeaders(req.rawHeaders, extra),
  });
  if (method === "GET" || method === "HEAD") return plain();
  const arrived = performance.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // A plain request, not a Request (see lib/http/request.ts); its bytes travel beside it.
    const finish = (body: Buffer | typeof INCOMPLETE_BODY) => {
      done = true;
      if (timer) clearTimeout(timer);
      // A body cut at the cap: readBodyText answers 413 from the length.
      if (body !== INCOMPLETE_BODY && body.length > MAX_BODY_BYTES) extra["content-length"] = String(body.length);
      const request = plain();
      rememberArrival(request, arrived);
      if (body === INCOMPLETE_BODY || body.length > 0) rememberRequestBody(request, body);
      resolve(request);
    };
    const ms = env().REQUEST_DEADLINE_MS;
    const timer =
      ms > 0
        ? setTimeout(() => {
            if (done) return;
            // Shorter than its Content-Length, or trickling: stop reading; the answer closes the connection.
            req.pause();
            finish(INCOMPLETE_BODY);
          }, ms)
        : undefined;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      chunks.push(chunk);
      if (size > MAX_BODY_BYTES) {
        // Stop reading the rest; the response closes the connection.
        req.pause();
        finish(Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES + 1));
      }
    });
    req.on("end", () => {
      if (!done) finish(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on("error", reject);
  });
}

/** Writes the response; returns a promise only for bodies that must be read from a stream. */
export function writeWebResponse(res: ServerResponse, response: Response): void | Promise<void> {
  const known = jsonResponseText(response);
  // A JsonResponse whose headers nobody read: its own fields go out as they are.
  const fields = jsonResponseFields(response);
  const headers: Record<string, string | string[]> = fields ?? {};
  if (!fields) {
    response.headers.forEach((value, key) => {
      if (key !== "set-cookie") headers[key] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) headers["set-cookie"] = cookies;
  }
  if (known !== undefined) {
    headers["content-length"] = String(Buffer.byteLength(known));
    res.writeHead(response.status, headers).end(known);
    return;
  }
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  return writeStreamed(res, response, headers);
}

async function writeStreamed(
  res: ServerResponse,
  response: Response,
  headers: Record<string, string | string[]>,
): Promise<void> {
  const buf = Buffer.from(await response.arrayBuffer());
  headers["content-length"] = String(buf.length);
  res.writeHead(response.status, headers);
  // Small bodies: one write; back-pressure only matters for large ones (QR PNGs).
  if (!res.write(buf)) await new Promise<void>((resolve) => res.once("drain", resolve));
  res.end();
}
