import { randomUUID } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import type { SharedRateLimiter } from "@/lib/http/rate-limit";
import { processSlot } from "@/lib/singleton";

// Who may add, remove and use a second factor, and how often a code may be tried
// (docs/security.md: "Second-factor changes", "Step-up and money moves", "Wrong codes"), against
// PostgreSQL and the real server actions. A server action sees the session next-auth would hand it
// and the headers the server stamps; both are set per test here.

const state = vi.hoisted(() => ({
  session: null as null | { user: { id: string; merchantId: string; sessionId: string; email: string } },
  ip: "",
}));

vi.mock("next-auth", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next-auth")>()),
  getServerSession: async () => state.session,
}));
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ [CLIENT_ADDRESS_HEADER]: state.ip }),
  cookies: async () => ({ get: () => undefined }),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { db } = await import("@/db");
const { auditEvents, factorFailures, emailCodes, mailOutbox, orderRefunds, securityLinks, userSessions, users } =
  await import("@/db/schema");
const { hashPassword } = await import("@/lib/identity/password-hash");
const { currentTotp } = await import("@/lib/identity/totp");
const { beginTotpEnrollment, confirmTotpEnrollment, disableTwoFactor, twoFactorStatus, verifySecondFactor } =
  await import("@/lib/identity/two-factor");
const { FactorLocked, FAILURES_PER_ADDRESS_PER_MINUTE, LOCK_AFTER_FAILURES } =
  await import("@/lib/identity/factor-attempts");
const { confirmFactorChangeByLink, openFactorLink } = await import("@/lib/identity/factor-change");
const { factorHeldUntil } = await import("@/lib/identity/factor-hold");
const { createSecurityLink } = await import("@/lib/identity/links");
const { createSession, stepUpIsFresh, markStepUp, liveSession } = await import("@/lib/identity/sessions");
const { beginTotpAction, confirmTotpAction, disableTotpAction, confirmFactorChangeAction } =
  await import("@/lib/dashboard/actions/security");
const { refundOrderAction } = await import("@/lib/dashboard/actions/refunds");
const { pixOutAction } = await import("@/lib/dashboard/actions/withdrawals");
const { authOptions } = await import("@/lib/identity/dashboard/options");
const { idle } = await import("@/lib/forms/action-state");
const { api, seedMerchant } = await import("./helpers");

type Role = "owner" | "admin" | "finance" | "developer" | "viewer";
type User = typeof users.$inferSelect;
const PASSWORD = "correct horse";

const octet = () => 1 + Math.floor(Math.random() * 250);
const address = () => `10.${octet()}.${octet()}.${octet()}`;

beforeEach(() => {
  // A limiter of this test's own: the per-address allowance must not carry over between tests.
  const slot = processSlot<SharedRateLimiter>("rate-limiter");
  slot.value?.stop();
  slot.value = undefined;
  state.ip = address();
  state.session = null;
});

async function seedUser(merchantId: string, role: Role = "owner"): Promise<User> {
  const [user] = await db()
    .insert(users)
    .values({
      merchantId,
      email: `u-${randomUUID().slice(0, 8)}@loja.com.br`,
      passwordHash: await hashPassword(PASSWORD),
      role,
    })
    .returning();
  return user;
}

/** Signs `user` in on a new session (as next-auth would after the sign-in form). */
async function signInAs(user: User) {
  const session = await createSession(user.id, { ip: state.ip });
  state.session = { user: { id: user.id, merchantId: user.merchantId, sessionId: session.id, email: user.email } };
  return session;
}

function form(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}

const ctxOf = (user: User, ip = state.ip) => ({
  actor: { merchantId: user.merchantId, userId: user.id, email: user.email, ip },
  locale: "en" as const,
});

/** The mails the outbox holds for `to` (no SMTP_URL in these tests: bodies are kept). */
const mailsTo = (to: string) =>
  db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to)).orderBy(asc(mailOutbox.createdAt));
const codeIn = (body: string | null | undefined) => /: (\d{6})\n/.exec(body ?? "")?.[1] ?? "";
const tokenIn = (body: string | null | undefined) =>
  /confirm-factor\?token=([A-Za-z0-9_-]{43})/.exec(body ?? "")?.[1] ?? "";
/** Every confirmation-link token mailed to `to`. */
const tokensFor = async (to: string) => (await mailsTo(to)).map((m) => tokenIn(m.body)).filter((t) => t !== "");
/** The enrolment code in the one code mail `to` got since `seen` (ids of mails read before). */
async function newCode(to: string, seen: Set<string>): Promise<string> {
  const fresh = (await mailsTo(to)).filter((m) => !seen.has(m.id) && codeIn(m.body) !== "");
  expect(fresh).toHaveLength(1);
  return codeIn(fresh[0].body);
}
const idsOf = async (to: string) => new Set((await mailsTo(to)).map((m) => m.id));

/** Enrols through the server actions, as the Security page does, on `user`'s current session. */
async function enrolThroughDashboard(user: User): Promise<{ secret: string; codes: string[] }> {
  const seen = await idsOf(user.email);
  const begun = await beginTotpAction(idle, form({ password: PASSWORD }));
  if (begun.status !== "success") throw new Error(JSON.stringify(begun));
  const emailCode = await newCode(user.email, seen);
  const done = await confirmTotpAction(idle, form({ code: currentTotp(begun.data.secret), emailCode }));
  if (done.status !== "success") throw new Error(JSON.stringify(done));
  return { secret: begun.data.secret, codes: done.data.codes };
}

/** Enrols directly (no session), then lifts the hold as if another owner had confirmed: a member whose factor is settled. */
async function settledFactor(user: User): Promise<{ secret: string; codes: string[] }> {
  const { secret, emailCode } = await beginTotpEnrollment(user.id, PASSWORD);
  const codes = await confirmTotpEnrollment(
    ctxOf(user),
    { app: currentTotp(secret, Date.now() - 30_000), email: emailCode },
    null,
  );
  await db()
    .update(users)
    .set({ factorConfirmedAt: new Date(Date.now() + 1000) })
    .where(eq(users.id, user.id));
  return { secret, codes };
}

async function auditOf(merchantId: string, action: string) {
  return db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.merchantId, merchantId), eq(auditEvents.action, action)));
}

async function paidPixOrder(apiKey: string, value: number): Promise<string> {
  const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id: string = created.body.pixOrder._id;
  expect((await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey })).status).toBe(200);
  return id;
}

describe("enrolling a second factor takes the password and the mailbox", () => {
  it("refuses a wrong password, and turns nothing on without the mailed code", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id, "finance");
    await signInAs(user);
    const wrong = await beginTotpAction(idle, form({ password: "not my password" }));
    expect(wrong).toMatchObject({ status: "error", error: "A senha atual está errada." });

    const begun = await beginTotpAction(idle, form({ password: PASSWORD }));
    if (begun.status !== "success") throw new Error("begin refused");
    const [mail] = await mailsTo(user.email);
    expect(mail?.subject).toMatch(/código/i);
    const emailCode = codeIn(mail?.body);
    expect(emailCode).toMatch(/^\d{6}$/);
    // Only a SHA-256 is stored, never the code.
    const stored = await db().select().from(emailCodes).where(eq(emailCodes.userId, user.id));
    expect(stored).toHaveLength(1);
    expect(stored[0].codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(emailCode);

    // The app's code alone (the attacker's own app): refused, 2FA stays off.
    const app = currentTotp(begun.data.secret);
    for (const guess of ["", "000000"]) {
      const r = await confirmTotpAction(idle, form({ code: app, emailCode: guess }));
      expect(r.status).toBe("error");
    }
    expect((await twoFactorStatus(user.id)).enabled).toBe(false);

    // With it: on, once; the code is spent.
    expect((await confirmTotpAction(idle, form({ code: app, emailCode }))).status).toBe("success");
    expect((await twoFactorStatus(user.id)).enabled).toBe(true);
    expect((await auditOf(merchant.id, "twoFactor.enabled")).length).toBe(1);
  });

  it("a mailed code takes at most five tries, then even the right one is dead", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { secret, emailCode } = await beginTotpEnrollment(user.id, PASSWORD);
    const wrong = emailCode === "111111" ? "222222" : "111111";
    for (let i = 0; i < 5; i++) {
      await expect(
        confirmTotpEnrollment(ctxOf(user, address()), { app: currentTotp(secret), email: wrong }, null),
      ).rejects.toThrow();
    }
    // The user is locked after five wrong codes; from a fresh lock state the code itself is used up too.
    await db().delete(factorFailures).where(eq(factorFailures.userId, user.id));
    await expect(
      confirmTotpEnrollment(ctxOf(user, address()), { app: currentTotp(secret), email: emailCode }, null),
    ).rejects.toThrow("security.wrongEmailCode");
    expect((await twoFactorStatus(user.id)).enabled).toBe(false);
    const [row] = await db().select().from(emailCodes).where(eq(emailCodes.userId, user.id));
    expect(row.attempts).toBe(5);
  });

  it("a new code retires the older one", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const first = await beginTotpEnrollment(user.id, PASSWORD);
    const second = await beginTotpEnrollment(user.id, PASSWORD);
    if (first.emailCode !== second.emailCode) {
      await expect(
        confirmTotpEnrollment(ctxOf(user), { app: currentTotp(second.secret), email: first.emailCode }, null),
      ).rejects.toThrow("security.wrongEmailCode");
    }
    await confirmTotpEnrollment(ctxOf(user), { app: currentTotp(second.secret), email: second.emailCode }, null);
    expect((await twoFactorStatus(user.id)).enabled).toBe(true);
  });

  it("removing or replacing a factor takes the factor itself or a recovery code; enrolling again takes the password and a new mail", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { codes } = await settledFactor(user);
    // A second enrolment over a live factor is refused: replacing means turning it off first.
    await expect(beginTotpEnrollment(user.id, PASSWORD)).rejects.toThrow("security.twoFactorAlreadyOn");
    await signInAs(user);
    expect(await disableTotpAction(idle, form({ code: "123456" }))).toMatchObject({ status: "error" });
    expect((await twoFactorStatus(user.id)).enabled).toBe(true);
    expect((await disableTotpAction(idle, form({ code: codes[0] }))).status).toBe("success");
    expect((await twoFactorStatus(user.id)).enabled).toBe(false);
    const [row] = await db().select().from(users).where(eq(users.id, user.id));
    expect(row.factorChangedAt).not.toBeNull();
    expect(row.factorConfirmedAt).toBeNull();
  });

  it("every owner and admin is mailed on enrolment and on removal; owners but the member get the confirmation link", async () => {
    const { merchant } = await seedMerchant();
    const [owner, otherOwner, admin, finance] = [
      await seedUser(merchant.id),
      await seedUser(merchant.id),
      await seedUser(merchant.id, "admin"),
      await seedUser(merchant.id, "finance"),
    ];
    await signInAs(finance);
    const { codes } = await enrolThroughDashboard(finance);
    for (const who of [owner, otherOwner, admin]) {
      const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, who.email));
      expect(
        mails.some((m) => m.body?.includes(`${finance.email} ativou um novo segundo fator`)),
        who.role,
      ).toBe(true);
    }
    for (const who of [owner, otherOwner]) expect(await tokensFor(who.email), "owner link").toHaveLength(1);
    expect(await tokensFor(admin.email)).toEqual([]);
    expect(await tokensFor(finance.email)).toEqual([]);

    expect((await disableTotpAction(idle, form({ code: codes[0] }))).status).toBe("success");
    for (const who of [owner, otherOwner, admin]) {
      const mails = await mailsTo(who.email);
      expect(mails.some((m) => m.body?.includes(`${finance.email} desativou a autenticação em dois fatores`))).toBe(
        true,
      );
    }
    // Removal starts no hold to confirm: no new link.
    expect(await tokensFor(owner.email)).toHaveLength(1);
  });
});

describe("a factor enrolled on a session does not step it up", () => {
  it("neither the enrolment nor a later code on that session counts; a new sign-in's code does", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const owner = await seedUser(merchant.id);
    const session = await signInAs(owner);
    const { secret } = await enrolThroughDashboard(owner);
    const row = (await liveSession(session.id, owner.id))!;
    expect(row.factorEnrolledAt).not.toBeNull();
    expect(stepUpIsFresh(row)).toBe(false);
    await markStepUp(session.id);
    expect(stepUpIsFresh((await liveSession(session.id, owner.id))!)).toBe(false);

    // Even once the hold is lifted, this session's codes prove nothing: the withdrawal is refused, nothing leaves.
    await db()
      .update(users)
      .set({ factorConfirmedAt: new Date(Date.now() + 1000) })
      .where(eq(users.id, owner.id));
    const orderId = await paidPixOrder(apiKey, 20);
    const refused = await refundOrderAction(
      idle,
      form({ id: orderId, value: "5", reason: "teste", otp: currentTotp(secret) }),
    );
    expect(refused).toMatchObject({ status: "error", error: "security.enrolledHere" });
    const withdrawal = await pixOutAction(idle, form({ value: "10", otp: currentTotp(secret) }));
    expect(withdrawal).toMatchObject({ status: "error", error: "security.enrolledHere" });
    expect(await db().select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))).toHaveLength(0);

    // A new session (signed in with the factor) steps up with a code.
    await signInAs(owner);
    const done = await refundOrderAction(
      idle,
      form({ id: orderId, value: "5", reason: "teste", otp: currentTotp(secret, Date.now() + 30_000) }),
    );
    expect(done.status, JSON.stringify(done)).toBe("success");
  });
});

describe("the factor-change hold", () => {
  it("is arithmetic on the change and its confirmation; 0 turns it off", () => {
    const changed = new Date("2026-03-01T12:00:00Z");
    const now = changed.getTime() + 3_600_000;
    expect(factorHeldUntil({ factorChangedAt: changed, factorConfirmedAt: null }, now, 24)).toEqual(
      new Date(changed.getTime() + 24 * 3_600_000),
    );
    expect(
      factorHeldUntil({ factorChangedAt: changed, factorConfirmedAt: new Date(changed.getTime() + 1) }, now, 24),
    ).toBeNull();
    expect(
      factorHeldUntil({ factorChangedAt: changed, factorConfirmedAt: new Date(changed.getTime() - 1) }, now, 24),
    ).not.toBeNull();
    expect(
      factorHeldUntil({ factorChangedAt: changed, factorConfirmedAt: null }, changed.getTime() + 25 * 3_600_000, 24),
    ).toBeNull();
    expect(factorHeldUntil({ factorChangedAt: changed, factorConfirmedAt: null }, now, 0)).toBeNull();
    expect(factorHeldUntil({ factorChangedAt: null, factorConfirmedAt: null }, now, 24)).toBeNull();
  });

  it("holds a new factor's refunds and withdrawals until another owner confirms in the dashboard (never one's own)", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const owner = await seedUser(merchant.id);
    const finance = await seedUser(merchant.id, "finance");
    const { secret: ownerSecret } = await settledFactor(owner);
    const { secret } = await beginTotpEnrollment(finance.id, PASSWORD).then(async (b) => {
      await confirmTotpEnrollment(
        ctxOf(finance),
        { app: currentTotp(b.secret, Date.now() - 30_000), email: b.emailCode },
        null,
      );
      return b;
    });
    const orderId = await paidPixOrder(apiKey, 20);

    await signInAs(finance);
    const held = await refundOrderAction(idle, form({ id: orderId, value: "5", otp: currentTotp(secret) }));
    expect(held.status).toBe("error");
    if (held.status === "error") expect(held.error).toMatch(/^Seu segundo fator mudou há pouco/);
    expect(await pixOutAction(idle, form({ value: "10", otp: currentTotp(secret) }))).toMatchObject({
      status: "error",
      error: expect.stringMatching(/^Seu segundo fator mudou/),
    });
    // Its own confirmation does not count.
    expect(await confirmFactorChangeAction(idle, form({ id: finance.id }))).toMatchObject({
      status: "error",
      error: "security.notAllowed",
    });

    await signInAs(owner);
    expect(await confirmFactorChangeAction(idle, form({ id: owner.id, otp: currentTotp(ownerSecret) }))).toMatchObject({
      status: "error",
    });
    const confirmed = await confirmFactorChangeAction(
      idle,
      form({ id: finance.id, otp: currentTotp(ownerSecret, Date.now() + 30_000) }),
    );
    expect(confirmed.status, JSON.stringify(confirmed)).toBe("success");
    expect((await auditOf(merchant.id, "twoFactor.changeConfirmed"))[0].details).toMatchObject({ by: "owner" });

    await signInAs(finance);
    const done = await refundOrderAction(idle, form({ id: orderId, value: "5", otp: currentTotp(secret) }));
    expect(done.status, JSON.stringify(done)).toBe("success");
  });

  it("the link mailed to the owners confirms once, only the change it was sent for, and is spent only by the post", async () => {
    const { merchant } = await seedMerchant();
    const owner = await seedUser(merchant.id);
    await settledFactor(owner);
    const finance = await seedUser(merchant.id, "finance");
    await signInAs(finance);
    const first = await enrolThroughDashboard(finance);
    const [oldToken] = await tokensFor(owner.email);
    expect(await openFactorLink(oldToken)).toMatchObject({ member: finance.email });

    // Turned off and on again: the first link no longer confirms anything.
    expect((await disableTotpAction(idle, form({ code: first.codes[0] }))).status).toBe("success");
    await signInAs(finance);
    await enrolThroughDashboard(finance);
    await expect(confirmFactorChangeByLink(oldToken, "198.51.100.1")).rejects.toThrow("security.linkInvalid");
    const token = (await tokensFor(owner.email)).find((t) => t !== oldToken)!;
    expect(token).toMatch(/^.{43}$/);

    // Opening the page spends nothing; the post does, once.
    expect(await openFactorLink(token)).not.toBeNull();
    expect(await openFactorLink(token)).not.toBeNull();
    expect(await confirmFactorChangeByLink(token, "198.51.100.1")).toBe(finance.email);
    await expect(confirmFactorChangeByLink(token, "198.51.100.1")).rejects.toThrow("security.linkInvalid");
    const [row] = await db().select().from(users).where(eq(users.id, finance.id));
    expect(factorHeldUntil(row)).toBeNull();
    expect((await auditOf(merchant.id, "twoFactor.changeConfirmed"))[0]).toMatchObject({
      userId: null,
      ip: "198.51.100.1",
      details: { by: "link" },
    });

    // A link of another kind is refused and stays unspent.
    const other = await createSecurityLink(merchant.id, "destination", randomUUID());
    await expect(confirmFactorChangeByLink(other, null)).rejects.toThrow("security.linkInvalid");
    const [kept] = await db()
      .select()
      .from(securityLinks)
      .where(and(eq(securityLinks.merchantId, merchant.id), eq(securityLinks.kind, "destination")));
    expect(kept.usedAt).toBeNull();
  });

  it("a sole owner gets the link for their own change; an owner whose own factor is held does not vouch for others", async () => {
    const { merchant } = await seedMerchant();
    const owner = await seedUser(merchant.id);
    await signInAs(owner);
    await enrolThroughDashboard(owner);
    expect(await tokensFor(owner.email)).toHaveLength(1);

    const second = await seedUser(merchant.id);
    await signInAs(second);
    await enrolThroughDashboard(second);
    // `owner` is still held: no link to them. Nobody else can vouch, so the member's own mailbox gets it.
    expect(await tokensFor(owner.email)).toHaveLength(1);
    expect(await tokensFor(second.email)).toHaveLength(1);
  });
});

describe("step-up for every money move", () => {
  it("a password-only session cannot refund or withdraw; nothing leaves", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const finance = await seedUser(merchant.id, "finance");
    const orderId = await paidPixOrder(apiKey, 20);
    await signInAs(finance);
    expect(await refundOrderAction(idle, form({ id: orderId, value: "20", reason: "x" }))).toMatchObject({
      status: "error",
      error: "security.twoFactorNeeded",
    });
    expect(await pixOutAction(idle, form({ value: "10" }))).toMatchObject({
      status: "error",
      error: "security.twoFactorNeeded",
    });
    expect(await db().select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))).toHaveLength(0);
  });

  it("a refund names its amount: the dashboard does not refund everything left by default", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 50_000 });
    const owner = await seedUser(merchant.id);
    const { secret } = await settledFactor(owner);
    const orderId = await paidPixOrder(apiKey, 20);
    await signInAs(owner);
    const missing = await refundOrderAction(idle, form({ id: orderId, otp: currentTotp(secret) }));
    expect(missing).toMatchObject({ status: "error", fieldErrors: { value: [expect.any(String)] } });
    expect(await db().select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))).toHaveLength(0);
  });

  it("every dashboard action that calls a money-moving service declares itself a money move", async () => {
    const { readFileSync, readdirSync } = await import("node:fs");
    const { MONEY_MOVES } = await import("@/lib/identity/money-moves");
    const services =
      /\b(requestRefund|createPixOut|initiateOnchainWithdrawal|returnUnapplied|requestRecipientPayout)\(/;
    const declared = new Set<string>();
    for (const file of readdirSync("lib/dashboard/actions")) {
      const text = readFileSync(`lib/dashboard/actions/${file}`, "utf8");
      for (const call of text.split(/(?=export const \w+ = merchantAction\()/).slice(1)) {
        if (!services.test(call)) continue;
        const move = /moneyMove: "([\w.]+)"/.exec(call)?.[1];
        expect(move, `${file}: ${call.slice(0, 60)}`).toBeDefined();
        declared.add(move!);
      }
    }
    expect([...declared].sort()).toEqual([...MONEY_MOVES].sort());
    const docs = readFileSync("docs/security.md", "utf8");
    for (const move of MONEY_MOVES) expect(docs, move).toContain(`\`${move}\``);
  });
});

describe("wrong codes are rationed", () => {
  it("the fifth wrong code locks the user for a minute, the right one is refused while locked, every failure is audited", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const { secret } = await settledFactor(user);
    for (let i = 0; i < LOCK_AFTER_FAILURES; i++)
      expect(await verifySecondFactor(ctxOf(user), "stepUp", "000000")).toBeNull();
    await expect(verifySecondFactor(ctxOf(user), "stepUp", currentTotp(secret))).rejects.toBeInstanceOf(FactorLocked);
    await expect(verifySecondFactor(ctxOf(user), "signIn", currentTotp(secret))).rejects.toThrow(
      "Too many wrong codes. Try again in 1 min.",
    );
    const failed = await auditOf(merchant.id, "twoFactor.failed");
    expect(failed).toHaveLength(LOCK_AFTER_FAILURES);
    expect(failed.map((f) => (f.details as { failures: number }).failures).sort()).toEqual([1, 2, 3, 4, 5]);
    const locked = await auditOf(merchant.id, "twoFactor.locked");
    expect(locked).toHaveLength(1);
    const [row] = await db().select().from(factorFailures).where(eq(factorFailures.userId, user.id));
    expect(row.lockedUntil!.getTime() - Date.now()).toBeGreaterThan(50_000);
    expect(row.lockedUntil!.getTime() - Date.now()).toBeLessThanOrEqual(61_000);
    // The user is told.
    expect((await mailsTo(user.email)).some((m) => m.body?.includes("5 wrong second-factor codes in a row"))).toBe(
      true,
    );

    // Once the lock ends, the next failure locks for twice as long; the right code resets the count.
    await db()
      .update(factorFailures)
      .set({ lockedUntil: new Date(Date.now() - 1) })
      .where(eq(factorFailures.userId, user.id));
    expect(await verifySecondFactor(ctxOf(user), "stepUp", "000000")).toBeNull();
    const [doubled] = await db().select().from(factorFailures).where(eq(factorFailures.userId, user.id));
    expect(doubled.failures).toBe(6);
    expect(doubled.lockedUntil!.getTime() - Date.now()).toBeGreaterThan(110_000);
    await db()
      .update(factorFailures)
      .set({ lockedUntil: new Date(Date.now() - 1) })
      .where(eq(factorFailures.userId, user.id));
    expect(await verifySecondFactor(ctxOf(user), "stepUp", currentTotp(secret))).toBe("totp");
    const [reset] = await db().select().from(factorFailures).where(eq(factorFailures.userId, user.id));
    expect(reset).toMatchObject({ failures: 0, lockedUntil: null });
  });

  it("requests racing each other get no more than five guesses", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    await settledFactor(user);
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, () => verifySecondFactor(ctxOf(user), "stepUp", "000000")),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(LOCK_AFTER_FAILURES);
    expect(results.filter((r) => r.status === "rejected" && r.reason instanceof FactorLocked)).toHaveLength(
      25 - LOCK_AFTER_FAILURES,
    );
    expect(await auditOf(merchant.id, "twoFactor.failed")).toHaveLength(LOCK_AFTER_FAILURES);
  });

  it("owners and admins are alerted from the tenth failure in a row", async () => {
    const { merchant } = await seedMerchant();
    const [owner, admin, user] = [
      await seedUser(merchant.id),
      await seedUser(merchant.id, "admin"),
      await seedUser(merchant.id, "finance"),
    ];
    await settledFactor(user);
    for (let i = 0; i < 10; i++) {
      await db().update(factorFailures).set({ lockedUntil: null }).where(eq(factorFailures.userId, user.id));
      await verifySecondFactor(ctxOf(user, address()), "stepUp", "000000");
    }
    for (const who of [owner, admin]) {
      expect(
        (await mailsTo(who.email)).some((m) =>
          m.body?.includes(`Repeated wrong second-factor codes for ${user.email} (10)`),
        ),
      ).toBe(true);
    }
  });

  it("one address gets 30 wrong codes a minute across accounts", async () => {
    const { merchant } = await seedMerchant();
    const ip = address();
    let refused = 0;
    const accounts = await Promise.all(Array.from({ length: 8 }, () => seedUser(merchant.id)));
    for (const user of accounts) await settledFactor(user);
    // Calendar-minute windows: keep the 32 tries inside one minute.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
    for (const user of accounts) {
      for (let i = 0; i < 4; i++) {
        try {
          await verifySecondFactor(ctxOf(user, ip), "stepUp", "000000");
        } catch (err) {
          expect(err).toBeInstanceOf(FactorLocked);
          refused++;
        }
      }
    }
    // 32 tries, 4 per account (no account reaches its own lock): the address's allowance refuses the last ones.
    expect(refused).toBeGreaterThanOrEqual(32 - FAILURES_PER_ADDRESS_PER_MINUTE);
    expect(await auditOf(merchant.id, "twoFactor.failed")).toHaveLength(32 - refused);
  });

  it("applies to step-up, turning 2FA off, the sign-in code and the mailed enrolment code alike", async () => {
    const { merchant } = await seedMerchant({ balanceCentavos: 10_000 });
    const user = await seedUser(merchant.id);
    const { secret, codes } = await settledFactor(user);
    await signInAs(user);

    // Step-up: 20 wrong codes on a withdrawal; the 6th on say "locked", and so does the right one.
    const answers: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await pixOutAction(idle, form({ value: "10", otp: "000000" }));
      answers.push(r.status === "error" ? (r.error ?? "") : r.status);
    }
    expect(answers.slice(0, 5).every((a) => a === "security.stepUpNeeded")).toBe(true);
    expect(answers.slice(5).every((a) => a.startsWith("Muitos códigos errados"))).toBe(true);
    const right = await pixOutAction(idle, form({ value: "10", otp: currentTotp(secret) }));
    expect(right).toMatchObject({ status: "error", error: expect.stringMatching(/^Muitos códigos errados/) });
    // Asked for a code while locked: told so at once.
    expect(await pixOutAction(idle, form({ value: "10" }))).toMatchObject({
      status: "error",
      error: expect.stringMatching(/^Muitos códigos errados/),
    });

    // Turning 2FA off: locked too, even with a recovery code.
    const off = await disableTotpAction(idle, form({ code: codes[0] }));
    expect(off).toMatchObject({ status: "error", error: expect.stringMatching(/^Muitos códigos errados/) });
    expect((await twoFactorStatus(user.id)).enabled).toBe(true);
    await expect(disableTwoFactor(ctxOf(user), codes[0])).rejects.toBeInstanceOf(FactorLocked);

    // The sign-in code step answers "locked", the right code included.
    type Authorize = (c: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown>;
    const authorize = (authOptions().providers[0] as unknown as { options: { authorize: Authorize } }).options
      .authorize;
    await expect(
      authorize(
        { email: user.email, password: PASSWORD, otp: currentTotp(secret) },
        { headers: { [CLIENT_ADDRESS_HEADER]: address() } },
      ),
    ).rejects.toThrow("TwoFactorLocked");

    // The mailed enrolment code: another user, five wrong codes, then locked.
    const other = await seedUser(merchant.id);
    const { secret: s2, emailCode } = await beginTotpEnrollment(other.id, PASSWORD);
    for (let i = 0; i < 5; i++) {
      await expect(
        confirmTotpEnrollment(
          ctxOf(other),
          { app: currentTotp(s2), email: emailCode === "000000" ? "999999" : "000000" },
          null,
        ),
      ).rejects.toThrow("security.wrongEmailCode");
    }
    await expect(
      confirmTotpEnrollment(ctxOf(other), { app: currentTotp(s2), email: emailCode }, null),
    ).rejects.toBeInstanceOf(FactorLocked);
    const checks = (await auditOf(merchant.id, "twoFactor.failed")).map((r) => (r.details as { check: string }).check);
    expect(new Set(checks)).toEqual(new Set(["stepUp", "enrolEmail"]));
  });
});

describe("sessions and their rows", () => {
  it("the session row records where the factor was enrolled", async () => {
    const { merchant } = await seedMerchant();
    const user = await seedUser(merchant.id);
    const session = await signInAs(user);
    await enrolThroughDashboard(user);
    const [row] = await db().select().from(userSessions).where(eq(userSessions.id, session.id));
    expect(row.factorEnrolledAt).not.toBeNull();
    expect(row.stepUpAt).toBeNull();
  });
});
