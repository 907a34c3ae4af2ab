import { NextResponse, type NextRequest } from "next/server";
import { RETURN_TO_HEADER } from "@/lib/auth/callback-url";
import { env, publicBaseUrl } from "@/lib/env";
import { contentSecurityPolicy, CSP_HEADER, HSTS, newNonce } from "@/lib/http/csp";

// Runs before every page. It sets
//  - a Content-Security-Policy with a fresh nonce, on the request (Next reads the nonce from it and
//    stamps it on the scripts it renders) and on the response;
//  - Strict-Transport-Security in live mode;
//  - for dashboard pages, which page was asked for, so a visitor who must sign in first comes back
//    to it afterwards. Set here, never taken from the client: whatever a client sends under this
//    name is overwritten.
export function proxy(req: NextRequest) {
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, { dev: env().NODE_ENV === "development", https: publicBaseUrl().startsWith("https://") });
  const headers = new Headers(req.headers);
  headers.set(CSP_HEADER, csp);
  headers.delete(RETURN_TO_HEADER);
  if (req.nextUrl.pathname === "/dashboard" || req.nextUrl.pathname.startsWith("/dashboard/")) {
    headers.set(RETURN_TO_HEADER, req.nextUrl.pathname + req.nextUrl.search);
  }
  const res = NextResponse.next({ request: { headers } });
  res.headers.set(CSP_HEADER, csp);
  if (env().PAYMENTS_MODE === "live") res.headers.set("strict-transport-security", HSTS);
  return res;
}

// Pages only: not the API (JSON, its own headers), next-auth's routes, nor static files.
export const config = {
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico|icon|robots.txt).*)",
      missing: [{ type: "header", key: "next-router-prefetch" }],
    },
  ],
};
