import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { db } from "@/db";
import {
  auditEvents,
  mailOutbox,
  merchants,
  payoutDestinations,
  pixPayouts,
  securityLinks,
  users,
  withdrawals,
  type Merchant,
} from "@/db/schema";
import type { SignedIn } from "@/lib/identity/dashboard/session";
import { resetEnvForTests } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { idle } from "@/lib/forms/action-state";
import { backgroundMailSettled } from "@/lib/mail/background";
import { confirmPayoutKey, updateMerchant } from "@/lib/merchants/service";
import { hashPassword } from "@/lib/identity/password-hash";
import { createSecurityLink } from "@/lib/identity/links";
import { addDestination, confirmDestinationByLink, destinationOfLink } from "@/lib/withdrawals/address-book";
import { createPixOut } from "@/lib/withdrawals/service";
import { api, seedMerchant, specOf } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { form } from "./support/form";

// Withdrawal destinations (docs/security.md "Withdrawal destinations") against the real server
// actions and API handlers on PostgreSQL: a destination first used from the dashboard is held and
// announced to the owners; an owner releases it in the dashboard or through the mailed link; with
// the allow-list on, the API pays only confirmed destinations, in each endpoint's own error body;
// every withdrawal and refund is mailed to the owners. The dashboard's session is the only thing
// stood in for: who is signed in, and whether they proved a second factor just now.

const session = vi.hoisted(() => ({ current: undefined as unknown, lang: undefined as string | undefined }));
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ [CLIENT_ADDRESS_HEADER]: "203.0.113.50" }),
  cookies: async () => ({
    get: (name: string) => (name === "lang" && session.lang ? { value: session.lang } : undefined),
  }),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/identity/dashboard/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/identity/dashboard/session")>()),
  requireMerchant: async () => session.current,
}));

const { pixOutAction, onchainWithdrawAction } = await import("@/lib/dashboard/actions/withdrawals");
const { addDestinationAction, confirmDestinationAction, setAllowlistAction } =
  await import("@/lib/dashboard/actions/destinations");
const { refundOrderAction } = await import("@/lib/dashboard/actions/refunds");

const PIX_OUT = "/api/v1/order/pix-out";
const WITHDRAW = "/api/v1/onchain/withdraw/initiate";
// Hardhat test accounts: valid EIP-55 addresses.
const ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const TOKEN_IN_MAIL = /\/confirm-destination\?token=([A-Za-z0-9_-]{43})/;

afterEach(async () => {
  session.current = undefined;
  session.lang = undefined;
  delete process.env.DESTINATION_HOLD_HOURS;
  delete process.env.SMTP_URL;
  resetEnvForTests();
  await backgroundMailSettled();
});

type Role = "owner" | "admin" | "finance" | "developer" | "viewer";

async function seedUser(merchantId: string, role: Role) {
  const [user] = await db()
    .insert(users)
    .values({
      merchantId,
      email: `${role}-${randomUUID().slice(0, 8)}@loja.com.br`,
      passwordHash: await hashPassword("correct horse"),
      role,
    })
    .returning();
  return user;
}

/** A merchant with money, its API key, and a team: an owner, an admin and a finance user. */
async function team(balanceCentavos = 1_000_000) {
  const { merchant, apiKey } = await seedMerchant({ balanceCentavos });
  const [owner, admin, finance] = [
    await seedUser(merchant.id, "owner"),
    await seedUser(merchant.id, "admin"),
    await seedUser(merchant.id, "finance"),
  ];
  return { merchant, apiKey, owner, admin, finance };
}

async function merchantRow(id: string): Promise<Merchant> {
  return (await db().select().from(merchants).where(eq(merchants.id, id)))[0];
}

/** Signs `user` in, with a second factor proved just now unless `stepUpFresh` is false. */
async function signIn(
  user: { id: string; email: string; role: Role; merchantId: string },
  opts: { stepUpFresh?: boolean } = {},
) {
  session.current = {
    merchant: await merchantRow(user.merchantId),
    userId: user.id,
    email: user.email,
    role: user.role,
    sessionId: randomUUID(),
    twoFactor: true,
    stepUpFresh: opts.stepUpFresh ?? true,
    ip: "203.0.113.50",
  } as SignedIn;
}

const destinations = (merchantId: string) =>
  db().select().from(payoutDestinations).where(eq(payoutDestinations.merchantId, merchantId));
const withdrawalsOf = (merchantId: string) =>
  db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchantId)).orderBy(withdrawals.createdAt);
const payoutsOf = (withdrawalId: string) => db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, withdrawalId));
async function mailsOf(merchantId: string) {
  await backgroundMailSettled();
  return db().select().from(mailOutbox).where(eq(mailOutbox.merchantId, merchantId));
}
async function auditOf(merchantId: string) {
  return db().select().from(auditEvents).where(eq(auditEvents.merchantId, merchantId));
}

describe("dashboard: a destination used for the first time", () => {
  it("a PIX key never used before is recorded and held; the withdrawal is accepted and waits, debited; the owners are mailed", async () => {
    const t = await team();
    await signIn(t.finance);
    const held = await pixOutAction(idle, form({ value: "150", pixKey: "maria@example.com" }));
    expect(held).toMatchObject({ status: "success", message: "withdrawals.requestedWaiting" });
    // Recorded and debited, with no payout yet: it waits for the destination.
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 15_000);
    const [waiting] = await withdrawalsOf(t.merchant.id);
    expect(waiting).toMatchObject({ status: "PENDING", pixKey: "maria@example.com" });
    expect(waiting.waitingReason).toMatch(/^waiting for destination maria@example\.com: it is new/);

    const [row] = await destinations(t.merchant.id);
    expect(row).toMatchObject({
      kind: "pix_key",
      value: "maria@example.com",
      status: "held",
      createdBy: t.finance.id,
      confirmedBy: null,
      lastUsedAt: null,
    });
    const hours = (row.holdUntil!.getTime() - row.createdAt.getTime()) / 3_600_000;
    expect(hours).toBeCloseTo(24, 2);

    const mails = await mailsOf(t.merchant.id);
    const to = (u: { email: string }) =>
      mails.filter((m) => m.toAddress === u.email && m.subject.startsWith("Novo destino de saque"));
    // The owner gets the link; the admin and the user who asked are told, without one.
    expect(to(t.owner)).toHaveLength(1);
    expect(to(t.owner)[0].body).toMatch(TOKEN_IN_MAIL);
    expect(to(t.owner)[0].body).toContain("Chave PIX maria@example.com");
    expect(to(t.owner)[0].body).toContain(`Por: ${t.finance.email}`);
    expect(to(t.owner)[0].body).toContain("De: 203.0.113.50");
    expect(to(t.admin)[0].body).not.toMatch(TOKEN_IN_MAIL);
    expect(to(t.admin)[0].body).toContain("Um proprietário pode confirmá-lo no painel");
    expect(to(t.finance)).toHaveLength(1);

    // Asked again: waits too; one row, no second announcement.
    expect((await pixOutAction(idle, form({ value: "150", pixKey: "maria@example.com" }))).status).toBe("success");
    expect(await destinations(t.merchant.id)).toHaveLength(1);
    expect((await withdrawalsOf(t.merchant.id)).every((w) => w.waitingDestinationId === row.id)).toBe(true);
    expect((await mailsOf(t.merchant.id)).filter((m) => m.subject.startsWith("Novo destino"))).toHaveLength(3);
  });

  it("an on-chain withdrawal to a new address waits the same way, whatever the address's case, with no chain transaction", async () => {
    const t = await team();
    await signIn(t.admin);
    session.lang = "en";
    const held = await onchainWithdrawAction(
      idle,
      form({ toAddress: ADDRESS, value: "50", network: "polygon", token: "USDT" }),
    );
    expect(held).toMatchObject({ status: "success", message: "withdrawals.requestedWaiting" });
    const again = await onchainWithdrawAction(
      idle,
      form({ toAddress: ADDRESS.toLowerCase(), value: "50", network: "bsc", token: "USDT" }),
    );
    expect(again.status).toBe("success");
    expect(await destinations(t.merchant.id)).toMatchObject([
      { kind: "chain_address", value: ADDRESS.toLowerCase(), status: "held" },
    ]);
    const rows = await withdrawalsOf(t.merchant.id);
    expect(rows).toHaveLength(2);
    expect(rows.every((w) => w.status === "PENDING" && w.txHash === null && w.waitingDestinationId !== null)).toBe(
      true,
    );
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - rows[0].debitCentavos - rows[1].debitCentavos);
    const owner = (await mailsOf(t.merchant.id)).find(
      (m) => m.toAddress === t.owner.email && m.subject.startsWith("New withdrawal destination"),
    );
    expect(owner?.body).toContain(`Wallet address ${ADDRESS.toLowerCase()}`);
  });

  it("the registered payout key is not a new destination: it goes at once, and keeps its own hold when changed", async () => {
    const t = await team();
    await signIn(t.finance);
    expect((await pixOutAction(idle, form({ value: "10" }))).status).toBe("success");
    // Changed: held by the payout-key hold, with its own message, from the dashboard and the API alike.
    await updateMerchant(t.merchant.id, { pixKey: "novo@loja.com.br" });
    await signIn(t.finance);
    session.lang = "en";
    const held = await pixOutAction(idle, form({ value: "10" }));
    expect(held.status === "error" && held.error).toMatch(
      /^The registered PIX key was changed recently: withdrawals to it wait until \S+ unless an owner confirms the change/,
    );
    const api1 = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 100 } });
    expect(api1.status).toBe(400);
    expect(api1.body.message).toMatch(/^The registered PIX key was changed recently/);
    // The destination hold does not apply to it: no row, no destination mail.
    expect(await destinations(t.merchant.id)).toEqual([]);
    await confirmPayoutKey(t.merchant.id);
    await signIn(t.finance);
    expect((await pixOutAction(idle, form({ value: "10" }))).status).toBe("success");
    // Nor can it be added to the address book: it is managed in Settings.
    await expect(
      addDestination(
        { merchantId: t.merchant.id, userId: t.owner.id, email: t.owner.email, ip: null },
        "en",
        await merchantRow(t.merchant.id),
        {
          kind: "pix_key",
          value: "novo@loja.com.br",
        },
      ),
    ).rejects.toThrow("destinations.isPayoutKey");
  });

  it("with DESTINATION_HOLD_HOURS=0 a new destination goes at once, and is still recorded and announced", async () => {
    process.env.DESTINATION_HOLD_HOURS = "0";
    resetEnvForTests();
    const t = await team();
    await signIn(t.finance);
    expect((await pixOutAction(idle, form({ value: "25", pixKey: "loja2@example.com" }))).status).toBe("success");
    const [row] = await destinations(t.merchant.id);
    expect(row).toMatchObject({ status: "held", holdUntil: null, lastUsedAt: expect.any(Date) });
    const owner = (await mailsOf(t.merchant.id)).filter((m) => m.toAddress === t.owner.email).map((m) => m.subject);
    expect(owner.sort()).toEqual(
      [expect.stringMatching(/^Novo destino de saque/), expect.stringMatching(/^Saque solicitado/)].sort(),
    );
  });
});

describe("releasing a held destination", () => {
  it("an owner confirms it in the dashboard with a fresh second factor; the waiting withdrawal is released and the next goes at once", async () => {
    const t = await team();
    await signIn(t.finance);
    await pixOutAction(idle, form({ value: "150", pixKey: "maria@example.com" }));
    const [row] = await destinations(t.merchant.id);

    // Only owners confirm: the admin and the finance user are refused.
    for (const who of [t.admin, t.finance]) {
      await signIn(who);
      expect(await confirmDestinationAction(idle, form({ id: row.id }))).toMatchObject({
        status: "error",
        error: "security.notAllowed",
      });
    }
    // An owner without a fresh second factor is asked for a code first.
    await signIn(t.owner, { stepUpFresh: false });
    expect(await confirmDestinationAction(idle, form({ id: row.id }))).toMatchObject({
      status: "error",
      error: "security.stepUpNeeded",
    });
    expect((await destinations(t.merchant.id))[0].status).toBe("held");

    expect((await withdrawalsOf(t.merchant.id))[0].waitingDestinationId).toBe(row.id);

    await signIn(t.owner);
    expect(await confirmDestinationAction(idle, form({ id: row.id }))).toMatchObject({
      status: "success",
      message: "destinations.confirmed",
    });
    expect((await destinations(t.merchant.id))[0]).toMatchObject({
      status: "confirmed",
      confirmedBy: t.owner.id,
      confirmedAt: expect.any(Date),
    });
    // Released by the confirmation itself: its payout exists, nothing waits.
    const [released] = await withdrawalsOf(t.merchant.id);
    expect(released).toMatchObject({ status: "PENDING", waitingDestinationId: null, waitingReason: null });
    expect(await payoutsOf(released.id)).toHaveLength(1);

    await signIn(t.finance);
    expect(await pixOutAction(idle, form({ value: "150", pixKey: "maria@example.com" }))).toMatchObject({
      status: "success",
      message: "withdrawals.requested",
    });
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 30_000);
    expect((await destinations(t.merchant.id))[0].lastUsedAt).toBeInstanceOf(Date);
    expect((await auditOf(t.merchant.id)).map((a) => a.action)).toEqual(
      expect.arrayContaining(["destination.confirmed", "withdrawal.requested", "withdrawal.released"]),
    );
  });

  it("the mailed link confirms it once; opening the page spends nothing; another kind of link is neither spent nor accepted", async () => {
    const t = await team();
    await signIn(t.finance);
    await onchainWithdrawAction(idle, form({ toAddress: ADDRESS, value: "50", network: "polygon", token: "USDT" }));
    const owner = (await mailsOf(t.merchant.id)).find((m) => m.toAddress === t.owner.email)!;
    const token = TOKEN_IN_MAIL.exec(owner.body!)![1];

    // The page's read, twice: still live.
    expect(await destinationOfLink(token)).toMatchObject({
      company: t.merchant.companyName,
      destination: { value: ADDRESS.toLowerCase(), status: "held" },
    });
    expect(await destinationOfLink(token)).not.toBeNull();

    // A factor-change link given to the destination route: refused, and still usable for its own purpose.
    const factorToken = await createSecurityLink(t.merchant.id, "factor_change", t.finance.id);
    expect(await confirmDestinationByLink(factorToken, "198.51.100.1")).toBeNull();
    const [factorLink] = await db()
      .select()
      .from(securityLinks)
      .where(and(eq(securityLinks.merchantId, t.merchant.id), eq(securityLinks.kind, "factor_change")));
    expect(factorLink.usedAt).toBeNull();

    // Two clicks at once: one confirms.
    const both = await Promise.all([
      confirmDestinationByLink(token, "198.51.100.1"),
      confirmDestinationByLink(token, "198.51.100.1"),
    ]);
    expect(both.filter((r) => r !== null)).toHaveLength(1);
    expect(await confirmDestinationByLink(token, "198.51.100.1")).toBeNull();
    expect(await destinationOfLink(token)).toBeNull();
    expect((await destinations(t.merchant.id))[0]).toMatchObject({ status: "confirmed", confirmedBy: null });
    const confirmed = (await auditOf(t.merchant.id)).filter((a) => a.action === "destination.confirmed");
    expect(confirmed).toMatchObject([
      { actor: "link mailed to the owners", ip: "198.51.100.1", details: { value: ADDRESS.toLowerCase() } },
    ]);

    await signIn(t.finance);
    expect(
      await onchainWithdrawAction(idle, form({ toAddress: ADDRESS, value: "50", network: "polygon", token: "USDT" })),
    ).toMatchObject({ status: "success" });
  });

  it("once the hold is over the dashboard may withdraw to it, without anyone confirming", async () => {
    const t = await team();
    await signIn(t.finance);
    await pixOutAction(idle, form({ value: "20", pixKey: "+5511998765432" }));
    await db()
      .update(payoutDestinations)
      .set({ holdUntil: sql`now() - interval '1 second'` })
      .where(eq(payoutDestinations.merchantId, t.merchant.id));
    expect(await pixOutAction(idle, form({ value: "20", pixKey: "+5511998765432" }))).toMatchObject({
      status: "success",
    });
    expect((await destinations(t.merchant.id))[0]).toMatchObject({ status: "held", lastUsedAt: expect.any(Date) });
  });
});

describe("the address book", () => {
  it("adding a destination holds it and mails the owners, like its first use; only owners confirm it; a duplicate is refused", async () => {
    const t = await team();
    await signIn(t.finance);
    const added = await addDestinationAction(
      idle,
      form({ kind: "chain_address", value: OTHER_ADDRESS, label: "Fornecedor" }),
    );
    expect(added).toMatchObject({ status: "success", message: "destinations.added" });
    expect(
      await addDestinationAction(idle, form({ kind: "chain_address", value: OTHER_ADDRESS.toLowerCase() })),
    ).toMatchObject({
      status: "error",
      error: "Este destino já está na lista.",
    });
    // The form's own check: a PIX key's check digits.
    const bad = await addDestinationAction(idle, form({ kind: "pix_key", value: "529.982.247-26" }));
    expect(bad.status === "error" && bad.fieldErrors?.value).toEqual([
      "Chave PIX ou endereço da carteira: parece um CPF, mas os dígitos verificadores não conferem.",
    ]);
    expect(await destinations(t.merchant.id)).toMatchObject([
      { kind: "chain_address", value: OTHER_ADDRESS.toLowerCase(), label: "Fornecedor", status: "held" },
    ]);
    const owner = (await mailsOf(t.merchant.id)).find((m) => m.toAddress === t.owner.email)!;
    expect(owner.body).toContain(`Endereço da carteira ${OTHER_ADDRESS.toLowerCase()} (Fornecedor)`);
    expect(owner.body).toMatch(TOKEN_IN_MAIL);
    expect((await auditOf(t.merchant.id)).map((a) => a.action)).toContain("destination.added");

    // Held: a withdrawal to it waits until an owner confirms it.
    expect(
      await onchainWithdrawAction(idle, form({ toAddress: OTHER_ADDRESS, value: "10", network: "bsc", token: "USDT" })),
    ).toMatchObject({ status: "success", message: "withdrawals.requestedWaiting" });
  });

  it("a viewer or developer may not add one", async () => {
    const t = await team();
    for (const role of ["viewer", "developer"] as const) {
      await signIn(await seedUser(t.merchant.id, role));
      expect(await addDestinationAction(idle, form({ kind: "pix_key", value: "maria@example.com" }))).toMatchObject({
        status: "error",
        error: "security.notAllowed",
      });
    }
    expect(await destinations(t.merchant.id)).toEqual([]);
  });
});

describe("concurrency", () => {
  it("two dashboard withdrawals to one new key at once: both wait, one held row, one announcement", async () => {
    const t = await team();
    const merchant = await merchantRow(t.merchant.id);
    const origin = {
      channel: "dashboard" as const,
      actor: { merchantId: t.merchant.id, userId: t.finance.id, email: t.finance.email, ip: "203.0.113.50" },
      locale: "pt-BR" as const,
    };
    const results = await Promise.allSettled([
      createPixOut(merchant, { value: 1000, pixKey: "corrida@example.com" }, origin),
      createPixOut(merchant, { value: 1000, pixKey: "corrida@example.com" }, origin),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const [row] = await destinations(t.merchant.id);
    expect(await destinations(t.merchant.id)).toHaveLength(1);
    expect((await withdrawalsOf(t.merchant.id)).map((w) => w.waitingDestinationId)).toEqual([row.id, row.id]);
    const links = await db().select().from(securityLinks).where(eq(securityLinks.merchantId, t.merchant.id));
    expect(links).toHaveLength(1);
    const owner = (await mailsOf(t.merchant.id)).filter((m) => m.toAddress === t.owner.email);
    expect(owner.filter((m) => m.subject.startsWith("Novo destino"))).toHaveLength(1);
    expect(owner.filter((m) => m.subject.startsWith("Saque solicitado"))).toHaveLength(2);
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 2_000);
  });

  it("a withdrawal racing the address book's add of the same key: one row, and the withdrawal waits", async () => {
    const t = await team();
    const merchant = await merchantRow(t.merchant.id);
    const actor = { merchantId: t.merchant.id, userId: t.finance.id, email: t.finance.email, ip: "203.0.113.50" };
    const [added, withdrawn] = await Promise.allSettled([
      addDestination(actor, "pt-BR", merchant, { kind: "pix_key", value: "par@example.com" }),
      createPixOut(
        merchant,
        { value: 1000, pixKey: "par@example.com" },
        { channel: "dashboard", actor, locale: "pt-BR" },
      ),
    ]);
    expect(withdrawn.status).toBe("fulfilled");
    expect(await destinations(t.merchant.id)).toHaveLength(1);
    // Whichever came first recorded it; the other either found it (withdrawal) or was told it exists (add).
    if (added.status === "rejected") expect(String(added.reason)).toContain("destinations.exists");
    const [row] = await destinations(t.merchant.id);
    expect((await withdrawalsOf(t.merchant.id)).map((w) => w.waitingDestinationId)).toEqual([row.id]);
  });
});

describe("API withdrawals", () => {
  it("allow-list off (the default): any valid key or address goes, as the spec says; each is recorded (not held) or touched", async () => {
    const t = await team();
    expect((await merchantRow(t.merchant.id)).apiDestinationAllowlist).toBe(false);
    const first = await api("POST", PIX_OUT, {
      apiKey: t.apiKey,
      body: { value: 500, pixKey: "vendedor1@example.com" },
    });
    expect(first.status).toBe(201);
    expect(
      (await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 500, pixKey: "vendedor1@example.com" } })).status,
    ).toBe(201);
    expect(
      (await api("POST", WITHDRAW, { apiKey: t.apiKey, body: { toAddress: ADDRESS, value: 10, network: "polygon" } }))
        .status,
    ).toBe(200);
    const rows = await destinations(t.merchant.id);
    expect(rows.map((r) => [r.kind, r.value, r.status, r.holdUntil, r.createdBy]).sort()).toEqual([
      ["chain_address", ADDRESS.toLowerCase(), "held", null, null],
      ["pix_key", "vendedor1@example.com", "held", null, null],
    ]);
    expect(rows.every((r) => r.lastUsedAt !== null)).toBe(true);

    // A key the dashboard holds still goes over the API while the allow-list is off.
    await signIn(t.finance);
    await pixOutAction(idle, form({ value: "5", pixKey: "retida@example.com" }));
    expect(
      (await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 500, pixKey: "retida@example.com" } })).status,
    ).toBe(201);
  });

  it("allow-list on: an unconfirmed destination is each endpoint's own 400 naming it; confirmed ones and the registered key go", async () => {
    const t = await team();
    await signIn(t.owner);
    expect(await setAllowlistAction(idle, form({ enabled: "on" }))).toMatchObject({ status: "success" });

    const unknown = await api("POST", PIX_OUT, {
      apiKey: t.apiKey,
      body: { value: 500, pixKey: "Desconhecida@Example.com" },
    });
    expect(unknown.status).toBe(400);
    expect(Object.keys(specOf(unknown.body) as object).sort()).toEqual(["error", "message"]);
    expect(unknown.body.message).toBe(
      "pixKey desconhecida@example.com is not a confirmed withdrawal destination: the API allow-list is on, so API withdrawals go only to " +
        "destinations an owner has confirmed in the dashboard (Withdrawals → Destinations) and to the registered payout key",
    );
    expect(unknown.body.error).toEqual({ details: unknown.body.message });

    const chain = await api("POST", WITHDRAW, {
      apiKey: t.apiKey,
      body: { toAddress: ADDRESS, value: 10, network: "polygon" },
    });
    expect(chain.status).toBe(400);
    expect(Object.keys(specOf(chain.body) as object).sort()).toEqual(["error", "message"]);
    expect(chain.body.message).toMatch(
      new RegExp(`^toAddress ${ADDRESS.toLowerCase()} is not a confirmed withdrawal destination`),
    );
    expect(chain.body.error).toBe(chain.body.message);
    // Refused over the API: nothing recorded, nothing debited.
    expect(await destinations(t.merchant.id)).toEqual([]);
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000);

    // Held (added in the dashboard, not confirmed): still refused.
    await signIn(t.finance);
    await addDestinationAction(idle, form({ kind: "chain_address", value: ADDRESS }));
    expect(
      (await api("POST", WITHDRAW, { apiKey: t.apiKey, body: { toAddress: ADDRESS, value: 10, network: "polygon" } }))
        .status,
    ).toBe(400);
    // Confirmed by an owner: goes, whatever the address's case.
    await signIn(t.owner);
    const [row] = await destinations(t.merchant.id);
    await confirmDestinationAction(idle, form({ id: row.id }));
    expect(
      (
        await api("POST", WITHDRAW, {
          apiKey: t.apiKey,
          body: { toAddress: ADDRESS.toLowerCase(), value: 10, network: "polygon" },
        })
      ).status,
    ).toBe(200);
    // The registered payout key counts as a destination.
    expect((await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 500 } })).status).toBe(201);

    // Off again: any valid key goes.
    expect(await setAllowlistAction(idle, form({ enabled: "off" }))).toMatchObject({ status: "success" });
    expect(
      (await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 500, pixKey: "desconhecida@example.com" } }))
        .status,
    ).toBe(201);
  });

  it("switching the allow-list: owners only, with a fresh second factor; audited and mailed to the owners", async () => {
    const t = await team();
    for (const who of [t.admin, t.finance]) {
      await signIn(who);
      expect(await setAllowlistAction(idle, form({ enabled: "on" }))).toMatchObject({
        status: "error",
        error: "security.notAllowed",
      });
    }
    await signIn(t.owner, { stepUpFresh: false });
    expect(await setAllowlistAction(idle, form({ enabled: "on" }))).toMatchObject({
      status: "error",
      error: "security.stepUpNeeded",
    });
    expect((await merchantRow(t.merchant.id)).apiDestinationAllowlist).toBe(false);

    await signIn(t.owner);
    await setAllowlistAction(idle, form({ enabled: "on" }));
    expect((await merchantRow(t.merchant.id)).apiDestinationAllowlist).toBe(true);
    const switched = (await auditOf(t.merchant.id)).filter((a) => a.action === "destination.allowlistChanged");
    expect(switched).toMatchObject([{ actor: t.owner.email, details: { enabled: true }, ip: "203.0.113.50" }]);
    const mail = (await mailsOf(t.merchant.id)).find((m) => m.toAddress === t.owner.email);
    expect(mail?.body).toContain("A lista de permissões da API foi ativada");
  });

  it("the allow-list is read from the merchant's row under its lock, not from the API key cache", async () => {
    const t = await team();
    await db().update(merchants).set({ apiDestinationAllowlist: true }).where(eq(merchants.id, t.merchant.id));
    // The key cache still says off; the service reads the locked row.
    const res = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 500, pixKey: "cache@example.com" } });
    expect(res.status).toBe(400);
  });
});

describe("mail about money leaving", () => {
  it("an API withdrawal and an API refund are mailed to the owners and admins: amount, destination, the key, the address, the time", async () => {
    const t = await team();
    const out = await api("POST", PIX_OUT, {
      apiKey: t.apiKey,
      body: { value: 12_345, pixKey: "maria@example.com" },
      headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.7" },
    });
    expect(out.status).toBe(201);
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey: t.apiKey, body: { value: 80 } });
    const orderId: string = created.body.pixOrder._id;
    const publicId: string = created.body.pixOrder.paymentLinkId;
    expect((await api("POST", `/api/v1/sandbox/orders/${orderId}/pay`, { apiKey: t.apiKey })).status).toBe(200);
    const refunded = await api("POST", `/api/v1/order/${orderId}/refund`, {
      apiKey: t.apiKey,
      body: { value: 30 },
      headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.7" },
    });
    expect(refunded.status).toBe(201);

    const mails = await mailsOf(t.merchant.id);
    for (const u of [t.owner, t.admin]) {
      const withdrawal = mails.find((m) => m.toAddress === u.email && m.subject.startsWith("Saque solicitado"))!;
      expect(withdrawal.body).toMatch(
        /Foi solicitado um saque de R\$\s123,45 do saldo de .*, para Chave PIX maria@example\.com\./,
      );
      // The key as the Developers page shows it: its name and its first and last characters.
      expect(withdrawal.body).toMatch(/Por: Chave de API “test” \(sk_test_\w{4}…\w*\)/);
      expect(withdrawal.body).toContain("De: 198.51.100.7");
      expect(withdrawal.body).toMatch(/Em: \d{2}\/\d{2}\/\d{4}/);
      const refund = mails.find((m) => m.toAddress === u.email && m.subject.startsWith("Devolução solicitada"))!;
      expect(refund.body).toMatch(new RegExp(`devolução de R\\$\\s30,00 .* ao pagador do pedido ${publicId}\\.`));
    }
    // Finance is neither owner nor admin, and did not act: not mailed.
    expect(mails.filter((m) => m.toAddress === t.finance.email)).toEqual([]);
  });

  it("a dashboard withdrawal and refund are mailed to the owners, the admins and the user who asked, in their language", async () => {
    const t = await team();
    await signIn(t.finance);
    session.lang = "en";
    expect(
      await onchainWithdrawAction(idle, form({ toAddress: ADDRESS, value: "50", network: "polygon", token: "USDT" })),
    ).toMatchObject({ status: "success", message: "withdrawals.requestedWaiting" });
    await signIn(t.owner);
    const [row] = await destinations(t.merchant.id);
    await confirmDestinationAction(idle, form({ id: row.id }));
    await signIn(t.finance);
    expect(
      await onchainWithdrawAction(idle, form({ toAddress: ADDRESS, value: "50", network: "polygon", token: "USDT" })),
    ).toMatchObject({ status: "success" });
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey: t.apiKey, body: { value: 40 } });
    const orderId: string = created.body.pixOrder._id;
    await api("POST", `/api/v1/sandbox/orders/${orderId}/pay`, { apiKey: t.apiKey });
    expect(await refundOrderAction(idle, form({ id: orderId, value: "40" }))).toMatchObject({ status: "success" });

    const mails = await mailsOf(t.merchant.id);
    for (const u of [t.owner, t.admin, t.finance]) {
      const w = mails.find((m) => m.toAddress === u.email && m.subject.startsWith("Withdrawal requested"))!;
      expect(w.body).toMatch(
        new RegExp(`A withdrawal of R\\$50\\.00 was requested .*, to ${ADDRESS} \\(Polygon, [\\d.]+ USDT\\)\\.`),
      );
      expect(w.body).toContain(`By: ${t.finance.email}`);
      expect(w.body).toContain("From: 203.0.113.50");
      expect(
        mails.some(
          (m) => m.toAddress === u.email && m.subject.startsWith("Refund requested") && m.body!.includes("R$40.00"),
        ),
      ).toBe(true);
    }
  });

  it("an API withdrawal answers without waiting for a stuck SMTP server; the mail is recorded as failed once it gives up", async () => {
    // A server that accepts connections and never greets: nodemailer waits up to its greeting timeout.
    const sockets: Socket[] = [];
    let hangUp = false;
    const stuck: Server = createServer((s) => (hangUp ? s.destroy() : sockets.push(s)));
    await new Promise<void>((resolve) => stuck.listen(0, "127.0.0.1", resolve));
    process.env.SMTP_URL = `smtp://127.0.0.1:${(stuck.address() as AddressInfo).port}`;
    resetEnvForTests();
    try {
      const t = await team();
      const started = performance.now();
      const res = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 100, pixKey: "rapida@example.com" } });
      const ms = performance.now() - started;
      expect(res.status).toBe(201);
      // Well short of the mailer's 10 s greeting timeout, which a send in the request would have waited out.
      expect(ms).toBeLessThan(5_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(sockets.length).toBeGreaterThan(0); // the mail is being sent meanwhile
      // The server goes away: the mails fail now rather than at the timeouts.
      hangUp = true;
      for (const s of sockets) s.destroy();
      await backgroundMailSettled();
      const rows = await db().select().from(mailOutbox).where(eq(mailOutbox.merchantId, t.merchant.id));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.status !== "outbox")).toBe(true);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => stuck.close(() => resolve()));
    }
  });
});
