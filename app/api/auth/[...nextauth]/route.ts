import NextAuth from "next-auth";
import { authOptions } from "@/lib/identity/dashboard/options";

// Dashboard sessions (next-auth v4, App Router). Outside /api/v1: this is not the merchant API.
type Context = { params: Promise<{ nextauth: string[] }> };

async function handler(req: Request, context: Context): Promise<Response> {
  return NextAuth(authOptions())(req, context);
}

export { handler as GET, handler as POST };
