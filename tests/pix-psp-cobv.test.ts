import { createPublicKey, createVerify } from "node:crypto";
import fs from "node:fs";
import fc from "fast-check";
import { hasError, isDynamicPix, parsePix } from "pix-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pspClient, type PspClient } from "@/lib/providers/pix/psp-client";
import { mtlsAgent } from "@/lib/providers/http/mtls";
import { addDays, businessDayOnOrAfter, dayOf, easterSunday } from "@/lib/pix/business-days";
import { amountDue, type DueTerms } from "@/lib/pix/due-amount";
import { cobvValor } from "@/lib/providers/pix/api-pix-cobv";
import { owedOn, spDay, type CobVValor } from "./fixtures/pix-psp/cobv";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";

// The test PSP's charges with a due date (tests/fixtures/pix-psp/cobv.ts): cobv and lotecobv as the
// Central Bank's document says, with its refusals ("Violações" of PUT /cobv/{txid} and /lotecobv/{id}),
// the payload at a charge's location and payments of the day's amount. Its amount due is written apart
// from lib/pix/due-amount.ts; the two are held equal over random terms, so the payer page's "valor
// hoje" and what the PSP serves cannot drift apart unnoticed. Reached through the service's own
// OAuth2 + mTLS client, so every request it sends is checked against the document too.

const RECEIVER_KEY = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906";
const today = spDay(new Date());
let psp: PixPsp;
let client: PspClient;
let seq = 0;

const txid = () => `cobvtest${Date.now().toString(36)}${String(seq++).padStart(4, "0")}`.padEnd(32, "x").slice(0, 32);
const problemType = (t: string) => `https://pix.bcb.gov.br/api/v2/error/${t}`;

function cobvBody(extra: Record<string, unknown> = {}, valor: Record<string, unknown> = {}) {
  return {
    calendario: { dataDeVencimento: addDays(today, 10), validadeAposVencimento: 5 },
    devedor: { cpf: "52998224725", nome: "Maria Souza" },
    valor: { original: "100.00", ...valor },
    chave: RECEIVER_KEY,
    solicitacaoPagador: "Mensalidade",
    ...extra,
  };
}

const req = (method: "GET" | "PUT" | "PATCH", path: string, body?: unknown) =>
  client.call(method, `${psp.apiUrl}${path}`, body);

beforeAll(async () => {
  psp = await startPixPsp({ receiverKey: RECEIVER_KEY, quiet: true });
  const f = psp.files;
  client = pspClient({
    apiUrl: psp.apiUrl,
    oauthUrl: psp.oauthUrl,
    clientId: psp.clientId,
    clientSecret: psp.clientSecret,
    agent: mtlsAgent({
      cert: fs.readFileSync(f.clientCert),
      key: fs.readFileSync(f.clientKey),
      ca: fs.readFileSync(f.ca),
    }),
    timeoutMs: 5000,
  });
});

afterEach(() => {
  psp.violations.length = 0;
});

afterAll(() => psp.close());

describe("PUT /cobv/{txid}", () => {
  it("creates a charge as the document's CobVGerada, with a dynamic BR Code whose location is a cobv's", async () => {
    const id = txid();
    const res = await req("PUT", `/cobv/${id}`, cobvBody({}, { multa: { modalidade: 2, valorPerc: "2.00" } }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      txid: id,
      revisao: 0,
      status: "ATIVA",
      calendario: { dataDeVencimento: addDays(today, 10), validadeAposVencimento: 5 },
      loc: { tipoCob: "cobv", txid: id },
      recebedor: { cnpj: expect.any(String), cidade: expect.any(String) },
      valor: { original: "100.00", multa: { modalidade: 2, valorPerc: "2.00" } },
    });
    const code = (res.json as { pixCopiaECola: string; location: string }).pixCopiaECola;
    const parsed = parsePix(code);
    if (hasError(parsed)) throw new Error(parsed.message);
    expect(isDynamicPix(parsed)).toBe(true);
    expect((res.json as { location: string }).location).toMatch(/^qr\.pix-psp\.test\/qr\/v2\/cobv\/[0-9a-f]{32}$/);
    expect(psp.violations).toEqual([]);
  });

  it("refuses each of the document's Violações with CobVOperacaoInvalida and the property", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ calendario: { dataDeVencimento: addDays(today, -1) } }, {}, "cobv.calendario.dataDeVencimento"],
      [
        { calendario: { dataDeVencimento: addDays(today, 3), validadeAposVencimento: -1 } },
        {},
        "cobv.calendario.validadeAposVencimento",
      ],
      [{ chave: "outra@example.com" }, {}, "cobv.chave"],
      [{}, { original: "0.00" }, "cobv.valor.original"],
      [{}, { abatimento: { modalidade: 1, valorPerc: "100.00" } }, "cobv.valor.abatimento"],
      [{}, { abatimento: { modalidade: 2, valorPerc: "100.00" } }, "cobv.valor.abatimento"],
      [
        {},
        { desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(today, 2), valorPerc: "100.00" }] } },
        "cobv.valor.desconto",
      ],
      [
        {},
        { desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(today, 11), valorPerc: "1.00" }] } },
        "cobv.valor.desconto",
      ],
      [{}, { desconto: { modalidade: 5, valorPerc: "100.00" } }, "cobv.valor.desconto"],
    ];
    for (const [extra, valor, property] of cases) {
      const res = await req("PUT", `/cobv/${txid()}`, cobvBody(extra, valor));
      expect(res.status, JSON.stringify([extra, valor])).toBe(400);
      expect(res.json).toMatchObject({ type: problemType("CobVOperacaoInvalida"), status: 400 });
      expect((res.json as { violacoes: { propriedade: string }[] }).violacoes.map((v) => v.propriedade)).toContain(
        property,
      );
    }
    // Correct requests that the PSP refuses for what they mean: none breaks the document's schema.
    expect(psp.violations).toEqual([]);
  });

  it("refuses what breaks the schema, and records it: no devedor, an unknown modalidade, a discount of both kinds", async () => {
    const shapes: Record<string, unknown>[] = [
      { ...cobvBody(), devedor: undefined },
      cobvBody({}, { juros: { modalidade: 9, valorPerc: "1.00" } }),
      cobvBody(
        {},
        { desconto: { modalidade: 1, valorPerc: "1.00", descontoDataFixa: [{ data: today, valorPerc: "1.00" }] } },
      ),
    ];
    for (const body of shapes) {
      const res = await req("PUT", `/cobv/${txid()}`, JSON.parse(JSON.stringify(body)));
      expect(res.status).toBe(400);
      expect((res.json as { type: string }).type).toBe(problemType("CobVOperacaoInvalida"));
    }
    expect(psp.violations.length).toBeGreaterThanOrEqual(3);
  });

  it("revises an ATIVA charge, removes it, and then refuses to change it", async () => {
    const id = txid();
    await req("PUT", `/cobv/${id}`, cobvBody());
    const revised = await req("PATCH", `/cobv/${id}`, { valor: { original: "120.00" } });
    expect(revised.json).toMatchObject({ revisao: 1, valor: { original: "120.00" } });
    const both = await req("PATCH", `/cobv/${id}`, {
      status: "REMOVIDA_PELO_USUARIO_RECEBEDOR",
      valor: { original: "1.00" },
    });
    expect(both.status).toBe(400);
    expect((await req("PATCH", `/cobv/${id}`, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" })).json).toMatchObject({
      status: "REMOVIDA_PELO_USUARIO_RECEBEDOR",
    });
    expect((await req("PUT", `/cobv/${id}`, cobvBody())).status).toBe(400);
    expect((await req("PATCH", `/cobv/${id}`, { valor: { original: "2.00" } })).status).toBe(400);
    expect((await req("GET", `/cobv/${id}?revisao=0`)).json).toMatchObject({ valor: { original: "100.00" } });
    expect((await req("GET", `/cobv/${id}?revisao=7`)).json).toMatchObject({
      type: problemType("CobVConsultaInvalida"),
    });
    expect((await req("GET", `/cobv/${txid()}`)).json).toMatchObject({ type: problemType("CobVNaoEncontrada") });
    expect(psp.violations).toEqual([]);
  });

  it("lists charges by creation time, payer and status, paged as the document says", async () => {
    const id = txid();
    await req("PUT", `/cobv/${id}`, cobvBody({ devedor: { cnpj: "11222333000181", nome: "Loja Lima" } }));
    const from = new Date(Date.now() - 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await req("GET", `/cobv?inicio=${from}&fim=${to}&cnpj=11222333000181&status=ATIVA`);
    expect(res.status).toBe(200);
    expect((res.json as { cobs: { txid: string }[] }).cobs.map((c) => c.txid)).toEqual([id]);
    const both = await req("GET", `/cobv?inicio=${from}&fim=${to}&cnpj=11222333000181&cpf=52998224725`);
    expect(both.json).toMatchObject({ type: problemType("CobVConsultaInvalida") });
    expect((await req("GET", `/cobv?inicio=${to}&fim=${from}`)).status).toBe(400);
    expect(psp.violations).toEqual([]);
  });
});

describe("the payload at a charge's location, and payments", () => {
  it("serves a signed CobVPayload with the day's amount for the intended payment day (DPP); 410 after the last day", async () => {
    const id = txid();
    const due = businessDayOnOrAfter(addDays(today, 10));
    const made = await req(
      "PUT",
      `/cobv/${id}`,
      cobvBody(
        { calendario: { dataDeVencimento: due, validadeAposVencimento: 30 } },
        {
          multa: { modalidade: 1, valorPerc: "15.00" },
          juros: { modalidade: 1, valorPerc: "1.00" },
        },
      ),
    );
    const location = (made.json as { location: string }).location;
    const onTime = await psp.readPayload(location, { dpp: due });
    expect(onTime.status).toBe(200);
    expect(onTime.payload).toMatchObject({ txid: id, status: "ATIVA", valor: { original: "100.00", final: "100.00" } });
    // The signature is the PSP's (ES256 over header.payload), with the key of its certificate.
    const [h, p, sig] = onTime.jws.split(".");
    const key = createPublicKey(fs.readFileSync(psp.files.serverCert));
    expect(
      createVerify("SHA256")
        .update(`${h}.${p}`)
        .verify({ key, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url")),
    ).toBe(true);
    // Two calendar days after the due date: 100.00 + 15.00 + 2 × 1.00, as cobPayload2 adds them up.
    const late = await psp.readPayload(location, { dpp: addDays(due, 2) });
    expect(late.payload.valor).toMatchObject({ original: "100.00", multa: "15.00", juros: "2.00", final: "117.00" });
    expect((await psp.readPayload(location, { dpp: "2999-01-01" })).status).toBe(410);
    expect((await psp.readPayload("qr.pix-psp.test/qr/v2/cobv/unknown")).status).toBe(404);
    expect(psp.violations).toEqual([]);
  });

  it("is paid the day's amount, with componentesValor; never after its last day", async () => {
    const id = txid();
    await req(
      "PUT",
      `/cobv/${id}`,
      cobvBody(
        {},
        { desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(today, 5), valorPerc: "10.00" }] } },
      ),
    );
    const pix = await psp.pay(id, { notify: false });
    expect(pix).toMatchObject({
      valor: "90.00",
      componentesValor: { original: { valor: "100.00" }, desconto: { valor: "10.00" } },
    });
    expect(psp.cobvs.get(id)!.status).toBe("CONCLUIDA");
    const got = await req("GET", `/pix/${pix.endToEndId}`);
    expect(got.json).toMatchObject({ txid: id, valor: "90.00" });
    const other = txid();
    await req(
      "PUT",
      `/cobv/${other}`,
      cobvBody({ calendario: { dataDeVencimento: today, validadeAposVencimento: 0 } }),
    );
    await expect(psp.pay(other, { horario: new Date(Date.now() + 40 * 86_400_000), notify: false })).rejects.toThrow(
      /cannot be paid/,
    );
    expect(psp.violations).toEqual([]);
  });
});

describe("lotecobv", () => {
  it("takes a batch (202), makes each charge or refuses it with its problem, and says so per charge", async () => {
    const id = 7000 + seq++;
    const [a, b] = [txid(), txid()];
    psp.faults.batchDelayMs = 200;
    const put = await req("PUT", `/lotecobv/${id}`, {
      descricao: "Mensalidades",
      cobsv: [
        { ...cobvBody(), txid: a },
        { ...cobvBody({ calendario: { dataDeVencimento: addDays(today, -2) } }), txid: b },
      ],
    });
    expect(put.status).toBe(202);
    const processing = await req("GET", `/lotecobv/${id}`);
    expect((processing.json as { cobsv: { status: string }[] }).cobsv.map((c) => c.status)).toEqual([
      "EM_PROCESSAMENTO",
      "EM_PROCESSAMENTO",
    ]);
    // Not listed until made.
    expect((await req("GET", `/cobv/${a}`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 250));
    const done = await req("GET", `/lotecobv/${id}`);
    expect(done.json).toMatchObject({
      id,
      descricao: "Mensalidades",
      cobsv: [
        { txid: a, status: "CRIADA" },
        {
          txid: b,
          status: "NEGADA",
          problema: {
            type: problemType("CobVOperacaoInvalida"),
            violacoes: [{ propriedade: "cobv.calendario.dataDeVencimento" }],
          },
        },
      ],
    });
    expect((await req("GET", `/cobv/${a}`)).json).toMatchObject({ status: "ATIVA" });
    // A batch's charges are fixed once it is made: another set, or a charge already made, is refused.
    expect(
      (await req("PUT", `/lotecobv/${id}`, { descricao: "x", cobsv: [{ ...cobvBody(), txid: a }] })).json,
    ).toMatchObject({
      type: problemType("LoteCobVOperacaoInvalida"),
    });
    expect(
      (await req("PUT", `/lotecobv/${id + 1}`, { descricao: "x", cobsv: [{ ...cobvBody(), txid: a }] })).status,
    ).toBe(400);
    expect(
      (await req("PATCH", `/lotecobv/${id}`, { cobsv: [{ txid: txid(), valor: { original: "1.00" } }] })).status,
    ).toBe(400);
    expect((await req("GET", `/lotecobv/${id + 99}`)).json).toMatchObject({
      type: problemType("LoteCobVNaoEncontrado"),
    });
    const from = new Date(Date.now() - 60_000).toISOString();
    const list = await req("GET", `/lotecobv?inicio=${from}&fim=${new Date(Date.now() + 60_000).toISOString()}`);
    expect((list.json as { lotes: { id: number }[] }).lotes.map((l) => l.id)).toContain(id);
    psp.faults.batchDelayMs = 0;
    expect(psp.violations).toEqual([]);
  });
});

describe("the test PSP's amount due against lib/pix/due-amount.ts", () => {
  it("closes Carnival Tuesday of every year of its table, as lib/pix/business-days.ts finds it", () => {
    for (let year = 2020; year <= 2040; year++) {
      const tuesday = dayOf(easterSunday(year) - 47);
      // Due on Carnival Tuesday, the charge is still on time on Ash Wednesday: its due date moved there.
      const owed = owedOn(
        {
          calendario: { dataDeVencimento: tuesday, validadeAposVencimento: 3 },
          valor: { original: "1.00", multa: { modalidade: 1, valorPerc: "1.00" } },
        },
        addDays(tuesday, 1),
      );
      expect(owed.multa, `${year}`).toBe(0);
      expect(
        owedOn(
          {
            calendario: { dataDeVencimento: tuesday, validadeAposVencimento: 3 },
            valor: { original: "1.00", multa: { modalidade: 1, valorPerc: "1.00" } },
          },
          addDays(tuesday, 2),
        ).multa,
      ).toBe(100);
    }
  });

  it("asks what lib/pix/due-amount.ts asks, every day, for random terms", () => {
    const terms = fc.record({
      original: fc.integer({ min: 1, max: 10_000_000 }),
      due: fc.integer({ min: 0, max: 4000 }).map((n) => addDays("2024-01-01", n)),
      after: fc.integer({ min: 0, max: 40 }),
      fine: fc.option(fc.tuple(fc.constantFrom(1, 2), fc.integer({ min: 1, max: 5000 }))),
      interest: fc.option(fc.tuple(fc.constantFrom(1, 2, 3, 5, 6), fc.integer({ min: 1, max: 3000 }))),
      abatement: fc.option(fc.integer({ min: 1, max: 9999 })),
      discount: fc.option(
        fc.oneof(
          fc.tuple(
            fc.constantFrom(1, 2),
            fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 3 }),
            fc.integer({ min: 1, max: 9999 }),
          ),
          fc.tuple(fc.constantFrom(3, 4, 5, 6), fc.constant([] as number[]), fc.integer({ min: 1, max: 500 })),
        ),
      ),
      offset: fc.integer({ min: -40, max: 80 }),
    });
    fc.assert(
      fc.property(terms, (t) => {
        const ours: DueTerms = {
          originalCentavos: t.original,
          dueDate: t.due,
          daysAfterDue: t.after,
          fine: t.fine ? { modalidade: t.fine[0] as 1 | 2, hundredths: t.fine[1] } : null,
          interest: t.interest ? { modalidade: t.interest[0] as 1 | 2 | 3 | 5 | 6, hundredths: t.interest[1] } : null,
          abatement: t.abatement ? { modalidade: 2, hundredths: t.abatement } : null,
          discount: !t.discount
            ? null
            : t.discount[0] <= 2
              ? {
                  modalidade: t.discount[0] as 1 | 2,
                  dates: t.discount[1].map((o) => ({ date: addDays(t.due, -o), hundredths: t.discount![2] })),
                }
              : { modalidade: t.discount[0] as 3 | 4 | 5 | 6, hundredths: t.discount[2] },
        };
        // The document's form of the same terms, as the adapter writes them for PUT /cobv/{txid}.
        const theirs = {
          calendario: { dataDeVencimento: t.due, validadeAposVencimento: t.after },
          valor: cobvValor(ours) as unknown as CobVValor,
        };
        const day = addDays(t.due, t.offset);
        const a = amountDue(ours, day);
        const b = owedOn(theirs, day);
        expect(b.payable).toBe(a.payable);
        if (a.payable)
          expect([b.original, b.multa, b.juros, b.abatimento, b.desconto, b.final]).toEqual([
            a.originalCentavos,
            a.fineCentavos,
            a.interestCentavos,
            a.abatementCentavos,
            a.discountCentavos,
            a.totalCentavos,
          ]);
      }),
      { numRuns: 1500, seed: 20261201 },
    );
  });
});
