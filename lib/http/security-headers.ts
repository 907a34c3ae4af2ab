import { setResponseHeader } from "./json-response";

// Headers every answer carries, pages and API alike: next.config.ts sets them on what Next serves,
// and the API router on every /api/v1 answer, so the production fast path (which bypasses Next's
// config) and the Next path send the same ones.

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

export function withSecurityHeaders(res: Response): Response {
  for (const name in SECURITY_HEADERS) setResponseHeader(res, name, SECURITY_HEADERS[name]);
  return res;
}
