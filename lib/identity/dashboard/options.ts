import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env, publicBaseUrl } from "@/lib/env";
import { SESSION_MAX_AGE_SECONDS } from "@/lib/identity/sessions";
import { signInWithPassword, signedOut } from "./sign-in";

// next-auth v4: e-mail + password (+ a second factor once enrolled) with JWT cookies signed by
// AUTH_SECRET. The cookie names a server-side session row (lib/identity/sessions.ts), so signing out
// ends the session for every copy of the cookie. Built on first use rather than at import, so
// `next build` does not need the secret.

let cached: NextAuthOptions | null = null;

/**
 * The session cookie, said outright rather than left to next-auth's defaults: HttpOnly (no script
 * reads it), Secure and __Secure- prefixed behind https, SameSite=Lax (not sent on cross-site POSTs).
 */
export function sessionCookie(secure: boolean) {
  return {
    name: `${secure ? "__Secure-" : ""}next-auth.session-token`,
    options: { httpOnly: true, sameSite: "lax" as const, path: "/", secure },
  };
}

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  // next-auth builds redirect URLs and decides on secure cookies from NEXTAUTH_URL; without it, it
  // would assume http://localhost:3000.
  process.env.NEXTAUTH_URL ??= publicBaseUrl();
  const secure = publicBaseUrl().startsWith("https://");
  cached = {
    secret: env().AUTH_SECRET,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/signin" },
    useSecureCookies: secure,
    cookies: { sessionToken: sessionCookie(secure) },
    providers: [
      CredentialsProvider({
        name: "E-mail",
        credentials: {
          email: { label: "E-mail", type: "email" },
          password: { label: "Password", type: "password" },
          otp: { label: "Code", type: "text" },
        },
        authorize: (credentials, req) => signInWithPassword(credentials ?? {}, req.headers ?? {}),
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = user.id;
          token.merchantId = user.merchantId;
          token.sid = user.sessionId;
        }
        return token;
      },
      session({ session, token }) {
        if (token.uid && token.merchantId && token.sid) {
          session.user = {
            id: token.uid,
            merchantId: token.merchantId,
            sessionId: token.sid,
            email: token.email ?? "",
            name: token.name ?? null,
          };
        }
        return session;
      },
    },
    events: {
      signOut: ({ token }) => signedOut(token),
    },
  };
  return cached;
}
