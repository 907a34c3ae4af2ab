import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";
import { db } from "@/db";
import { merchants, users, type UserRole } from "@/db/schema";
import type { SignedIn } from "@/lib/identity/dashboard/session";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { resetEnvForTests } from "@/lib/env";
import { verifyPassword } from "@/lib/identity/password-hash";
import { seedMerchant } from "./helpers";

// Sign-up and invitations tell nobody which e-mails have an account (docs/security.md, "Sign-up and
// invitations"): the answer is the same either way, and the address's owner is mailed instead.

// What a server action sees: the request's headers (a fresh address each time, past the sign-up
// limit), no cookies (pt-BR), a signed-in member for the dashboard's actions, and `after` run at once
// (tests wait for the mail it sends).
const ctx = vi.hoisted(() => ({ session: null as SignedIn | null, pending: [] as Promise<unknown>[] }));
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ [CLIENT_ADDRESS_HEADER]: `198.51.100.${1 + Math.floor(Math.random() * 250)}` }),
  cookies: async () => ({ get: () => undefined }),
}));
vi.mock("next/server", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next/server")>()),
  after: (task: () => Promise<unknown>) => void ctx.pending.push(task()),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));
vi.mock("@/lib/identity/dashboard/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/identity/dashboard/session")>()),
  requireMerchant: async () => ctx.session!,
}));

const { signUpAction, confirmSignUpAction } = await import("@/lib/identity-flows/sign-up");
const { inviteMemberAction } = await import("@/lib/dashboard/actions/team");
const { pendingInvitations } = await import("@/lib/identity/team");
const { idle } = await import("@/lib/forms/action-state");
const { translate } = await import("@/lib/i18n");

type Mail = { to: string; text: string };
const inbox: Mail[] = [];
let smtp: SMTPServer;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString("utf8")));
      stream.on("end", () => {
        // Plain-text mail: undo quoted-printable so links and accents read whole.
        const text = raw
          .replace(/=\r?\n/g, "")
          .replace(/(=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replace(/=/g, ""), "hex").toString("utf8"));
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address).join(","), text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  process.env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  resetEnvForTests();
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  resetEnvForTests();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** Waits for what the actions handed to `after`, then returns the mail `to` received since `from`. */
async function mailTo(to: string, from = 0): Promise<Mail[]> {
  await Promise.all(ctx.pending.splice(0));
  return inbox.slice(from).filter((m) => m.to.toLowerCase() === to.toLowerCase());
}

const email = (tag: string) => `${tag}-${crypto.randomUUID().slice(0, 8)}@loja.com.br`;

function signUpForm(address: string) {
  const form = new FormData();
  form.set("companyName", "Padaria Nova");
  form.set("email", address);
  form.set("password", "correct horse battery");
  form.set("pixKey", "52998224725");
  return form;
}

async function existingUser(role: UserRole = "owner") {
  const { merchant } = await seedMerchant();
  const [user] = await db()
    .insert(users)
    .values({ merchantId: merchant.id, email: email("existing"), passwordHash: "x", role })
    .returning();
  return { merchant, user };
}

const userCount = async (address: string) =>
  (
    await db()
      .select()
      .from(users)
      .where(eq(sql`lower(${users.email})`, address.toLowerCase()))
  ).length;
/** The answer without what the form itself sent (the address) or when it came. */
const shape = (r: unknown) => {
  const { at: _at, ...rest } = r as { at?: number; data?: { email?: string } };
  return { ...rest, data: { ...rest.data, email: "<email>" } };
};

describe("sign-up with mail", () => {
  it("answers a new address and one that already has an account exactly alike, creates nothing yet, and mails each owner", async () => {
    const fresh = email("fresh");
    const { user } = await existingUser();
    const before = inbox.length;
    const a = await signUpAction(idle, signUpForm(fresh));
    const b = await signUpAction(idle, signUpForm(user.email.toUpperCase()));
    expect(a).toMatchObject({ status: "success", data: { email: fresh, next: "checkMail" } });
    expect(shape(b)).toEqual(shape(a));
    expect(await userCount(fresh)).toBe(0);
    expect(await userCount(user.email)).toBe(1);

    const [invite] = await mailTo(fresh, before);
    expect(invite.text).toMatch(/\/signup\/confirm\?token=v1\.[\w.-]+/);
    const [warning] = await mailTo(user.email, before);
    expect(warning.text).toContain("já tem uma");
    expect(warning.text).not.toContain("/signup/confirm");
    expect(warning.text).toContain("/forgot-password");
  });

  it("the mailed link's button creates the merchant and its user, once; a tampered or unknown link creates nothing", async () => {
    const address = email("link");
    const before = inbox.length;
    await signUpAction(idle, signUpForm(address));
    const [mail] = await mailTo(address, before);
    const token = /token=(v1\.[\w.-]+)/.exec(mail.text)![1];
    // Only the hash of the password travels in the sealed link; the token itself reveals neither.
    expect(token).not.toContain(address);

    const confirm = (t: string) => {
      const form = new FormData();
      form.set("token", t);
      return confirmSignUpAction(idle, form).catch((err: { digest?: string }) => err.digest ?? err);
    };
    expect(await confirm(token)).toMatch(/^NEXT_REDIRECT;replace;\/signin\?created=1;/);
    const [user] = await db().select().from(users).where(eq(users.email, address));
    expect(user.role).toBe("owner");
    expect(await verifyPassword("correct horse battery", user.passwordHash)).toBe(true);
    const [merchant] = await db().select().from(merchants).where(eq(merchants.id, user.merchantId));
    expect(merchant).toMatchObject({ companyName: "Padaria Nova", pixKey: "52998224725", accountType: "standard" });
    // Opened again: the same account, not a second one.
    expect(await confirm(token)).toMatch(/^NEXT_REDIRECT/);
    expect(await userCount(address)).toBe(1);

    for (const bad of [token.slice(0, -2) + "xx", "v1.a.b.c", "whatever"]) {
      expect(await confirm(bad)).toMatchObject({
        status: "error",
        error: translate("pt-BR", "auth.signUpLinkInvalid"),
      });
    }
  });
});

async function member(merchantId: string, role: UserRole): Promise<SignedIn> {
  const [user] = await db()
    .insert(users)
    .values({ merchantId, email: email(role), passwordHash: "x", role })
    .returning();
  const [merchant] = await db().select().from(merchants).where(eq(merchants.id, merchantId));
  return {
    merchant,
    userId: user.id,
    email: user.email,
    role,
    sessionId: crypto.randomUUID(),
    twoFactor: true,
    stepUpFresh: true,
    ip: "203.0.113.7",
    factorHeldUntil: null,
    factorEnrolledHere: false,
  } as SignedIn;
}

function inviteForm(address: string, role: UserRole = "viewer") {
  const form = new FormData();
  form.set("email", address);
  form.set("role", role);
  return form;
}

describe("invitations", () => {
  it("inviting an address that has an account at another merchant answers and lists exactly like a new one; its owner is told why they cannot join", async () => {
    const { merchant } = await seedMerchant();
    ctx.session = await member(merchant.id, "admin");
    const fresh = email("novo");
    const { user: elsewhere } = await existingUser();
    const before = inbox.length;
    const a = await inviteMemberAction(idle, inviteForm(fresh));
    const b = await inviteMemberAction(idle, inviteForm(elsewhere.email));
    expect(a).toMatchObject({ status: "success", data: { email: fresh } });
    expect(shape(b)).toEqual(shape(a));
    const pending = await pendingInvitations(merchant.id);
    expect(pending.map((p) => [p.email, p.role])).toEqual([
      [fresh, "viewer"],
      [elsewhere.email, "viewer"],
    ]);

    const [link] = await mailTo(fresh, before);
    expect(link.text).toMatch(/\/invite\?token=[\w-]{43}/);
    const [told] = await mailTo(elsewhere.email, before);
    expect(told.text).toContain(merchant.companyName);
    expect(told.text).not.toMatch(/token=/);
    // Still a member of their own merchant only.
    expect((await db().select().from(users).where(eq(users.id, elsewhere.id)))[0].merchantId).toBe(
      elsewhere.merchantId,
    );
  });

  it("inviting someone already on this team still says so: the Team page lists them anyway", async () => {
    const { merchant } = await seedMerchant();
    ctx.session = await member(merchant.id, "owner");
    const colleague = await member(merchant.id, "viewer");
    expect(await inviteMemberAction(idle, inviteForm(colleague.email))).toMatchObject({
      status: "error",
      error: translate("pt-BR", "team.alreadyMember"),
    });
  });
});
