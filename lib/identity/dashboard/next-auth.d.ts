import "next-auth";
import "next-auth/jwt";

// What our sessions carry beyond next-auth's defaults: the user, their merchant, and the server-side
// session row (lib/identity/sessions.ts) that decides whether the cookie still counts.
declare module "next-auth" {
  interface User {
    merchantId: string;
    sessionId: string;
  }
  interface Session {
    user: { id: string; merchantId: string; sessionId: string; email: string; name?: string | null };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: string;
    merchantId?: string;
    sid?: string;
  }
}
