import "next-auth";
import "next-auth/jwt";

// What our sessions carry beyond next-auth's defaults: the user's id and merchant.
declare module "next-auth" {
  interface User {
    merchantId: string;
  }
  interface Session {
    user: { id: string; merchantId: string; email: string; name?: string | null };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: string;
    merchantId?: string;
  }
}
