import { env } from "@/lib/env";
import { HSTS } from "./csp";
import { setResponseHeader } from "./json-response";
import { SECURITY_HEADERS } from "./static-headers.mjs";

// Headers every answer carries, pages and API alike: next.config.mjs sets the static ones on what
// Next serves (proxy.ts adds the CSP and, in live mode, HSTS), and the API router sets them on every
// /api/v1 answer, so the production fast path (which bypasses Next's config) and the Next path send
// the same ones.

export { SECURITY_HEADERS };

export function withSecurityHeaders(res: Response): Response {
  for (const name in SECURITY_HEADERS) setResponseHeader(res, name, SECURITY_HEADERS[name]);
  // Live mode is served over https only (lib/env refuses a plain-http PUBLIC_BASE_URL there).
  if (env().PAYMENTS_MODE === "live") setResponseHeader(res, "strict-transport-security", HSTS);
  return res;
}
