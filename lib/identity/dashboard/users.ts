import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { users } from "@/db/schema";
import { verifyPassword } from "@/lib/identity/password-hash";

// A scrypt hash computed once so an unknown e-mail costs as much as a wrong password: the time a
// sign-in takes does not reveal which e-mails have accounts.
let dummyHash: Promise<string> | null = null;
async function timingDummy(): Promise<string> {
  const { hashPassword } = await import("@/lib/identity/password-hash");
  dummyHash ??= hashPassword("not-a-real-password");
  return dummyHash;
}

export type AuthenticatedUser = {
  id: string;
  email: string;
  name: string | null;
  merchantId: string;
  twoFactor: boolean;
};

/** The dashboard user for these credentials, or null. E-mails compare case-insensitively. */
export async function authenticate(email: string, password: string): Promise<AuthenticatedUser | null> {
  const normalized = email.trim();
  if (normalized === "" || password === "" || normalized.length > 254 || password.length > 1024) return null;
  const [user] = await db()
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, normalized.toLowerCase()))
    .limit(1);
  if (!user) {
    await verifyPassword(password, await timingDummy());
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    merchantId: user.merchantId,
    twoFactor: user.totpEnabledAt !== null,
  };
}

/** The user an e-mail belongs to (compared case-insensitively, in any merchant), or null. */
export async function userByEmail(email: string): Promise<{ id: string; email: string; merchantId: string } | null> {
  const [user] = await db()
    .select({ id: users.id, email: users.email, merchantId: users.merchantId })
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
    .limit(1);
  return user ?? null;
}
