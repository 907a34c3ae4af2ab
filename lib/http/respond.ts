import { JsonResponse, type HeaderFields } from "./json-response";

/** JSON text as a response with the headers every API answer carries. */
export function jsonText(status: number, text: string, headers?: HeadersInit): Response {
  const fields: HeaderFields = {};
  if (headers) {
    if (headers instanceof Headers || Array.isArray(headers)) new Headers(headers).forEach((v, k) => (fields[k] = v));
    else for (const k in headers) fields[k.toLowerCase()] = headers[k];
  }
  fields["content-type"] = "application/json; charset=utf-8";
  fields["cache-control"] = "no-store";
  fields["x-content-type-options"] = "nosniff";
  if (status === 204) return new Response(null, { status, headers: fields });
  return new JsonResponse(text, status, fields);
}

/** JSON response with the headers every API answer carries. */
export function json(status: number, body: unknown, headers?: HeadersInit): Response {
  return jsonText(status, status === 204 ? "" : JSON.stringify(body), headers);
}
