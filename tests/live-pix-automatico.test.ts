import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setClockForTests } from "@/lib/clock";
import { resetEnvForTests } from "@/lib/env";
import { providers } from "@/lib/providers";
import { apiPixRecurringFromEnv } from "@/lib/providers/recurring/api-pix";
import {
  parseRecurringNotice,
  RecurringRefused,
  type CycleChargeReport,
  type RecurrenceReport,
  type RecurrenceRequest,
} from "@/lib/providers/recurring/types";
import { eq } from "drizzle-orm";
import { db } from "@/db";
import { subscriptionCreations, subscriptions } from "@/db/schema";
import { saoPauloDay } from "@/lib/day-range";
import { addDays } from "@/lib/pix/business-days";
import { endStaleCreations, STALE_CREATION_MS } from "@/lib/subscriptions/creation";
import { readBrCode } from "./fixtures/pix-psp/brcode";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";
import { api } from "./helpers";
import { liveMerchant } from "./support/merchants";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";

// The live Pix Automático adapter (lib/providers/recurring/api-pix.ts) against the test PSP
// (tests/fixtures/pix-psp/rec.ts), which checks every request, answer and notice against the Central
// Bank's document. The PSP's clock is the test's: three months of cycles run in seconds. Notices go to a
// receiver here that does what the subscriptions domain's does (lib/subscriptions/receiver.ts): each id a
// notice names (parseRecurringNotice) is read back through the adapter, and only what the PSP answers is
// "handed" on; the domain's own receiver and engine are tests/subscriptions.test.ts's.

const RECEIVER_KEY = "d6f1a8c2-5b7e-4c3a-9e1f-2a4b6c8d0e12";
const WEBHOOK_TOKEN = "live-pix-automatico-webhook-token-0123";
const ACCOUNT = { PIX_RECEIVER_BRANCH: "0001", PIX_RECEIVER_ACCOUNT: "1234567", PIX_RECEIVER_ACCOUNT_TYPE: "CORRENTE" };

let psp: PixPsp;
let receiver: { origin: string; close(): Promise<void> };
let receiverBase: string;
let clock = new Date("2027-01-04T12:00:00-03:00");
const savedEnv = saveEnv();
const handed = { recs: [] as RecurrenceReport[], charges: [] as CycleChargeReport[] };

/** São Paulo noon of `day`: the PSP's "today". */
const at = (day: string) => (clock = new Date(`${day}T12:00:00-03:00`));
const recurring = () => providers().recurring;

const journey3 = (o: Partial<RecurrenceRequest> = {}): RecurrenceRequest => ({
  journey: "JORNADA_3",
  contract: "assinatura-1042",
  object: "Plano mensal",
  debtor: { name: "Maria Souza", cpf: "52998224725" },
  calendar: { firstDate: "2027-01-04", periodicity: "MENSAL" },
  amount: { fixedCentavos: 4990 },
  retryPolicy: "PERMITE_3R_7D",
  immediateCharge: { valueCentavos: 4990, description: "Primeiro mês" },
  ...o,
});

const cycleCharge = (idRec: string, dueDate: string) => ({
  txid: recurring().newTxid(),
  idRec,
  dueDate,
  valueCentavos: 4990,
  debtor: { name: "Maria Souza", cpf: "52998224725" },
  info: "Plano mensal",
});

async function refusal(p: Promise<unknown>): Promise<RecurringRefused> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RecurringRefused);
  return err as RecurringRefused;
}

/** The last report the receiver handed the domain for a charge, once it has one with `status`. */
const handedCharge = (txid: string, status: string) =>
  waitFor(
    `the domain to be handed ${txid} ${status}`,
    async () => handed.charges.filter((c) => c.txid === txid),
    (list) => list.some((c) => c.status === status),
  );

/** Reads back every id a notice names, as the domain's receiver does, and hands on what the PSP answered. */
async function readBack(body: unknown): Promise<void> {
  const notice = parseRecurringNotice(body);
  for (const idRec of new Set(notice.recs)) {
    const r = await recurring().readRecurrence(idRec);
    if (r) handed.recs.push(r);
  }
  for (const txid of new Set(notice.charges.map((c) => c.txid))) {
    const c = await recurring().readCharge(txid);
    if (c) handed.charges.push(c);
  }
}

/** Where the PSP notifies: https with the test CA's certificate, answering 200 at once and reading after. */
async function startNoticeReceiver(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = https.createServer(
    { key: fs.readFileSync(psp.files.serverKey), cert: fs.readFileSync(psp.files.serverCert), minVersion: "TLSv1.2" },
    (req, res) => {
      let raw = "";
      req.on("data", (c) => (raw += c));
      req.on("end", () => {
        res.writeHead(200).end();
        void readBack(JSON.parse(raw)).catch((err: unknown) => console.error("[notice receiver]", err));
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, quiet: true, now: () => clock, webhookHandshake: "none" });
  receiver = await startNoticeReceiver();
  receiverBase = `${receiver.origin}/api/v1/providers/pix/${WEBHOOK_TOKEN}`;
  Object.assign(
    process.env,
    pixLiveEnv(psp, { receiverKey: RECEIVER_KEY, payoutKey: RECEIVER_KEY, webhookToken: WEBHOOK_TOKEN }),
    ACCOUNT,
  );
  resetEnvForTests();
  await recurring().configureWebhooks!({ rec: receiverBase, cobr: receiverBase });
});

afterEach(() => {
  Object.assign(psp.faults, {
    dropNotifications: false,
    duplicateNotifications: false,
    notificationDelayMs: 0,
    holdRecurringNotifications: false,
  });
  // Every request we sent and every answer and notice of the PSP followed the Central Bank's document.
  expect(psp.violations.splice(0)).toEqual([]);
});

afterAll(async () => {
  await receiver.close();
  await psp.close();
  savedEnv.restore();
});

describe("live Pix Automático through API Pix", () => {
  it("is the live recurring provider, and registers PUT /webhookrec and /webhookcobr at the PSP", () => {
    expect(recurring()).toBe(apiPixRecurringFromEnv);
    expect(psp.recurring).toBeDefined();
    const hooks = psp.requests.filter((r) => r.method === "PUT" && /\/webhook(rec|cobr)$/.test(r.path));
    expect(hooks.map((r) => [r.path.split("/").pop(), r.status])).toEqual([
      ["webhookrec", 200],
      ["webhookcobr", 200],
    ]);
  });

  it("journey 3: locrec, cob and rec make one composite QR; the payer pays it and authorises; three cycles follow in their windows", async () => {
    at("2027-01-04");
    const created = await recurring().createRecurrence(journey3());
    expect(created).toMatchObject({ status: "CRIADA", provider: "api-pix" });
    expect(created.idRec).toMatch(/^RR0908935620270104[a-zA-Z0-9]{11}$/);
    const rec = psp.recurring.recs.get(created.idRec)!;
    const cob = psp.charges.get(created.immediateTxid!)!;
    expect(rec).toMatchObject({
      status: "CRIADA",
      politicaRetentativa: "PERMITE_3R_7D",
      valor: { valorRec: "49.90" },
      calendario: { dataInicial: "2027-01-04", periodicidade: "MENSAL" },
      ativacao: { tipoJornada: "AGUARDANDO_DEFINICAO", dadosJornada: { txid: created.immediateTxid } },
    });
    expect(cob).toMatchObject({ status: "ATIVA", valor: { original: "49.90" }, chave: RECEIVER_KEY });
    // The composite QR: the immediate charge's location and the recurrence's (field 80).
    expect(readBrCode(created.brcode)).toMatchObject({ location: cob.location, recLocation: rec.loc!.location });
    expect(created.location).toBe(rec.loc!.location);

    // The payer reads it in the bank app: the first month is paid and the rest authorised in one act.
    await psp.recurring.authorize(created.idRec);
    const approved = await waitFor(
      "the approval handed to the domain",
      async () => handed.recs.filter((r) => r.idRec === created.idRec),
      (l) => l.some((r) => r.status === "APROVADA"),
    );
    expect(approved.value.at(-1)).toMatchObject({
      status: "APROVADA",
      journey: "JORNADA_3",
      immediateTxid: created.immediateTxid,
      closure: null,
    });
    expect(await recurring().readImmediateCharge(created.immediateTxid!)).toMatchObject({
      status: "CONCLUIDA",
      valueCentavos: 4990,
      payments: [{ valueCentavos: 4990 }],
    });

    // Cycle 2 (due 2027-02-04): 15 days before is outside the window; 7 days before is inside it.
    at("2027-01-20");
    const early = await refusal(recurring().createCharge(cycleCharge(created.idRec, "2027-02-04")));
    expect(early.problem).toMatchObject({ type: "CobROperacaoInvalida" });
    expect(early.problem.violations).toEqual([
      { property: "cobr.calendario.dataDeVencimento", reason: expect.stringContaining("fora da janela de envio") },
    ]);
    at("2027-01-28");
    const request = cycleCharge(created.idRec, "2027-02-04");
    const charge = await recurring().createCharge(request);
    expect(charge).toMatchObject({ status: "CRIADA", dueDate: "2027-02-04", valueCentavos: 4990 });
    // A send repeated after a lost answer ("cobr.txid encontra-se em uso") is the charge already made.
    expect((await recurring().createCharge(request)).txid).toBe(request.txid);
    expect(psp.recurring.cobrs.size).toBe(1);
    // The payer's PSP schedules it: ATIVA with its attempt AGENDADA, notified and read back.
    const scheduled = await handedCharge(request.txid, "ATIVA");
    expect(scheduled.value.at(-1)!.attempts).toMatchObject([
      { type: "AGND", status: "AGENDADA", settlementDate: "2027-02-04" },
    ]);
    // Another charge in the same cycle is the document's violation.
    const twice = await refusal(recurring().createCharge(cycleCharge(created.idRec, "2027-02-05")));
    expect(twice.problem.violations[0].reason).toContain("no mesmo ciclo");

    at("2027-02-04");
    await psp.recurring.settle(request.txid, "PAGA");
    const paid = await handedCharge(request.txid, "CONCLUIDA");
    expect(paid.value.at(-1)).toMatchObject({ status: "CONCLUIDA", payments: [{ valueCentavos: 4990 }] });
    expect(paid.value.at(-1)!.payments[0].endToEndId).toBe(charge.attempts[0].endToEndId);
    // Paid: too late to cancel.
    expect(await recurring().cancelCharge(request.txid)).toBe("too-late");

    // Cycle 3 (due 2027-03-04) fails and is retried under PERMITE_3R_7D.
    at("2027-02-25");
    const failing = cycleCharge(created.idRec, "2027-03-04");
    await recurring().createCharge(failing);
    await handedCharge(failing.txid, "ATIVA");
    at("2027-03-04");
    await psp.recurring.settle(failing.txid, "FALHA");
    const failed = await recurring().readCharge(failing.txid);
    expect(failed).toMatchObject({ status: "ATIVA", attempts: [{ status: "EXPIRADA" }] });
    const today = await refusal(recurring().requestRetry(failing.txid, "2027-03-04"));
    expect(today.problem.violations[0].reason).toBe("O parâmetro data não corresponde a uma data futura.");
    const late = await refusal(recurring().requestRetry(failing.txid, "2027-03-15"));
    expect(late.problem.violations[0].reason).toContain("até 7 dias após o vencimento");
    const retried = await recurring().requestRetry(failing.txid, "2027-03-05");
    expect(retried.attempts.map((a) => [a.type, a.status, a.settlementDate])).toEqual([
      ["AGND", "EXPIRADA", "2027-03-04"],
      ["RIFL", "SOLICITADA", "2027-03-05"],
    ]);
    const open = await refusal(recurring().requestRetry(failing.txid, "2027-03-06"));
    expect(open.problem.violations[0].reason).toBe("Existe uma tentativa com status SOLICITADA ou AGENDADA.");
    await waitFor(
      "the retry scheduled",
      () => recurring().readCharge(failing.txid),
      (c) => c?.attempts[1]?.status === "AGENDADA",
    );
    at("2027-03-05");
    await psp.recurring.settle(failing.txid, "PAGA");
    const recovered = await handedCharge(failing.txid, "CONCLUIDA");
    expect(recovered.value.at(-1)).toMatchObject({ payments: [{ valueCentavos: 4990 }] });
    expect(recovered.value.at(-1)!.attempts.map((a) => a.status)).toEqual(["EXPIRADA", "PAGA"]);
  });

  it("journey 2 with NAO_PERMITE: authorised by the QR alone; a failed cycle expires and no retry is allowed", async () => {
    at("2027-01-04");
    const created = await recurring().createRecurrence(
      journey3({
        journey: "JORNADA_2",
        retryPolicy: "NAO_PERMITE",
        immediateCharge: undefined,
        amount: { minimumCentavos: 1000 },
      }),
    );
    expect(created.immediateTxid).toBeNull();
    expect(created.idRec.startsWith("RN")).toBe(true);
    expect(readBrCode(created.brcode)).toMatchObject({ location: null, recLocation: created.location });
    expect(psp.recurring.recs.get(created.idRec)!.valor).toEqual({ valorMinimoRecebedor: "10.00" });
    // A charge before the payer authorised is refused.
    at("2027-01-28");
    const unauthorised = await refusal(recurring().createCharge(cycleCharge(created.idRec, "2027-02-04")));
    expect(unauthorised.problem.violations[0].reason).toContain("não se encontra APROVADA");

    await psp.recurring.authorize(created.idRec);
    expect((await recurring().readRecurrence(created.idRec))!).toMatchObject({
      status: "APROVADA",
      journey: "JORNADA_2",
    });
    const c = cycleCharge(created.idRec, "2027-02-04");
    await recurring().createCharge(c);
    await handedCharge(c.txid, "ATIVA");
    at("2027-02-04");
    await psp.recurring.settle(c.txid, "FALHA");
    expect(await recurring().readCharge(c.txid)).toMatchObject({ status: "EXPIRADA", retryPolicy: "NAO_PERMITE" });
    const forbidden = await refusal(recurring().requestRetry(c.txid, "2027-02-05"));
    expect(forbidden.problem.violations[0].reason).toBe(
      "A política configurada na recorrência não permite retentativa de cobrança.",
    );
  });

  it("a payer's cancellation at the bank is seen through the webhook, and through the poll when the notice is lost", async () => {
    at("2027-01-04");
    const first = await recurring().createRecurrence(journey3());
    await psp.recurring.authorize(first.idRec);
    at("2027-01-28");
    const pending = cycleCharge(first.idRec, "2027-02-04");
    await recurring().createCharge(pending);
    await handedCharge(pending.txid, "ATIVA");

    await psp.recurring.cancelByPayer(first.idRec);
    const seen = await waitFor(
      "the cancellation handed to the domain",
      async () => handed.recs.filter((r) => r.idRec === first.idRec),
      (l) => l.some((r) => r.status === "CANCELADA"),
    );
    expect(seen.value.at(-1)!.closure).toEqual({
      kind: "cancellation",
      requestedBy: "USUARIO_PAGADOR",
      code: "SLDB",
      description: expect.any(String),
    });
    // Its open charge ends with it.
    const ended = await handedCharge(pending.txid, "CANCELADA");
    expect(ended.value.at(-1)!.attempts[0].status).toBe("CANCELADA");
    expect(await recurring().cancelRecurrence(first.idRec)).toBe("gone");

    // The second one's notice never arrives: the poll (GET /rec over a window) finds the cancellation.
    at("2027-01-04");
    const second = await recurring().createRecurrence(journey3({ contract: "assinatura-2042" }));
    await psp.recurring.authorize(second.idRec);
    await waitFor(
      "the approval read back",
      async () => handed.recs.some((r) => r.idRec === second.idRec && r.status === "APROVADA"),
      Boolean,
    );
    psp.faults.dropNotifications = true;
    const before = handed.recs.length;
    await psp.recurring.cancelByPayer(second.idRec);
    const polled: RecurrenceReport[] = [];
    for (let page = 0, pages = 1; page < pages; page++) {
      const answer = await recurring().listRecurrences({
        from: new Date("2027-01-01T00:00:00Z"),
        to: new Date("2027-01-31T00:00:00Z"),
        page,
      });
      polled.push(...answer.items);
      pages = answer.pages;
    }
    expect(polled.find((r) => r.idRec === second.idRec)).toMatchObject({
      status: "CANCELADA",
      closure: { kind: "cancellation", requestedBy: "USUARIO_PAGADOR" },
    });
    expect(handed.recs.length).toBe(before);
  });

  it("notices that repeat and arrive out of order are reads of the current state: the domain never goes backwards", async () => {
    at("2027-01-04");
    const created = await recurring().createRecurrence(journey3({ contract: "assinatura-3042" }));
    await psp.recurring.authorize(created.idRec);
    psp.faults.holdRecurringNotifications = true;
    at("2027-01-28");
    const c = cycleCharge(created.idRec, "2027-02-04");
    await recurring().createCharge(c);
    await waitFor(
      "the charge scheduled",
      () => recurring().readCharge(c.txid),
      (r) => r?.status === "ATIVA",
    );
    at("2027-02-04");
    await psp.recurring.settle(c.txid, "PAGA");

    // ATIVA then CONCLUIDA happened; they arrive CONCLUIDA first, then ATIVA, each twice.
    psp.faults.duplicateNotifications = true;
    const from = psp.recurring.notices.length;
    await psp.recurring.release("reverse");
    const arrived = psp.recurring.notices.slice(from).map((n) => (n.body.cobsr[0] as { status: string }).status);
    expect(arrived).toEqual(["CONCLUIDA", "CONCLUIDA", "ATIVA", "ATIVA"]);
    await waitFor(
      "every notice read back",
      async () => handed.charges.filter((r) => r.txid === c.txid).length,
      (n) => n >= 1,
    );
    await new Promise((r) => setTimeout(r, 200));
    // Four notices, one charge: whatever they said, each read answered CONCLUIDA with its one payment.
    const reports = handed.charges.filter((r) => r.txid === c.txid);
    expect(reports.every((r) => r.status === "CONCLUIDA" && r.payments.length === 1)).toBe(true);
  });

  it("the document's refusals of a recurrence and of a late cancellation; a status it does not list decides nothing", async () => {
    at("2027-01-04");
    const past = await refusal(
      recurring().createRecurrence(journey3({ calendar: { firstDate: "2027-01-03", periodicity: "MENSAL" } })),
    );
    expect(past.problem).toMatchObject({ type: "RecOperacaoInvalida" });
    expect(past.problem.violations.map((v) => v.property)).toEqual(["rec.calendario.dataInicial"]);

    const created = await recurring().createRecurrence(journey3({ contract: "assinatura-4042" }));
    await psp.recurring.authorize(created.idRec);
    at("2027-01-28");
    const c = cycleCharge(created.idRec, "2027-02-04");
    await recurring().createCharge(c);
    await handedCharge(c.txid, "ATIVA");
    // On its first attempt's date, unpaid: the document forbids the cancellation.
    at("2027-02-04");
    expect(await recurring().cancelCharge(c.txid)).toBe("too-late");
    expect(psp.recurring.cobrs.get(c.txid)!.status).toBe("ATIVA");

    // A PSP that answers a status the document does not list (a newer version's) is not read as a failure.
    psp.recurring.cobrs.get(c.txid)!.status = "EM_PROCESSAMENTO" as never;
    await expect(recurring().readCharge(c.txid)).rejects.toMatchObject({
      name: "UpstreamUnavailable",
      message: expect.stringContaining("status"),
    });
    // That answer broke the document, as it was made to: the PSP recorded it.
    expect(psp.violations.splice(0).every((v) => v.includes("/status"))).toBe(true);
    psp.recurring.cobrs.get(c.txid)!.status = "ATIVA";
  });

  it("a forged notice names what the PSP does not know: reading it back finds nothing to hand on", async () => {
    const before = { recs: handed.recs.length, charges: handed.charges.length };
    await readBack({
      recs: [{ idRec: "RR0908935620270104abcdefghijk", status: "CANCELADA" }],
      cobsr: [
        { idRec: "RR0908935620270104abcdefghijk", txid: "forgedforgedforgedforgedforged12", status: "CONCLUIDA" },
      ],
    });
    expect({ recs: handed.recs.length, charges: handed.charges.length }).toEqual(before);
    // Ids the document could not have made are not even asked for.
    const asked = psp.requests.length;
    expect(await recurring().readCharge("not a txid!")).toBeNull();
    expect(await recurring().readRecurrence("RR-short")).toBeNull();
    expect(psp.requests.length).toBe(asked);
  });
  it("the answer to POST /rec is lost: a retry with the same Idempotency-Key resumes, one recurrence at the PSP and one subscription here", async () => {
    clock = new Date();
    const { apiKey, merchant } = await liveMerchant();
    const body = {
      payer: { name: "Maria Souza", cpf: "529.982.247-25" },
      description: "Plano mensal",
      reference: "assinatura-5042",
      amount: { type: "FIXED", value: 49.9 },
      periodicity: "MENSAL",
      firstDate: addDays(saoPauloDay(), 20),
      retryPolicy: "PERMITE_3R_7D",
      journey: "JORNADA_3",
    };
    const headers = { "Idempotency-Key": "sub-lost-rec" };
    const before = { recs: psp.recurring.recs.size, locs: psp.recurring.locs.size };
    // Every answer to POST /rec is lost (the client's own resends of the dropped connection too).
    psp.faults.loseNext = [{ path: /\/rec$/, count: 10 }];
    const lost = await api("POST", "/api/v1/subscriptions", { apiKey, body, headers });
    psp.faults.loseNext = [];
    // The PSP made it, but we cannot know: an unknown outcome, not a failure.
    expect(lost.status, JSON.stringify(lost.body)).toBe(500);
    expect(lost.body.code).toBe("upstream_unavailable");
    expect(psp.recurring.recs.size).toBe(before.recs + 1);
    const [creating] = await db()
      .select()
      .from(subscriptionCreations)
      .where(eq(subscriptionCreations.merchantId, merchant.id));
    expect(creating).toMatchObject({ state: "CREATING", idRec: null });
    expect(creating.locationId).not.toBeNull();
    expect(creating.immediateTxid).not.toBeNull();

    const again = await api("POST", "/api/v1/subscriptions", { apiKey, body, headers });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    // The location named the recurrence it is linked to: read back and reused, nothing made twice.
    expect({ recs: psp.recurring.recs.size, locs: psp.recurring.locs.size }).toEqual({
      recs: before.recs + 1,
      locs: before.locs + 1,
    });
    const lastPost = psp.requests.map((r) => r.method === "POST" && r.path.endsWith("/rec")).lastIndexOf(true);
    const retried = psp.requests.slice(lastPost + 1);
    expect(retried.filter((r) => r.method === "POST").map((r) => r.path)).toEqual([]);
    expect(retried.some((r) => r.method === "GET" && /\/locrec\/\d+$/.test(r.path))).toBe(true);
    const sub = again.body.subscription;
    expect(sub.id).toBe(creating.id);
    const rec = [...psp.recurring.recs.values()].find((r) => r.vinculo.contrato === "assinatura-5042")!;
    expect(rec.ativacao.dadosJornada?.txid).toBe(creating.immediateTxid);
    const rows = await db().select().from(subscriptions).where(eq(subscriptions.merchantId, merchant.id));
    expect(rows.map((r) => r.idRec)).toEqual([rec.idRec]);
    const [done] = await db().select().from(subscriptionCreations).where(eq(subscriptionCreations.id, creating.id));
    expect(done).toMatchObject({ state: "DONE", idRec: rec.idRec });

    // And the same key once more answers the same subscription, sending nothing.
    const asked = psp.requests.length;
    const third = await api("POST", "/api/v1/subscriptions", { apiKey, body, headers });
    expect(third.status).toBe(201);
    expect(third.body.subscription.id).toBe(sub.id);
    expect(psp.requests.length).toBe(asked);
  });
  it("a creation whose answer was lost and is never retried is ended by the sweep: its recurrence cancelled at the PSP", async () => {
    clock = new Date();
    const { apiKey, merchant } = await liveMerchant();
    const body = {
      payer: { name: "Maria Souza", cpf: "529.982.247-25" },
      description: "Plano mensal",
      reference: "assinatura-6042",
      amount: { type: "FIXED", value: 49.9 },
      periodicity: "MENSAL",
      firstDate: addDays(saoPauloDay(), 20),
      retryPolicy: "NAO_PERMITE",
      journey: "JORNADA_2",
    };
    psp.faults.loseNext = [{ path: /\/rec$/, count: 10 }];
    const lost = await api("POST", "/api/v1/subscriptions", {
      apiKey,
      body,
      headers: { "Idempotency-Key": "sub-left" },
    });
    psp.faults.loseNext = [];
    expect(lost.status).toBe(500);
    const rec = [...psp.recurring.recs.values()].find((r) => r.vinculo.contrato === "assinatura-6042")!;
    expect(rec.status).toBe("CRIADA");

    // Not yet stale: left for its retry.
    expect(await endStaleCreations()).toBe(0);
    setClockForTests(new Date(Date.now() + STALE_CREATION_MS + 60_000));
    try {
      expect(await endStaleCreations()).toBeGreaterThanOrEqual(1);
    } finally {
      setClockForTests(undefined);
    }
    expect(psp.recurring.recs.get(rec.idRec)!.status).toBe("CANCELADA");
    const [ended] = await db()
      .select()
      .from(subscriptionCreations)
      .where(eq(subscriptionCreations.merchantId, merchant.id));
    expect(ended).toMatchObject({ state: "ABANDONED", idRec: rec.idRec, idempotencyKey: null });
    expect(await db().select().from(subscriptions).where(eq(subscriptions.merchantId, merchant.id))).toEqual([]);
  });
});
