import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env, publicBaseUrl } from "@/lib/env";
import { clientAddress } from "@/lib/http/client-address";
import { isStorableText } from "@/lib/storable-text";
import { takeSignInAttempt, TOO_MANY_ATTEMPTS } from "./throttle";
import { authenticate } from "./users";

// next-auth v4: e-mail + password (Credentials) with JWT sessions signed by AUTH_SECRET. Built on
// first use rather than at import, so `next build` does not need the secret.

const SESSION_MAX_AGE = 60 * 60 * 12; // a working day; the dashboard moves money

let cached: NextAuthOptions | null = null;

/** next-auth passes the request's headers to authorize as a plain object (lower-case names). */
function headerValue(headers: Record<string, unknown> | undefined, name: string): string | null {
  const value = headers?.[name];
  return typeof value === "string" ? value : null;
}

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  // next-auth builds redirect URLs and decides on secure cookies from NEXTAUTH_URL; without it, it
  // would assume http://localhost:3000.
  process.env.NEXTAUTH_URL ??= publicBaseUrl();
  cached = {
    secret: env().AUTH_SECRET,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE },
    pages: { signIn: "/signin" },
    providers: [
      CredentialsProvider({
        name: "E-mail",
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          if (!credentials) return null;
          // No stored e-mail holds a NUL, and PostgreSQL would refuse the throttle's key: wrong credentials.
          if (!isStorableText(String(credentials.email ?? ""))) return null;
          // Before the password is hashed. next-auth hands a thrown message to the sign-in form as `error`.
          const address = clientAddress({ get: (name) => headerValue(req?.headers, name) });
          if (!(await takeSignInAttempt(String(credentials.email ?? ""), address))) throw new Error(TOO_MANY_ATTEMPTS);
          const user = await authenticate(String(credentials.email ?? ""), String(credentials.password ?? ""));
          return user ? { id: user.id, email: user.email, name: user.name, merchantId: user.merchantId } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = user.id;
          token.merchantId = user.merchantId;
        }
        return token;
      },
      session({ session, token }) {
        if (token.uid && token.merchantId) {
          session.user = { id: token.uid, merchantId: token.merchantId, email: token.email ?? "", name: token.name ?? null };
        }
        return session;
      },
    },
  };
  return cached;
}
