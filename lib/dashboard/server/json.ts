import "server-only";
import { currentMerchant, type SignedIn } from "@/lib/identity/dashboard/session";
import { log } from "@/lib/log";

// The dashboard's small JSON routes (/dashboard/api/…) for react-query polling. Authenticated by the
// session cookie, not an API key; never cached.

const headers = { "cache-control": "no-store" };

export function dashboardJson<P>(handler: (signedIn: SignedIn, req: Request, params: P) => Promise<unknown>) {
  return async (req: Request, ctx: { params: Promise<P> }): Promise<Response> => {
    const signedIn = await currentMerchant();
    if (!signedIn) return Response.json({ message: "Not signed in" }, { status: 401, headers });
    try {
      const body = await handler(signedIn, req, await ctx.params);
      if (body === null) return Response.json({ message: "Not found" }, { status: 404, headers });
      return Response.json(body, { headers });
    } catch (err) {
      log.error("dashboard json failed", { err });
      return Response.json({ message: "Internal error" }, { status: 500, headers });
    }
  };
}
