import { randomUUID } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/db";
import { auditEvents, events, ledgerEntries, medInfractions, merchants, orders, users } from "@/db/schema";
import { computeSolvency } from "@/lib/treasury/solvency";
import { confirmNotifiedPix } from "@/lib/pix-collection/confirm";
import { balanceMatchesLedger } from "./support/ledger";
import type { SignedIn } from "@/lib/identity/dashboard/session";
import { resetEnvForTests } from "@/lib/env";
import { idle } from "@/lib/forms/action-state";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { merchantInfractions, syncInfractions } from "@/lib/med/infractions";
import { efiPayout } from "@/lib/providers/payout/efi";
import { registerPixWebhooks } from "@/lib/providers/pix/api-pix";
import { startWorker, stopWorker } from "@/lib/worker";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startHttpsReceiver, type HttpsReceiver } from "./fixtures/pix-psp/receiver";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api } from "./helpers";
import { liveMerchant } from "./support/merchants";
import { waitFor } from "./support/wait";
import { form } from "./support/form";

// MED infractions (docs/providers.md "MED infractions", docs/dashboard.md "MED disputes") against the
// Efí test server, which takes a defence once, while the infraction is ABERTA and before its deadline.
// The dashboard's server action is driven as a signed-in user would; only the session is stood in for.

const session = vi.hoisted(() => ({ current: undefined as unknown, lang: undefined as string | undefined }));
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ [CLIENT_ADDRESS_HEADER]: "203.0.113.60" }),
  cookies: async () => ({
    get: (name: string) => (name === "lang" && session.lang ? { value: session.lang } : undefined),
  }),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/identity/dashboard/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/identity/dashboard/session")>()),
  requireMerchant: async () => session.current,
}));

const { defendInfractionAction } = await import("@/lib/dashboard/actions/disputes");

const RECEIVER_KEY = "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a";
const PAYOUT_KEY = "infracoes@pixcrypto.example";
const WEBHOOK_TOKEN = "med-infractions-webhook-token-0123456789";

let psp: PixPsp;
let receiver: HttpsReceiver;
const saved = { ...process.env };

type Role = "owner" | "admin" | "finance" | "developer" | "viewer";

async function seedUser(merchantId: string, role: Role) {
  const [user] = await db()
    .insert(users)
    .values({ merchantId, email: `${role}-${randomUUID().slice(0, 8)}@loja.com.br`, passwordHash: "x", role })
    .returning();
  return user;
}

async function signIn(user: { id: string; email: string; role: Role; merchantId: string }) {
  const [merchant] = await db().select().from(merchants).where(eq(merchants.id, user.merchantId));
  session.current = {
    merchant,
    userId: user.id,
    email: user.email,
    role: user.role,
    sessionId: randomUUID(),
    twoFactor: true,
    stepUpFresh: false,
    factorEnrolledHere: false,
    factorHeldUntil: null,
    ip: "203.0.113.60",
  } satisfies SignedIn;
}

/** A live merchant (its live API key) with an owner, an admin and a finance user. */
async function team() {
  const m = await liveMerchant();
  const [owner, admin, finance] = [
    await seedUser(m.merchant.id, "owner"),
    await seedUser(m.merchant.id, "admin"),
    await seedUser(m.merchant.id, "finance"),
  ];
  return { ...m, owner, admin, finance };
}

async function paidPixOrder(apiKey: string, value: number) {
  const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [order] = await db().select().from(orders).where(eq(orders.id, res.body.pixOrder._id));
  const pix = await psp.pay(order.txid!);
  await waitFor(
    "the order COMPLETED",
    async () => (await db().select().from(orders).where(eq(orders.id, order.id)))[0],
    (o) => o.status === "COMPLETED",
  );
  return { order, pix };
}

const rowOf = async (infractionId: string) =>
  (await db().select().from(medInfractions).where(eq(medInfractions.infractionId, infractionId)))[0];
const defenceAudits = (merchantId: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.merchantId, merchantId), eq(auditEvents.action, "infraction.defended")));
const errorOf = (state: Awaited<ReturnType<typeof defendInfractionAction>>) =>
  state.status === "error" ? state.error : `(${state.status})`;

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, quiet: true });
  receiver = await startHttpsReceiver(psp, { mtls: "skip" });
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: PAYOUT_KEY, webhookToken: WEBHOOK_TOKEN }),
  );
  resetEnvForTests();
  await registerPixWebhooks(`${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`);
  await startWorker();
});

afterEach(() => {
  expect(psp.violations).toEqual([]);
  session.current = undefined;
  session.lang = undefined;
});

afterAll(async () => {
  await stopWorker();
  await receiver.close();
  await psp.close();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

describe("MED infractions", () => {
  it("are synced to the merchant whose order received the PIX: another merchant neither sees nor defends one, nor does a finance user", async () => {
    const a = await team();
    const b = await team();
    const { order, pix } = await paidPixOrder(a.apiKey, 35);
    const infraction = psp.openInfraction(pix.endToEndId, { razao: "Cliente diz que não reconhece a compra" });

    await syncInfractions();
    await syncInfractions();
    const row = await rowOf(infraction.idInfracao);
    expect(row).toMatchObject({
      provider: "efi",
      merchantId: a.merchant.id,
      orderId: order.id,
      endToEndId: pix.endToEndId,
      valueCentavos: 3500,
      status: "ABERTA",
      open: true,
      reason: "Cliente diz que não reconhece a compra",
      defenceState: "none",
    });
    expect(row.deadline.toISOString()).toBe(infraction.dadosAnalise.prazoFinalizacao);
    expect((await merchantInfractions(a.merchant.id)).map((r) => r.infractionId)).toEqual([infraction.idInfracao]);
    expect(await merchantInfractions(b.merchant.id)).toEqual([]);

    await signIn(b.owner);
    const foreign = await defendInfractionAction(idle, form({ id: row.id, defence: "Fui eu que vendi" }));
    expect(errorOf(foreign)).toBe("Infração MED não encontrada para a sua conta.");
    await signIn(a.finance);
    const finance = await defendInfractionAction(idle, form({ id: row.id, defence: "Venda legítima" }));
    expect(finance.status).toBe("error");
    expect(psp.defences).toHaveLength(0);
    expect((await rowOf(infraction.idInfracao)).defenceState).toBe("none");
    expect(await defenceAudits(a.merchant.id)).toHaveLength(0);
  });

  it("a defence is sent once, as Efí's rejeitado with the text; a double submit sends one; audited; a third is refused", async () => {
    const a = await team();
    const { pix } = await paidPixOrder(a.apiKey, 50);
    const infraction = psp.openInfraction(pix.endToEndId);
    await syncInfractions();
    const row = await rowOf(infraction.idInfracao);
    const text = "Produto entregue em 12/11 com rastreio BR123; o comprador confirmou o recebimento por e-mail.";

    await signIn(a.admin);
    const [first, second] = await Promise.all([
      defendInfractionAction(idle, form({ id: row.id, defence: text })),
      defendInfractionAction(idle, form({ id: row.id, defence: text })),
    ]);
    const outcomes = [first, second].map((s) => (s.status === "success" ? s.message : errorOf(s))).sort();
    expect(outcomes).toEqual(
      ["Uma defesa desta infração já foi enviada: só é possível enviar uma.", "disputes.sent"].sort(),
    );
    expect(psp.defences).toEqual([{ idInfracao: infraction.idInfracao, analise: "rejeitado", justificativa: text }]);
    expect(psp.infractions.get(infraction.idInfracao)!.status).toBe("EM_DEFESA");
    expect(await rowOf(infraction.idInfracao)).toMatchObject({
      defenceState: "sent",
      defence: text,
      defendedBy: a.admin.id,
      open: false,
    });

    const audits = await defenceAudits(a.merchant.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actor: a.admin.email, target: row.id, ip: "203.0.113.60" });
    expect(audits[0].details).toMatchObject({ infractionId: infraction.idInfracao, endToEndId: pix.endToEndId });

    await signIn(a.owner);
    session.lang = "en";
    const third = await defendInfractionAction(idle, form({ id: row.id, defence: "Outra defesa" }));
    expect(errorOf(third)).toBe("A defence of this infraction was already sent: only one can be sent.");
    await syncInfractions();
    expect(await rowOf(infraction.idInfracao)).toMatchObject({ status: "EM_DEFESA", defenceState: "sent" });
    expect(psp.defences).toHaveLength(1);
  });

  it("a late defence is refused with a clear message, here or by the PSP; the PSP's words are shown and kept", async () => {
    const a = await team();
    const late = psp.openInfraction((await paidPixOrder(a.apiKey, 20)).pix.endToEndId, {
      prazo: new Date(Date.now() - 60_000),
    });
    const closing = psp.openInfraction((await paidPixOrder(a.apiKey, 25)).pix.endToEndId);
    await syncInfractions();
    await signIn(a.owner);

    const refused = await defendInfractionAction(
      idle,
      form({ id: (await rowOf(late.idInfracao)).id, defence: "Venda legítima" }),
    );
    expect(errorOf(refused)).toBe("O prazo para defender esta infração terminou: o PSP decide sem a defesa.");
    expect(await rowOf(late.idInfracao)).toMatchObject({ defenceState: "none", defence: null });

    // The PSP's deadline passes after our last sync: Efí refuses it, and the merchant reads why.
    psp.infractions.get(closing.idInfracao)!.dadosAnalise.prazoFinalizacao = new Date(Date.now() - 1000).toISOString();
    const byPsp = await defendInfractionAction(
      idle,
      form({ id: (await rowOf(closing.idInfracao)).id, defence: "Venda legítima" }),
    );
    expect(errorOf(byPsp)).toMatch(
      /^O PSP recusou a defesa: O prazo para defesa desta infração terminou em .*prazo_expirado/,
    );
    expect(await rowOf(closing.idInfracao)).toMatchObject({ defenceState: "refused" });
    expect((await rowOf(closing.idInfracao)).defenceRefusal).toMatch(/prazo_expirado/);
    expect(psp.defences.filter((d) => d.idInfracao === late.idInfracao || d.idInfracao === closing.idInfracao)).toEqual(
      [],
    );

    // A defence that is too long never leaves.
    const open = psp.openInfraction((await paidPixOrder(a.apiKey, 30)).pix.endToEndId);
    await syncInfractions();
    const long = await defendInfractionAction(
      idle,
      form({ id: (await rowOf(open.idInfracao)).id, defence: "x".repeat(1001) }),
    );
    expect(long.status === "error" ? long.fieldErrors?.defence : undefined).toEqual([
      "Escreva sua defesa: entre 1 e 1000 caracteres.",
    ]);
    expect(psp.defences.filter((d) => d.idInfracao === open.idInfracao)).toEqual([]);
  });

  it("the Efí test server refuses a second defence, a late one and an unknown id, as the adapter reads them", async () => {
    const a = await team();
    const infraction = psp.openInfraction((await paidPixOrder(a.apiKey, 15)).pix.endToEndId);
    expect(await efiPayout.defendInfraction!(infraction.idInfracao, "Venda legítima")).toEqual({ status: "ACCEPTED" });
    const again = await efiPayout.defendInfraction!(infraction.idInfracao, "Outra vez");
    expect(again).toMatchObject({ status: "REFUSED" });
    expect(again.status === "REFUSED" && again.reason).toMatch(/não aceita defesa/);
    const late = psp.openInfraction((await paidPixOrder(a.apiKey, 16)).pix.endToEndId, {
      prazo: new Date(Date.now() - 1000),
    });
    const tooLate = await efiPayout.defendInfraction!(late.idInfracao, "Venda legítima");
    expect(tooLate.status === "REFUSED" && tooLate.reason).toMatch(/prazo_expirado/);
    const unknown = await efiPayout.defendInfraction!("nao-existe", "Venda legítima");
    expect(unknown.status === "REFUSED" && unknown.reason).toMatch(/infracao_nao_encontrada/);
  });

  it("a defence whose answer was lost is read back by the sync, not sent twice", async () => {
    const a = await team();
    const infraction = psp.openInfraction((await paidPixOrder(a.apiKey, 45)).pix.endToEndId);
    await syncInfractions();
    const row = await rowOf(infraction.idInfracao);
    psp.faults.loseNext.push({ path: /\/defesa$/, count: 1 });
    await signIn(a.owner);
    const state = await defendInfractionAction(idle, form({ id: row.id, defence: "Venda legítima, entregue." }));
    expect(state.status === "success" ? state.message : errorOf(state)).toBe("disputes.unanswered");
    expect((await rowOf(infraction.idInfracao)).defenceState).toBe("sending");
    // Later than a defence in flight may take: the PSP shows it defended, so it was the answer that got lost.
    await syncInfractions(new Date(Date.now() + 5 * 60_000));
    expect(await rowOf(infraction.idInfracao)).toMatchObject({ defenceState: "sent", status: "EM_DEFESA" });
    expect(psp.defences.filter((d) => d.idInfracao === infraction.idInfracao)).toHaveLength(1);
  });
});

describe("MED infractions hold the disputed amount", () => {
  const holdEntries = (merchantId: string) =>
    db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.refType, "med_infraction")));
  const holdEvents = (orderId: string) =>
    db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, orderId), eq(events.type, "order.hold.status_changed")))
      .orderBy(asc(events.seq));

  it("an open infraction holds its amount out of the available balance (GET /account shows it held with its deadline), a withdrawal cannot take it, and it is released when the claim is rejected", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order, pix } = await paidPixOrder(apiKey, 40);
    const infraction = psp.openInfraction(pix.endToEndId);
    await syncInfractions();
    await syncInfractions();
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.status).toBe(200);
    expect(account.body.merchant).toMatchObject({
      balance: 0,
      heldBalance: 4000,
      holds: [{ orderId: order.id, value: 40, deadline: infraction.dadosAnalise.prazoFinalizacao }],
    });
    const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 1000 } });
    expect(out.status).toBe(400);
    const { getOverview } = await import("@/lib/dashboard/server/overview");
    expect((await getOverview(merchant.id)).held).toMatchObject([{ orderId: order.id, valueCentavos: 4000 }]);

    // The PSP blocks it too (bloqueios.med): the solvency report counts it held, and owed.
    const report = await computeSolvency();
    expect(report.lines.find((l) => l.kind === "psp_blocked_med")?.centavos).toBeGreaterThanOrEqual(4000);
    expect(report.lines.find((l) => l.kind === "med_holds")?.centavos).toBeGreaterThanOrEqual(4000);

    psp.infractions.get(infraction.idInfracao)!.status = "REJEITADA";
    await syncInfractions();
    await syncInfractions();
    expect(await balanceMatchesLedger(merchant.id)).toBe(4000);
    expect((await holdEntries(merchant.id)).map((e) => [e.kind, e.amountCentavos]).sort()).toEqual([
      ["med_hold", -4000],
      ["med_hold_release", 4000],
    ]);
    expect((await holdEvents(order.id)).map((e) => (e.data as { hold: { status: string } }).hold.status)).toEqual([
      "HELD",
      "RELEASED",
    ]);
    expect((await api("GET", "/api/v1/account", { apiKey })).body.merchant).toMatchObject({
      heldBalance: 0,
      holds: [],
    });
  });

  it("an infraction that ends in a return: the hold becomes the devolução's debit, the merchant pays once", async () => {
    const { merchant, apiKey } = await liveMerchant();
    const { order, pix } = await paidPixOrder(apiKey, 30);
    const infraction = psp.openInfraction(pix.endToEndId);
    await syncInfractions();
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);

    psp.infractions.get(infraction.idInfracao)!.status = "ACEITA";
    await syncInfractions();
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    await psp.returnUnderMed(pix.endToEndId, { natureza: "MED_FRAUDE", notify: false });
    await confirmNotifiedPix(pix.endToEndId, { returns: true });
    await syncInfractions();
    // Held 30, released 30 as the 30 were debited: 30 paid once, not 60.
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    const all = await db().select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, merchant.id));
    expect(
      all
        .filter((e) => e.kind !== "order_credit")
        .map((e) => [e.kind, e.amountCentavos])
        .sort(),
    ).toEqual([
      ["med_debit", -3000],
      ["med_hold", -3000],
      ["med_hold_release", 3000],
    ]);
    expect((await rowOf(infraction.idInfracao)).holdState).toBe("returned");
    expect((await holdEvents(order.id)).map((e) => (e.data as { hold: { status: string } }).hold.status)).toEqual([
      "HELD",
      "RETURNED",
    ]);
  });
});
