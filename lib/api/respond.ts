import { JsonResponse } from "./json-response";

/** JSON response with the headers every API answer carries. */
export function json(status: number, body: unknown, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json; charset=utf-8");
  h.set("cache-control", "no-store");
  h.set("x-content-type-options", "nosniff");
  if (status === 204) return new Response(null, { status, headers: h });
  return new JsonResponse(JSON.stringify(body), { status, headers: h });
}
