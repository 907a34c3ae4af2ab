import { env } from "@/lib/env";
import { HSTS } from "./csp";
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
  // Live mode is served over https only (lib/env refuses a plain-http PUBLIC_BASE_URL there).
  if (env().PAYMENTS_MODE === "live") setResponseHeader(res, "strict-transport-security", HSTS);
  return res;
}
