import { NextResponse, type NextRequest } from "next/server";
import { RETURN_TO_HEADER } from "@/lib/identity/dashboard/callback-url";
import { env, publicBaseUrl } from "@/lib/env";
import { contentSecurityPolicy, CSP_HEADER, HSTS, newNonce } from "@/lib/http/csp";
import { pageWriteAllowed } from "@/lib/http/same-origin";

// Runs before every page. It refuses (403) a server action, or anything else that is not a GET sent
// to a page, without our own Origin (lib/http/same-origin.ts); Next would accept one with none. It sets
//  - a Content-Security-Policy with a fresh nonce, on the request (Next reads the nonce from it and
//    stamps it on the scripts it renders) and on the response;
//  - Strict-Transport-Security in live mode;
//  - for dashboard pages, which page was asked for, so a visitor who must sign in first comes back
//    to it afterwards. Set here, never taken from the client: whatever a client sends under this
//    name is overwritten.
export function proxy(req: NextRequest) {
  if (!pageWriteAllowed(req.method, req.headers.get("origin"), req.headers.get("host"), publicBaseUrl())) {
    return new NextResponse("Forbidden: this request must come from this site's own pages (Origin header)", {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  }
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, {
    dev: env().NODE_ENV === "development",
    https: publicBaseUrl().startsWith("https://"),
  });
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

// Pages only: not the API (JSON, its own headers), next-auth's routes, nor static files. Prefetches
// are skipped, but never a server action or a form post: a client cannot skip the Origin check by
// adding the prefetch header.
// (Literals only: Next reads this object without running the module.)
export const config = {
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico|icon|robots.txt).*)",
      missing: [{ type: "header", key: "next-router-prefetch" }],
    },
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico|icon|robots.txt).*)",
      has: [{ type: "header", key: "next-action" }],
    },
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico|icon|robots.txt).*)",
      has: [{ type: "header", key: "content-type" }],
    },
  ],
};
