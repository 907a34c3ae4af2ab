import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";
import { db } from "@/db";
import { apiKeys, auditEvents, mailOutbox, merchants, users } from "@/db/schema";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import { hashPassword, verifyPassword } from "@/lib/identity/password-hash";
import { updateMerchant, confirmPayoutKey } from "@/lib/merchants/service";
import { backgroundMailSettled } from "@/lib/mail/background";
import { outboxFor, sendMail } from "@/lib/mail/mailer";
import { audit } from "@/lib/identity/audit";
import { purgeSpentAccountRows } from "@/lib/identity/purge";
import { changePassword, createPasswordReset, resetLinkIsLive, resetPassword } from "@/lib/identity/password-change";
import { createSession, liveSession, revokeOtherSessions, revokeSession } from "@/lib/identity/sessions";
import { acceptInvitation, changeRole, inviteMember, openInvitation, removeMember } from "@/lib/identity/team";
import { currentTotp } from "@/lib/identity/totp";
import {
  beginTotpEnrollment,
  confirmTotpEnrollment,
  disableTwoFactor,
  twoFactorStatus,
  verifySecondFactor,
} from "@/lib/identity/two-factor";
import { resetEnvForTests } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { balanceOf } from "@/lib/ledger/ledger";
import { api, seedMerchant } from "./helpers";

async function seedUser(
  merchantId: string,
  role: "owner" | "admin" | "finance" | "developer" | "viewer" = "owner",
  password = "correct horse",
) {
  const [user] = await db()
    .insert(users)
    .values({
      merchantId,
      email: `u-${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
      passwordHash: await hashPassword(password),
      role,
    })
    .returning();
  return user;
}

/** Who checks codes in these tests: the user, from an address of their own (the per-address allowance is shared). */
function ctxOf(user: { id: string; merchantId: string; email: string }) {
  const ip = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  return { actor: { merchantId: user.merchantId, userId: user.id, email: user.email, ip }, locale: "en" as const };
}

/** Enrols TOTP (password, then the app's and the mailed code) and returns the secret, as the authenticator app would hold it. */
async function enrol(user: { id: string; merchantId: string; email: string }) {
  const { secret, emailCode } = await beginTotpEnrollment(user.id, "correct horse");
  const codes = await confirmTotpEnrollment(ctxOf(user), { app: currentTotp(secret), email: emailCode }, null);
  return { secret, codes };
}

describe("two-factor authentication", () => {
  it("turns on only with a code from the enrolled secret and the mailed one, and hands out ten recovery codes", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { secret, uri, emailCode } = await beginTotpEnrollment(user.id, "correct horse");
    expect(uri).toContain(`secret=${secret}`);
    const [stored] = await db().select().from(users).where(eq(users.id, user.id));
    expect(stored.totpSecret).not.toContain(secret); // sealed at rest
    await expect(confirmTotpEnrollment(ctxOf(user), { app: "000000", email: emailCode }, null)).rejects.toThrow(
      "security.wrongCode",
    );
    const codes = await confirmTotpEnrollment(ctxOf(user), { app: currentTotp(secret), email: emailCode }, null);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(await twoFactorStatus(user.id)).toEqual({ enabled: true, recoveryCodesLeft: 10 });
  });

  it("accepts a TOTP code once: the same code replayed is refused", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { secret, emailCode } = await beginTotpEnrollment(user.id, "correct horse");
    // The enrolment spends the current step; the next step's code is fresh.
    await confirmTotpEnrollment(ctxOf(user), { app: currentTotp(secret, Date.now() - 30_000), email: emailCode }, null);
    const code = currentTotp(secret);
    const ctx = ctxOf(user);
    const both = await Promise.all([verifySecondFactor(ctx, "stepUp", code), verifySecondFactor(ctx, "stepUp", code)]);
    expect(both.filter((r) => r === "totp")).toHaveLength(1);
    expect(await verifySecondFactor(ctx, "stepUp", code)).toBeNull();
  });

  it("accepts each recovery code once, in any case and with or without its dash", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { codes } = await enrol(user);
    expect(await verifySecondFactor(ctxOf(user), "signIn", codes[0].toUpperCase().replace("-", ""))).toBe("recovery");
    expect(await verifySecondFactor(ctxOf(user), "signIn", codes[0])).toBeNull();
    expect((await twoFactorStatus(user.id)).recoveryCodesLeft).toBe(9);
  });

  it("turns off only with a valid second factor", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { codes } = await enrol(user);
    await expect(disableTwoFactor(ctxOf(user), "123456")).rejects.toThrow("security.wrongCode");
    await disableTwoFactor(ctxOf(user), codes[1]);
    expect(await twoFactorStatus(user.id)).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    expect(await verifySecondFactor(ctxOf(user), "signIn", codes[2])).toBeNull();
  });
});

describe("server-side sessions", () => {
  it("a revoked session no longer counts; the others do until revoked everywhere", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const a = await createSession(user.id, { ip: "203.0.113.5", userAgent: "test" });
    const b = await createSession(user.id, {});
    const c = await createSession(user.id, {});
    expect(await liveSession(a.id, user.id)).not.toBeNull();
    expect(await revokeSession(user.id, a.id)).toBe(true);
    expect(await liveSession(a.id, user.id)).toBeNull();
    expect(await revokeOtherSessions(user.id, b.id)).toBe(1);
    expect(await liveSession(b.id, user.id)).not.toBeNull();
    expect(await liveSession(c.id, user.id)).toBeNull();
  });

  it("the sweep drops sessions ended a month ago and keeps the rest", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const [old, revokedLongAgo, open] = [
      await createSession(user.id, {}),
      await createSession(user.id, {}),
      await createSession(user.id, {}),
    ];
    await db().execute(sql`update user_sessions set expires_at = now() - interval '31 days' where id = ${old.id}`);
    await db().execute(
      sql`update user_sessions set revoked_at = now() - interval '31 days' where id = ${revokedLongAgo.id}`,
    );
    expect(await purgeSpentAccountRows()).toBeGreaterThanOrEqual(2);
    const left = await db().execute<{ id: string }>(sql`select id from user_sessions where user_id = ${user.id}`);
    expect(left.map((r) => r.id)).toEqual([open.id]);
  });

  it("a session id is only good for its own user", async () => {
    const { merchant } = await seedMerchant();
    const [u1, u2] = [await seedUser(merchant.id), await seedUser(merchant.id)];
    const s = await createSession(u1.id, {});
    expect(await liveSession(s.id, u2.id)).toBeNull();
    expect(await revokeSession(u2.id, s.id)).toBe(false);
  });
});

describe("passwords", () => {
  it("a change needs the current password and ends every other session", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const mine = await createSession(user.id, {});
    const other = await createSession(user.id, {});
    await expect(changePassword(user.id, "wrong", "new password 1", mine.id)).rejects.toThrow("security.wrongPassword");
    expect(await changePassword(user.id, "correct horse", "new password 1", mine.id)).toBe(1);
    expect(await liveSession(mine.id, user.id)).not.toBeNull();
    expect(await liveSession(other.id, user.id)).toBeNull();
    const [row] = await db().select().from(users).where(eq(users.id, user.id));
    expect(await verifyPassword("new password 1", row.passwordHash)).toBe(true);
  });

  it("a reset link works once, is stored only as a hash, and ends every session", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const s = await createSession(user.id, {});
    const reset = await createPasswordReset(user.email.toUpperCase());
    expect(reset).not.toBeNull();
    const stored = await db().execute<{ token_hash: string }>(
      sql`select token_hash from password_resets where user_id = ${user.id}`,
    );
    expect(stored.map((r) => r.token_hash)).not.toContain(reset!.token);
    expect(await resetLinkIsLive(reset!.token)).toBe(true);
    const results = await Promise.allSettled([
      resetPassword(reset!.token, "brand new pass"),
      resetPassword(reset!.token, "another pass"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await resetLinkIsLive(reset!.token)).toBe(false);
    await expect(resetPassword(reset!.token, "third pass!")).rejects.toThrow("auth.resetInvalid");
    expect(await liveSession(s.id, user.id)).toBeNull();
  });

  it("a newer link retires the older one; an expired one does not work; an unknown e-mail gets none", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const first = await createPasswordReset(user.email);
    const second = await createPasswordReset(user.email);
    expect(await resetLinkIsLive(first!.token)).toBe(false);
    await db().execute(
      sql`update password_resets set expires_at = now() - interval '1 second' where user_id = ${user.id}`,
    );
    expect(await resetLinkIsLive(second!.token)).toBe(false);
    await expect(resetPassword(second!.token, "brand new pass")).rejects.toThrow("auth.resetInvalid");
    expect(await createPasswordReset("nobody@nowhere.example")).toBeNull();
    expect(await resetLinkIsLive("not a token")).toBe(false);
  });
});

describe("team", () => {
  it("an invitation becomes a member with its role, once", async () => {
    const { merchant } = await seedMerchant();
    const owner = await seedUser(merchant.id);
    const email = `new-${crypto.randomUUID().slice(0, 8)}@loja.com.br`;
    const { token } = await inviteMember(merchant.id, { userId: owner.id, role: "owner" }, email, "finance");
    expect(await openInvitation(token)).toMatchObject({ email, role: "finance", companyName: merchant.companyName });
    const member = await acceptInvitation(token, { name: "Fin", password: "finance pass" });
    expect(member).toMatchObject({ merchantId: merchant.id, role: "finance", email });
    await expect(acceptInvitation(token, { name: "Again", password: "finance pass" })).rejects.toThrow(
      "auth.inviteInvalid",
    );
    await expect(inviteMember(merchant.id, { userId: owner.id, role: "owner" }, email, "viewer")).rejects.toThrow(
      "team.alreadyMember",
    );
  });

  it("admins cannot make or touch owners; the last owner cannot leave or be demoted", async () => {
    const { merchant } = await seedMerchant();
    const owner = await seedUser(merchant.id);
    const admin = await seedUser(merchant.id, "admin");
    await expect(
      inviteMember(merchant.id, { userId: admin.id, role: "admin" }, "x@loja.com.br", "owner"),
    ).rejects.toThrow("team.cannotManage");
    await expect(changeRole(merchant.id, "admin", owner.id, "viewer")).rejects.toThrow("team.cannotManage");
    await expect(changeRole(merchant.id, "owner", owner.id, "admin")).rejects.toThrow("team.lastOwner");
    await expect(removeMember(merchant.id, "owner", owner.id)).rejects.toThrow("team.lastOwner");
    await expect(changeRole(merchant.id, "viewer", admin.id, "viewer")).rejects.toThrow("team.cannotManage");
    expect(await changeRole(merchant.id, "owner", admin.id, "owner")).toEqual({ email: admin.email, from: "admin" });
    await changeRole(merchant.id, "owner", owner.id, "viewer");
    expect(await removeMember(merchant.id, "owner", owner.id)).toBe(owner.email);
  });

  it("removing a member ends their sessions", async () => {
    const { merchant } = await seedMerchant();
    await seedUser(merchant.id);
    const dev = await seedUser(merchant.id, "developer");
    const s = await createSession(dev.id, {});
    await removeMember(merchant.id, "admin", dev.id);
    expect(await liveSession(s.id, dev.id)).toBeNull();
  });

  it("another merchant's member is unknown", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    await seedUser(a.merchant.id);
    const other = await seedUser(b.merchant.id, "viewer");
    await expect(removeMember(a.merchant.id, "owner", other.id)).rejects.toThrow("Member not found");
  });
});

describe("read-only API keys", () => {
  async function readOnlyKey(merchantId: string) {
    const key = generateApiKey("sandbox");
    await db()
      .insert(apiKeys)
      .values({
        merchantId,
        name: "ro",
        prefix: key.prefix,
        keyHash: key.hash,
        mode: "sandbox",
        scopes: ["read"],
        scope: "read",
      });
    return key.key;
  }

  it("reads; every write is a 403 in the endpoint's own error body, naming the scope it needs", async () => {
    const { merchant } = await seedMerchant({ balanceCentavos: 100_000 });
    const key = await readOnlyKey(merchant.id);
    expect((await api("GET", "/api/v1/account", { apiKey: key })).status).toBe(200);
    const pix = await api("POST", "/api/v1/order/create/pix", { apiKey: key, body: { value: 10 } });
    expect(pix).toMatchObject({ status: 403, body: { message: expect.stringContaining("payments scope") } });
    const ln = await api("POST", "/api/v1/order/create/lightning", { apiKey: key, body: { value: 10 } });
    expect(ln).toMatchObject({
      status: 403,
      body: { success: false, error: expect.stringContaining("payments scope") },
    });
    const out = await api("POST", "/api/v1/order/pix-out", { apiKey: key, body: { value: 100 } });
    expect(out.status).toBe(403);
    expect(out.body.error.details).toContain("withdrawals scope");
    const wh = await api("DELETE", `/api/v1/webhooks/${crypto.randomUUID()}`, { apiKey: key });
    expect(wh.status).toBe(403);
    expect(await balanceOf(db(), merchant.id)).toBe(100_000);
  });
});

describe("payout key hold", () => {
  it("a pix-out to a key changed minutes ago is refused until an owner confirms it; other keys are not held", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    await updateMerchant(merchant.id, { pixKey: "novo@loja.com.br" });
    const held = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } });
    expect(held.status).toBe(400);
    expect(held.body.message).toMatch(/changed recently/);
    expect(
      (await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100, pixKey: "52998224725" } })).status,
    ).toBe(201);
    await confirmPayoutKey(merchant.id);
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } })).status).toBe(201);
  });

  it("saving the same key again does not restart the hold", async () => {
    const { merchant } = await seedMerchant();
    await updateMerchant(merchant.id, { pixKey: "52998224725" });
    const [m] = await db().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(m.pixKeyChangedAt).toBeNull();
  });
});

describe("audit trail", () => {
  it("is append-only: rows cannot be changed or deleted", async () => {
    const { merchant } = await seedMerchant();
    await audit(
      { merchantId: merchant.id, userId: null, email: "ana@loja.com.br", ip: "203.0.113.9" },
      "apiKey.created",
      "key-1",
    );
    await expect(
      db().update(auditEvents).set({ actor: "someone else" }).where(eq(auditEvents.merchantId, merchant.id)),
    ).rejects.toThrow();
    await expect(db().delete(auditEvents).where(eq(auditEvents.merchantId, merchant.id))).rejects.toThrow();
    const rows = await db().select().from(auditEvents).where(eq(auditEvents.merchantId, merchant.id));
    expect(rows).toMatchObject([
      { actor: "ana@loja.com.br", action: "apiKey.created", target: "key-1", ip: "203.0.113.9" },
    ]);
  });
});

describe("API actions on the trail", () => {
  it("a webhook created or deleted with an API key, and a withdrawal, are audited; the owners are mailed about the webhook and the withdrawal", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    const owner = await seedUser(merchant.id);
    const created = await api("POST", "/api/v1/webhooks", {
      apiKey,
      body: { url: "http://127.0.0.1:9/hooks" },
      headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.7" },
    });
    expect(created.status).toBe(201);
    expect((await api("DELETE", `/api/v1/webhooks/${created.body.webhook.id}`, { apiKey })).status).toBe(204);
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 100 } })).status).toBe(201);
    const rows = await db().select().from(auditEvents).where(eq(auditEvents.merchantId, merchant.id));
    expect(rows.map((r) => r.action).sort()).toEqual(["webhook.created", "webhook.deleted", "withdrawal.requested"]);
    expect(rows.find((r) => r.action === "webhook.created")).toMatchObject({
      ip: "198.51.100.7",
      actor: expect.stringMatching(/^API key /),
    });
    // The withdrawal's mail goes after the answer (lib/mail/background.ts).
    await backgroundMailSettled();
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.merchantId, merchant.id));
    expect(mails).toHaveLength(2);
    expect(mails.find((m) => m.body?.includes("http://127.0.0.1:9/hooks"))).toMatchObject({ toAddress: owner.email });
    expect(mails.find((m) => m.subject.startsWith("Saque solicitado"))).toMatchObject({
      toAddress: owner.email,
      body: expect.stringContaining("52998224725"),
    });
  });
});

describe("mail", () => {
  const received: { to: string; body: string }[] = [];
  let server: SMTPServer;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, callback) {
        let body = "";
        stream.on("data", (c: Buffer) => (body += c.toString("utf8")));
        stream.on("end", () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(","), body });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    delete process.env.SMTP_URL;
    resetEnvForTests();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("without SMTP_URL a mail waits in the outbox, body kept", async () => {
    const { merchant } = await seedMerchant();
    expect(await sendMail({ to: "a@loja.com.br", subject: "Oi", text: "corpo", merchantId: merchant.id })).toBe(
      "outbox",
    );
    const [row] = await db().select().from(mailOutbox).where(eq(mailOutbox.merchantId, merchant.id));
    expect(row).toMatchObject({ status: "outbox", body: "corpo" });
  });

  it("the outbox shows each member their own mail, and invitations to outsiders only to team managers", async () => {
    const { merchant } = await seedMerchant();
    const [owner, dev] = [await seedUser(merchant.id), await seedUser(merchant.id, "developer")];
    for (const to of [owner.email, dev.email, "outsider@elsewhere.example"])
      await sendMail({ to, subject: `para ${to}`, text: "x", merchantId: merchant.id });
    const seen = async (email: string, seesInvitations: boolean) =>
      (await outboxFor(merchant.id, { email, seesInvitations })).map((m) => m.toAddress).sort();
    expect(await seen(owner.email.toUpperCase(), true)).toEqual([owner.email, "outsider@elsewhere.example"].sort());
    expect(await seen(dev.email, false)).toEqual([dev.email]);
  });

  it("with SMTP_URL it reaches the SMTP server, and the stored row keeps no body", async () => {
    process.env.SMTP_URL = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    resetEnvForTests();
    const { merchant } = await seedMerchant();
    expect(
      await sendMail({
        to: "b@loja.com.br",
        subject: "Reset",
        text: "link: https://x/reset?token=abc",
        merchantId: merchant.id,
      }),
    ).toBe("sent");
    expect(received.at(-1)).toMatchObject({
      to: "b@loja.com.br",
      body: expect.stringContaining("link: https://x/reset?token=abc"),
    });
    const [row] = await db().select().from(mailOutbox).where(eq(mailOutbox.merchantId, merchant.id));
    expect(row).toMatchObject({ status: "sent", body: null });
  });
});
