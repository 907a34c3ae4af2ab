import { NextResponse, type NextRequest } from "next/server";
import { RETURN_TO_HEADER } from "@/lib/auth/callback-url";

// Tells the dashboard's server components which page was asked for, so a visitor who must sign in
// first comes back to it afterwards. Set here, never taken from the client: whatever a client sends
// under this name is overwritten.
export function proxy(req: NextRequest) {
  const headers = new Headers(req.headers);
  headers.set(RETURN_TO_HEADER, req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = { matcher: ["/dashboard", "/dashboard/:path*"] };
