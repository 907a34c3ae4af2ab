import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { and, asc, eq, sql } from "drizzle-orm";
import { db } from "@/db";
import {
  apiKeys,
  auditEvents,
  chainTxs,
  cryptoPixPayments,
  events,
  ledgerEntries,
  mailOutbox,
  merchants,
  payoutDestinations,
  pixPayouts,
  users,
  withdrawals,
  type Merchant,
} from "@/db/schema";
import type { SignedIn } from "@/lib/identity/dashboard/session";
import { decideRefund, sendDecidedRefunds } from "@/lib/crypto-pix/refunds";
import { createCryptoPixPayment } from "@/lib/crypto-pix/service";
import { idle } from "@/lib/forms/action-state";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { hashPassword } from "@/lib/identity/password-hash";
import { backgroundMailSettled } from "@/lib/mail/background";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { releaseWaitingWithdrawals } from "@/lib/withdrawals/release";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";
import { form } from "./support/form";

// Money to a destination nobody confirmed (issue: one destination rule): a dashboard withdrawal to a
// new PIX key or address is accepted and waits with its money reserved, shows as waiting on the API,
// leaves when an owner confirms the destination or the hold ends, and can be cancelled; its audit row
// and the owners' mail are written in the withdrawal's own transaction. Against the real server
// actions, API handlers and PostgreSQL; only the dashboard's session is stood in for.

const session = vi.hoisted(() => ({ current: undefined as unknown }));
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ [CLIENT_ADDRESS_HEADER]: "203.0.113.50" }),
  cookies: async () => ({ get: () => undefined }),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/identity/dashboard/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/identity/dashboard/session")>()),
  requireMerchant: async () => session.current,
}));

const { pixOutAction, onchainWithdrawAction, cancelWithdrawalAction, peekDestinationAction } =
  await import("@/lib/dashboard/actions/withdrawals");
const { confirmDestinationAction, setAllowlistAction } = await import("@/lib/dashboard/actions/destinations");

const PIX_OUT = "/api/v1/order/pix-out";
const ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

afterEach(async () => {
  session.current = undefined;
  await backgroundMailSettled();
});

type Role = "owner" | "admin" | "finance";

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
  return { ...user, role };
}

async function team(balanceCentavos = 1_000_000) {
  const { merchant, apiKey } = await seedMerchant({ balanceCentavos });
  return {
    merchant,
    apiKey,
    owner: await seedUser(merchant.id, "owner"),
    admin: await seedUser(merchant.id, "admin"),
    finance: await seedUser(merchant.id, "finance"),
  };
}

const merchantRow = async (id: string): Promise<Merchant> =>
  (await db().select().from(merchants).where(eq(merchants.id, id)))[0];

async function signIn(user: { id: string; email: string; role: Role; merchantId: string }) {
  session.current = {
    merchant: await merchantRow(user.merchantId),
    userId: user.id,
    email: user.email,
    role: user.role,
    sessionId: randomUUID(),
    twoFactor: true,
    stepUpFresh: true,
    ip: "203.0.113.50",
  } as SignedIn;
}

const withdrawalsOf = (merchantId: string) =>
  db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchantId)).orderBy(asc(withdrawals.createdAt));
const destinationsOf = (merchantId: string) =>
  db().select().from(payoutDestinations).where(eq(payoutDestinations.merchantId, merchantId));
const auditOf = (merchantId: string) =>
  db().select().from(auditEvents).where(eq(auditEvents.merchantId, merchantId)).orderBy(asc(auditEvents.id));
async function mailsOf(merchantId: string) {
  await backgroundMailSettled();
  return db().select().from(mailOutbox).where(eq(mailOutbox.merchantId, merchantId));
}
const withdrawalEvents = (id: string) =>
  db().select().from(events).where(eq(events.subjectId, id)).orderBy(asc(events.seq));

describe("a dashboard withdrawal to a new destination is accepted and waits", () => {
  it("PIX: recorded and debited without a payout; GET /withdrawals/{id} and the list say why; the owner's confirmation sends it", async () => {
    const t = await team();
    await signIn(t.finance);
    const res = await pixOutAction(idle, form({ value: "150", pixKey: "nova@example.com" }));
    expect(res).toMatchObject({ status: "success", message: "withdrawals.requestedWaiting" });
    const id = res.status === "success" ? (res.data as { id: string }).id : "";

    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 15_000);
    expect(await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, id))).toEqual([]);
    const one = await api("GET", `/api/v1/withdrawals/${id}`, { apiKey: t.apiKey });
    expect(one.status).toBe(200);
    expect(one.body.withdrawal).toMatchObject({ id, status: "PENDING", type: "pix_out", amount: 15_000 });
    expect(one.body.withdrawal.waitingReason).toMatch(
      /^waiting for destination nova@example\.com: it is new, so it is sent once an owner confirms it or at \S+Z when its hold ends/,
    );
    const list = await api("GET", "/api/v1/withdrawals", { apiKey: t.apiKey });
    expect(list.body.withdrawals.map((w: { id: string }) => w.id)).toEqual([id]);
    expect(list.body.withdrawals[0].waitingReason).toBe(one.body.withdrawal.waitingReason);

    // The audit row names the destination and that it waits; owners and admins heard of it, with the amount.
    const [requested] = (await auditOf(t.merchant.id)).filter((a) => a.action === "withdrawal.requested");
    const [destination] = await destinationsOf(t.merchant.id);
    expect(requested).toMatchObject({
      target: id,
      actor: t.finance.email,
      details: { pixKey: "nova@example.com", newDestination: true, waitsFor: destination.id },
    });
    const mails = await mailsOf(t.merchant.id);
    for (const u of [t.owner, t.admin]) {
      const m = mails.find((x) => x.toAddress === u.email && x.subject.startsWith("Saque solicitado"))!;
      expect(m.body).toMatch(/saque de R\$\s150,00 .* para Chave PIX nova@example\.com\./);
      expect(m.body).toContain("O destino é novo: nada é enviado até");
    }

    await signIn(t.owner);
    expect(await confirmDestinationAction(idle, form({ id: destination.id }))).toMatchObject({ status: "success" });
    const after = await api("GET", `/api/v1/withdrawals/${id}`, { apiKey: t.apiKey });
    expect(after.body.withdrawal.status).not.toBe("FAILED");
    expect(after.body.withdrawal.waitingReason).toBeUndefined();
    expect(await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, id))).toHaveLength(1);
    // Sent once: a second release finds nothing to do.
    expect(await releaseWaitingWithdrawals(t.merchant.id)).toBe(0);
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 15_000);
  });

  it("on-chain: no chain transaction while it waits; the sweep sends it once the hold is over", async () => {
    const t = await team();
    await signIn(t.admin);
    const res = await onchainWithdrawAction(
      idle,
      form({ toAddress: ADDRESS, value: "50", network: "polygon", token: "USDT" }),
    );
    expect(res).toMatchObject({ status: "success", message: "withdrawals.requestedWaiting" });
    const [w] = await withdrawalsOf(t.merchant.id);
    expect(w).toMatchObject({ status: "PENDING", txHash: null });
    expect(await db().select().from(chainTxs).where(eq(chainTxs.ownerId, w.id))).toEqual([]);
    const one = await api("GET", `/api/v1/withdrawals/${w.id}`, { apiKey: t.apiKey });
    expect(one.body.withdrawal.transactionHash).toBeUndefined();
    expect(one.body.withdrawal.waitingReason).toMatch(/^waiting for destination 0x70997970/);

    // Still held: nothing leaves.
    expect(await releaseWaitingWithdrawals(t.merchant.id)).toBe(0);
    await db()
      .update(payoutDestinations)
      .set({ holdUntil: sql`now() - interval '1 second'` })
      .where(eq(payoutDestinations.merchantId, t.merchant.id));
    expect(await releaseWaitingWithdrawals(t.merchant.id)).toBe(1);
    const [sent] = await withdrawalsOf(t.merchant.id);
    expect(sent.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sent.waitingDestinationId).toBeNull();
    expect(await db().select().from(chainTxs).where(eq(chainTxs.ownerId, w.id))).toHaveLength(1);
    expect((await auditOf(t.merchant.id)).map((a) => a.action)).toContain("withdrawal.released");
  });

  it("the review step is told before the code that the destination is new, and until when it would wait", async () => {
    const t = await team();
    await signIn(t.finance);
    const fresh = await peekDestinationAction(idle, form({ kind: "pix_key", value: "outra@example.com" }));
    expect(fresh).toMatchObject({ status: "success", data: { state: "new", holdHours: 24 } });
    const registered = await peekDestinationAction(idle, form({ kind: "pix_key", value: "" }));
    expect(registered).toMatchObject({ status: "success", data: { state: "known" } });
    await pixOutAction(idle, form({ value: "1", pixKey: "outra@example.com" }));
    const held = await peekDestinationAction(idle, form({ kind: "pix_key", value: "outra@example.com" }));
    expect(held).toMatchObject({ status: "success", data: { state: "held", until: expect.any(String) } });
  });
});

describe("cancelling a waiting withdrawal", () => {
  it("FAILED, its debit credited back (the day's limit freed), the event for the webhook, the audit row; once only", async () => {
    const t = await team();
    await signIn(t.finance);
    await pixOutAction(idle, form({ value: "300", pixKey: "cancela@example.com" }));
    const [w] = await withdrawalsOf(t.merchant.id);
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 30_000);

    expect(await cancelWithdrawalAction(idle, form({ id: w.id }))).toMatchObject({
      status: "success",
      message: "withdrawals.cancelled",
    });
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000);
    const reversal = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.refId, w.id), eq(ledgerEntries.kind, "withdrawal_reversal")));
    expect(reversal).toMatchObject([{ amountCentavos: 30_000 }]);
    const one = await api("GET", `/api/v1/withdrawals/${w.id}`, { apiKey: t.apiKey });
    expect(one.body.withdrawal).toMatchObject({ status: "FAILED" });
    expect(one.body.withdrawal.failureReason).toMatch(/^cancelled by the merchant/);
    expect(one.body.withdrawal.waitingReason).toBeUndefined();
    const changes = await withdrawalEvents(w.id);
    expect(changes.map((e) => [e.type, (e.data as { status: string; previousStatus: string | null }).status])).toEqual([
      ["withdrawal.pix_out.status_changed", "PENDING"],
      ["withdrawal.pix_out.status_changed", "FAILED"],
    ]);
    expect((changes[1].data as { previousStatus: string }).previousStatus).toBe("PENDING");
    expect((await auditOf(t.merchant.id)).filter((a) => a.action === "withdrawal.cancelled")).toMatchObject([
      { target: w.id, actor: t.finance.email },
    ]);

    // Twice, or after an owner released it: refused; nothing credited again.
    expect(await cancelWithdrawalAction(idle, form({ id: w.id }))).toMatchObject({ status: "error" });
    await pixOutAction(idle, form({ value: "10", pixKey: "cancela@example.com" }));
    const [, second] = await withdrawalsOf(t.merchant.id);
    await signIn(t.owner);
    await confirmDestinationAction(idle, form({ id: (await destinationsOf(t.merchant.id))[0].id }));
    await signIn(t.finance);
    expect(await cancelWithdrawalAction(idle, form({ id: second.id }))).toMatchObject({ status: "error" });
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000 - 1_000);

    // Another merchant's withdrawal is not found.
    const other = await team();
    await signIn(other.finance);
    await pixOutAction(idle, form({ value: "5", pixKey: "alheia@example.com" }));
    const [theirs] = await withdrawalsOf(other.merchant.id);
    await signIn(t.finance);
    expect(await cancelWithdrawalAction(idle, form({ id: theirs.id }))).toMatchObject({ status: "error" });
    expect((await withdrawalsOf(other.merchant.id))[0].status).toBe("PENDING");
  });
});

describe("the API keeps today's answers", () => {
  it("allow-list on: an unconfirmed key is still the 400 refusal, nothing recorded or debited", async () => {
    const t = await team();
    await signIn(t.owner);
    await setAllowlistAction(idle, form({ enabled: "on" }));
    const res = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 500, pixKey: "api@example.com" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/is not a confirmed withdrawal destination/);
    expect(await withdrawalsOf(t.merchant.id)).toEqual([]);
    expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000);
  });
});

describe("a key minted in the dashboard", () => {
  it("pays no new destination for DESTINATION_HOLD_HOURS (a taken-over session cannot go round the hold through the API)", async () => {
    const t = await team();
    const [key] = await db().select().from(apiKeys).where(eq(apiKeys.merchantId, t.merchant.id));
    // The API allow-list is off; the merchant's own earlier integration paid this seller before.
    expect(
      (await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 100, pixKey: "vendedor@example.com" } })).status,
    ).toBe(201);
    // What the Developers page writes when a user creates the key.
    await db().insert(auditEvents).values({
      merchantId: t.merchant.id,
      userId: t.finance.id,
      actor: t.finance.email,
      action: "apiKey.created",
      target: key.id,
    });
    const fresh = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 100, pixKey: "ladrao@example.com" } });
    expect(fresh.status).toBe(400);
    expect(Object.keys(fresh.body).sort()).toEqual(["code", "error", "message"]);
    expect(fresh.body.message).toMatch(
      /^pixKey ladrao@example\.com is not a known withdrawal destination: this API key was created in the dashboard less than 24 h ago/,
    );
    const chain = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey: t.apiKey,
      body: { toAddress: ADDRESS, value: 10, network: "polygon" },
    });
    expect(chain.status).toBe(400);
    // A destination used before, and the registered key, still go.
    expect(
      (await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 100, pixKey: "vendedor@example.com" } })).status,
    ).toBe(201);
    expect((await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 100 } })).status).toBe(201);
    expect((await withdrawalsOf(t.merchant.id)).map((w) => w.pixKey)).not.toContain("ladrao@example.com");
  });
});

describe("the audit row and the mail commit with the withdrawal", () => {
  it("an audit row that cannot be written rolls the withdrawal back: no row, no debit, no mail", async () => {
    const t = await team();
    await db().execute(sql`
      create or replace function refuse_audit_for_test() returns trigger language plpgsql as $$
      begin
        if new.merchant_id = ${sql.raw(`'${t.merchant.id}'`)}::uuid then raise exception 'audit refused for this test'; end if;
        return new;
      end $$`);
    await db().execute(
      sql`create trigger refuse_audit_for_test before insert on audit_events for each row execute function refuse_audit_for_test()`,
    );
    try {
      const res = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 700, pixKey: "trail@example.com" } });
      expect(res.status).toBe(500);
      // Written in one transaction: without its audit row the withdrawal does not exist.
      expect(await withdrawalsOf(t.merchant.id)).toEqual([]);
      expect(await balanceMatchesLedger(t.merchant.id)).toBe(1_000_000);
      expect(await mailsOf(t.merchant.id)).toEqual([]);
    } finally {
      await db().execute(sql`drop trigger refuse_audit_for_test on audit_events`);
      await db().execute(sql`drop function refuse_audit_for_test()`);
    }
    // And when it can be written: one withdrawal, one audit row, one mail per owner and admin.
    const ok = await api("POST", PIX_OUT, { apiKey: t.apiKey, body: { value: 700, pixKey: "trail@example.com" } });
    expect(ok.status).toBe(201);
    expect((await auditOf(t.merchant.id)).filter((a) => a.action === "withdrawal.requested")).toMatchObject([
      { target: ok.body.id, details: { pixKey: "trail@example.com", valueCentavos: 700 } },
    ]);
  });

  it("a replayed Idempotency-Key writes neither a second audit row nor a second mail", async () => {
    const t = await team();
    const headers = { "Idempotency-Key": `k-${randomUUID()}` };
    const body = { value: 900, pixKey: "replay@example.com" };
    const first = await api("POST", PIX_OUT, { apiKey: t.apiKey, body, headers });
    const again = await api("POST", PIX_OUT, { apiKey: t.apiKey, body, headers });
    expect(first.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    expect((await auditOf(t.merchant.id)).filter((a) => a.action === "withdrawal.requested")).toHaveLength(1);
    const mails = (await mailsOf(t.merchant.id)).filter((m) => m.subject.startsWith("Saque solicitado"));
    expect(mails.map((m) => m.toAddress).sort()).toEqual([t.owner.email, t.admin.email].sort());
  });
});

describe("Crypto-PIX refunds to a pasted address", () => {
  const qrcode = encodeStaticBrCode({
    pixKey: "padaria@example.com",
    merchantName: "Padaria Pao Quente",
    merchantCity: "Sao Paulo",
    amountCentavos: 10_000,
    txid: "PEDIDO123",
  });

  it("from the dashboard the address is held and announced; a refund to it waits until an owner confirms it", async () => {
    const t = await team();
    await signIn(t.finance);
    // The dashboard's action (it redirects to the order's page) calls this with the signed-in user as origin.
    await createCryptoPixPayment(
      await merchantRow(t.merchant.id),
      { qrcode, network: "bsc", refundAddress: ADDRESS },
      {
        channel: "dashboard",
        actor: { merchantId: t.merchant.id, userId: t.finance.id, email: t.finance.email, ip: null },
        locale: "pt-BR",
      },
    );
    const [destination] = await destinationsOf(t.merchant.id);
    expect(destination).toMatchObject({ value: ADDRESS.toLowerCase(), status: "held" });
    expect(
      (await mailsOf(t.merchant.id)).some(
        (m) => m.toAddress === t.owner.email && m.subject.startsWith("Novo destino de saque"),
      ),
    ).toBe(true);

    const [payment] = await db()
      .select()
      .from(cryptoPixPayments)
      .where(eq(cryptoPixPayments.merchantId, t.merchant.id));
    await db().update(cryptoPixPayments).set({ receivedAmount: "5" }).where(eq(cryptoPixPayments.id, payment.id));
    await db().transaction(async (tx) => {
      const [p] = await tx.select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, payment.id));
      await decideRefund(tx, p, "expired partly paid");
    });
    expect(await sendDecidedRefunds(payment.id)).toEqual([]);
    expect(await db().select().from(chainTxs).where(eq(chainTxs.ownerId, payment.id))).toEqual([]);

    await signIn(t.owner);
    await confirmDestinationAction(idle, form({ id: destination.id }));
    const sent = await sendDecidedRefunds(payment.id);
    expect(sent).toHaveLength(1);
    const [chainTx] = await db().select().from(chainTxs).where(eq(chainTxs.ownerId, payment.id));
    expect(chainTx.toAddress?.toLowerCase()).toBe(ADDRESS.toLowerCase());
  });

  it("over the API with the allow-list on, an unconfirmed refundAddress is refused and nothing is created", async () => {
    const t = await team();
    await signIn(t.owner);
    await setAllowlistAction(idle, form({ enabled: "on" }));
    const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
      apiKey: t.apiKey,
      body: { qrcode, network: "bsc", refundAddress: ADDRESS },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^refundAddress 0x70997970c51812dc3a010c7d01b50e0d17dc79c8 is not a confirmed/);
    expect(await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.merchantId, t.merchant.id))).toEqual(
      [],
    );
  });
});
