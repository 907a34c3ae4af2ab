import { and, asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { events, invoices, ledgerEntries, mailOutbox, orders } from "@/db/schema";
import { saoPauloDay } from "@/lib/day-range";
import { backgroundMailSettled } from "@/lib/mail/background";
import { addDays, daysBetween } from "@/lib/pix/business-days";
import { parseBrCode } from "@/lib/pix/brcode";
import { expireInvoices } from "@/lib/invoices/service";
import { api, seedMerchant } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

// Invoices with a due date in the sandbox (docs/api.md#invoices), against the real handlers and
// PostgreSQL: created, paid before, on and after the due date with the amounts each day asks, expired,
// cancelled, refunded through their order, batched, mailed.

const today = saoPauloDay();

function body(extra: Record<string, unknown> = {}) {
  return {
    value: 100,
    dueDate: addDays(today, 10),
    daysAfterDue: 15,
    payer: { name: "Maria Souza", cpf: "529.982.247-25" },
    fine: { modalidade: 1, value: 5 },
    interest: { modalidade: 1, value: 0.1 },
    discount: { modalidade: 1, dates: [{ date: addDays(today, 5), value: 10 }] },
    reference: "contrato-77",
    description: "Mensalidade",
    ...extra,
  };
}

async function create(apiKey: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const res = await api("POST", "/api/v1/invoices", { apiKey, body: body(extra), headers });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.invoice;
}

const pay = (apiKey: string, id: string, date?: string) =>
  api("POST", `/api/v1/sandbox/invoices/${id}/pay`, { apiKey, body: date ? { date } : {} });

const orderRow = async (id: string) => (await db().select().from(orders).where(eq(orders.id, id)))[0];
const eventsOf = (subjectId: string) =>
  db().select().from(events).where(eq(events.subjectId, subjectId)).orderBy(asc(events.seq));
const credits = (merchantId: string) =>
  db()
    .select({ amount: ledgerEntries.amountCentavos, refId: ledgerEntries.refId })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.kind, "order_credit")));

describe("POST /api/v1/invoices", () => {
  it("→ 201 OPEN: the terms as sent, today's amount, a code with it, and a PIX order that takes the payment", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    expect(invoice).toMatchObject({
      status: "OPEN",
      value: 100,
      dueDate: addDays(today, 10),
      daysAfterDue: 15,
      payer: { name: "Maria Souza", cpf: "52998224725" },
      fine: { modalidade: 1, value: 5 },
      interest: { modalidade: 1, value: 0.1 },
      abatement: null,
      discount: { modalidade: 1, dates: [{ date: addDays(today, 5), value: 10 }] },
      reference: "contrato-77",
      amountDue: { day: today, value: 90, original: 100, discount: 10, fine: 0, interest: 0, late: false },
      payment: null,
      order: { status: "PENDING" },
    });
    // The sandbox's code is a static one carrying the day's amount and the charge's txid.
    const code = parseBrCode(invoice.brcode);
    expect(code).toMatchObject({ kind: "static", amountCentavos: 9000 });
    const [row] = await db().select().from(invoices).where(eq(invoices.id, invoice.id));
    expect(code.txid).toBe(row.txid);
    const order = await orderRow(invoice.order.id);
    expect(order).toMatchObject({
      merchantId: merchant.id,
      kind: "pix",
      valueCentavos: 10000,
      txid: row.txid,
      expiresAt: null,
      reference: { invoiceId: invoice.id, name: "Maria Souza", cpf: "52998224725", orderId: "contrato-77" },
    });
    expect(invoice.link).toBe(
      `https://payments.example.com/pay/${order.paymentLinkId}`.replace(
        "https://payments.example.com",
        process.env.PUBLIC_BASE_URL!,
      ),
    );
    // Its order is one like any other.
    const lookup = await api("GET", `/api/v1/order/${order.id}`, { apiKey });
    expect(lookup.body.order).toMatchObject({ type: "pix", status: "PENDING", value: 100 });
  });

  it("refuses terms the document refuses, and ours, with a clear 400 and nothing written", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ dueDate: addDays(today, -1) }, /dueDate must be today/],
      [{ dueDate: "2026-02-30" }, /dueDate: must be a calendar day/],
      [{ abatement: { modalidade: 1, value: 100 } }, /abatement.value must be less than/],
      [{ abatement: { modalidade: 2, percent: 100 } }, /abatement.percent: must be less than 100/],
      [{ discount: { modalidade: 1, dates: [{ date: addDays(today, 11), value: 1 }] } }, /is after the due date/],
      [{ discount: { modalidade: 1, dates: [{ date: addDays(today, -1), value: 1 }] } }, /is before today/],
      [
        { discount: { modalidade: 1, dates: [{ date: addDays(today, 1), value: 100 }] } },
        /less than the invoice's value/,
      ],
      [{ discount: { modalidade: 3, value: 1 }, dueDate: addDays(today, 200) }, /leave nothing to pay/],
      [{ interest: { modalidade: 4, percent: 12 } }, /modalidade 4 \(percent per year\) is not supported/],
      [{ interest: { modalidade: 7, percent: 1 } }, /modalidade 7 .* is not supported/],
      [{ interest: { modalidade: 9, percent: 1 } }, /must have a modalidade of 1, 2, 3, 5 or 6/],
      [{ fine: { modalidade: 2, value: 2 } }, /fine/],
      [{ payer: { name: "Maria", cpf: "529.982.247-24" } }, /payer.cpf: is not a valid CPF/],
      [
        { payer: { name: "Maria", cpf: "529.982.247-25", cnpj: "11.222.333/0001-81" } },
        /cpf or a cnpj \(one of them\)/,
      ],
      [{ payer: { name: "Maria" } }, /cpf or a cnpj/],
      [{ notifyPayer: true }, /payer.email is required to notify the payer/],
      [{ daysAfterDue: -1 }, /daysAfterDue: must be 0 or more/],
      [{ value: 0 }, /value: must be greater than 0/],
    ];
    for (const [extra, message] of refusals) {
      const res = await api("POST", "/api/v1/invoices", { apiKey, body: body(extra) });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.message, JSON.stringify(extra)).toMatch(message);
    }
    expect(await db().select().from(invoices).where(eq(invoices.merchantId, merchant.id))).toEqual([]);
    expect(await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).toEqual([]);
  });

  it("takes an Idempotency-Key: a repeat answers the same invoice, made once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const headers = { "idempotency-key": `inv-${Date.now()}` };
    const a = await create(apiKey, {}, headers);
    const b = await create(apiKey, {}, headers);
    expect(b.id).toBe(a.id);
    expect(await db().select().from(invoices).where(eq(invoices.merchantId, merchant.id))).toHaveLength(1);
  });
});

describe("paying an invoice (sandbox)", () => {
  it("before the due date: the discount applies, the order is credited what was paid, once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    const res = await pay(apiKey, invoice.id, addDays(today, 5));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.invoice).toMatchObject({
      status: "PAID",
      amountDue: null,
      order: { status: "COMPLETED" },
      payment: { day: addDays(today, 5), value: 90, original: 100, discount: 10, fine: 0, interest: 0 },
    });
    const order = await orderRow(invoice.order.id);
    expect(order.valueCentavos).toBe(9000);
    expect(await credits(merchant.id)).toEqual([{ amount: 9000, refId: order.id }]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(9000);
    // The invoice's event and its order's, each once.
    expect((await eventsOf(invoice.id)).map((e) => [e.type, (e.data as { status: string }).status])).toEqual([
      ["invoice.status_changed", "PAID"],
    ]);
    expect((await eventsOf(order.id)).map((e) => e.type)).toEqual(["order.status_changed"]);
    // Paid is final: a second payment is refused, nothing more credited.
    expect((await pay(apiKey, invoice.id)).status).toBe(409);
    expect(await credits(merchant.id)).toHaveLength(1);
  });

  it("on the due date: the original value", async () => {
    const { apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    const res = await pay(apiKey, invoice.id, invoice.effectiveDueDate);
    expect(res.body.invoice.payment).toMatchObject({ value: 100, fine: 0, interest: 0, discount: 0 });
  });

  it("after the due date: credited what was paid, the fine once and interest per calendar day visible", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    const day = addDays(invoice.effectiveDueDate, 3);
    const res = await pay(apiKey, invoice.id, day);
    expect(res.body.invoice.payment).toMatchObject({ day, value: 105.3, original: 100, fine: 5, interest: 0.3 });
    expect((await orderRow(invoice.order.id)).valueCentavos).toBe(10530);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10530);
    const lookup = await api("GET", `/api/v1/order/${invoice.order.id}`, { apiKey });
    expect(lookup.body.order).toMatchObject({ status: "COMPLETED", value: 105.3 });
  });

  it("not after its last day, not before it was made", async () => {
    const { apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    const late = await pay(apiKey, invoice.id, addDays(invoice.lastPayableDay, 1));
    expect(late.status).toBe(409);
    expect(late.body.message).toContain(`its last payable day is ${invoice.lastPayableDay}`);
    expect((await pay(apiKey, invoice.id, addDays(today, -1))).status).toBe(400);
    expect((await api("GET", `/api/v1/invoices/${invoice.id}`, { apiKey })).body.invoice.status).toBe("OPEN");
  });

  it("the sandbox's order payment pays an invoice's order what its invoice asks today", async () => {
    const { apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    const res = await api("POST", `/api/v1/sandbox/orders/${invoice.order.id}/pay`, { apiKey });
    expect(res.status).toBe(200);
    expect(res.body.order).toMatchObject({ status: "COMPLETED", value: 90 });
    expect((await api("GET", `/api/v1/invoices/${invoice.id}`, { apiKey })).body.invoice.status).toBe("PAID");
  });

  it("its order refunds like any PIX order: up to what was paid", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    await pay(apiKey, invoice.id, addDays(invoice.effectiveDueDate, 3));
    const over = await api("POST", `/api/v1/order/${invoice.order.id}/refund`, { apiKey, body: { value: 105.31 } });
    expect(over.status).toBe(400);
    const refund = await api("POST", `/api/v1/order/${invoice.order.id}/refund`, { apiKey, body: {} });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(refund.body.refund).toMatchObject({ value: 105.3, status: "COMPLETED" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    const after = (await api("GET", `/api/v1/invoices/${invoice.id}`, { apiKey })).body.invoice;
    expect(after).toMatchObject({ status: "PAID", order: { status: "REFUND" } });
  });
});

describe("expiry and cancellation", () => {
  /** Moves an invoice's days back, as if `days` had passed since it was made. */
  async function age(id: string, days: number) {
    await db().execute(sql`
      update invoices set
        created_at = created_at - make_interval(days => ${days}),
        due_date = due_date - ${days}::int,
        last_payable_day = last_payable_day - ${days}::int,
        expires_at = expires_at - make_interval(days => ${days})
      where id = ${id}`);
  }

  it("not paid by the end of its last day → EXPIRED by the sweep, its order CANCELLED, each with its event", async () => {
    const { apiKey } = await seedMerchant();
    const invoice = await create(apiKey, { daysAfterDue: 0, discount: undefined });
    await age(invoice.id, daysBetween(today, invoice.lastPayableDay) + 1);
    expect(await expireInvoices(500)).toBeGreaterThanOrEqual(1);
    const after = (await api("GET", `/api/v1/invoices/${invoice.id}`, { apiKey })).body.invoice;
    expect(after).toMatchObject({ status: "EXPIRED", amountDue: null, order: { status: "CANCELLED" } });
    expect(after.closedAt).not.toBeNull();
    const changes = await eventsOf(invoice.id);
    expect(changes.map((e) => [e.type, (e.data as Record<string, unknown>).previousStatus])).toEqual([
      ["invoice.status_changed", "OPEN"],
    ]);
    expect((changes[0].data as { status: string }).status).toBe("EXPIRED");
    expect((await eventsOf(invoice.order.id)).map((e) => (e.data as { status: string }).status)).toEqual(["CANCELLED"]);
    expect((await pay(apiKey, invoice.id)).status).toBe(409);
  });

  it("a read past its last day expires it, even before the sweep", async () => {
    const { apiKey } = await seedMerchant();
    const invoice = await create(apiKey, { daysAfterDue: 0, discount: undefined });
    await age(invoice.id, daysBetween(today, invoice.lastPayableDay) + 1);
    expect((await api("GET", `/api/v1/invoices/${invoice.id}`, { apiKey })).body.invoice.status).toBe("EXPIRED");
  });

  it("the merchant cancels an OPEN invoice: CANCELLED with its order; a second cancel or a paid one is a 409", async () => {
    const { apiKey } = await seedMerchant();
    const invoice = await create(apiKey);
    const res = await api("POST", `/api/v1/invoices/${invoice.id}/cancel`, { apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.invoice).toMatchObject({
      status: "CANCELLED",
      order: { status: "CANCELLED" },
      brcode: expect.any(String),
    });
    const again = await api("POST", `/api/v1/invoices/${invoice.id}/cancel`, { apiKey });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("Invoice is CANCELLED: only an OPEN invoice can be cancelled");
    const paid = await create(apiKey);
    await pay(apiKey, paid.id);
    expect((await api("POST", `/api/v1/invoices/${paid.id}/cancel`, { apiKey })).status).toBe(409);
  });
});

describe("racing a payment and a cancellation", () => {
  it("never deadlocks nor credits twice: each invoice ends PAID or CANCELLED, the ledger has one credit per PAID", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const made = await Promise.all(Array.from({ length: 8 }, () => create(apiKey, { discount: undefined })));
    const answers = await Promise.all(
      made.flatMap((i) => [pay(apiKey, i.id), api("POST", `/api/v1/invoices/${i.id}/cancel`, { apiKey })]),
    );
    for (const a of answers) expect([200, 409], JSON.stringify(a.body)).toContain(a.status);
    const after = await Promise.all(made.map((i) => api("GET", `/api/v1/invoices/${i.id}`, { apiKey })));
    const statuses = after.map((a) => a.body.invoice.status);
    for (const s of statuses) expect(["PAID", "CANCELLED"]).toContain(s);
    const paid = after.filter((a) => a.body.invoice.status === "PAID");
    for (const a of paid) expect(a.body.invoice.order.status).toBe("COMPLETED");
    expect(await credits(merchant.id)).toHaveLength(paid.length);
    expect(await balanceMatchesLedger(merchant.id)).toBe(paid.length * 10000);
  });
});

describe("GET /api/v1/invoices", () => {
  it("pages newest first like GET /orders, filters by status and reference, and never shows another merchant's", async () => {
    const { apiKey } = await seedMerchant();
    const other = await seedMerchant();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await create(apiKey, { reference: `ref-${i % 2}` }));
    await pay(apiKey, made[0].id);
    const first = await api("GET", "/api/v1/invoices?limit=3", { apiKey });
    expect(first.body.invoices.map((i: { id: string }) => i.id)).toEqual(
      made
        .slice(2)
        .reverse()
        .map((i) => i.id),
    );
    const second = await api("GET", `/api/v1/invoices?limit=3&cursor=${first.body.nextCursor}`, { apiKey });
    expect(second.body.invoices.map((i: { id: string }) => i.id)).toEqual(
      made
        .slice(0, 2)
        .reverse()
        .map((i) => i.id),
    );
    expect(second.body.nextCursor).toBeNull();
    const paid = await api("GET", "/api/v1/invoices?status=PAID", { apiKey });
    expect(paid.body.invoices.map((i: { id: string }) => i.id)).toEqual([made[0].id]);
    const byRef = await api("GET", "/api/v1/invoices?reference=ref-1", { apiKey });
    expect(byRef.body.invoices).toHaveLength(2);
    expect((await api("GET", "/api/v1/invoices", { apiKey: other.apiKey })).body.invoices).toEqual([]);
    expect((await api("GET", `/api/v1/invoices/${made[0].id}`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await api("GET", "/api/v1/invoices?cursor=nope", { apiKey })).status).toBe(400);
  });
});

describe("e-mail to the payer", () => {
  it("with notifyPayer: the payer gets the link, through the mail outbox; the invoice says when", async () => {
    const { apiKey } = await seedMerchant({ companyName: "Escola Aurora" });
    const invoice = await create(apiKey, {
      payer: { name: "Maria Souza", cpf: "529.982.247-25", email: "maria.payer@example.com" },
      notifyPayer: true,
    });
    await backgroundMailSettled();
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "maria.payer@example.com"));
    expect(mail.subject).toContain("Escola Aurora");
    expect(mail.body).toContain(invoice.link);
    // Intl writes "R$" and the amount with a no-break space.
    expect(mail.body!.replace(/\s/g, " ")).toContain("Multa de R$ 5,00 se paga após o vencimento");
    const after = (await api("GET", `/api/v1/invoices/${invoice.id}`, { apiKey })).body.invoice;
    expect(after.mailedAt).not.toBeNull();
  });
});

describe("POST /api/v1/invoices/batches", () => {
  it("checks each invoice on its own: refused ones say why, the others are made; GET answers the same", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/invoices/batches", {
      apiKey,
      body: {
        description: "Mensalidades",
        invoices: [
          body({ reference: "a" }),
          body({ value: -1 }),
          body({ reference: "c", dueDate: addDays(today, -3) }),
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.batch).toMatchObject({ status: "DONE", counts: { processing: 0, created: 1, refused: 2 } });
    const items = res.body.batch.items;
    expect(items.map((i: { index: number; status: string }) => [i.index, i.status])).toEqual([
      [0, "CREATED"],
      [1, "REFUSED"],
      [2, "REFUSED"],
    ]);
    expect(items[0].invoice).toMatchObject({ status: "OPEN", reference: "a", batchId: res.body.batch.id });
    expect(items[1].error).toMatch(/value: must be greater than 0/);
    expect(items[2].error).toMatch(/dueDate must be today/);
    const again = await api("GET", `/api/v1/invoices/batches/${res.body.batch.id}`, { apiKey });
    expect(again.body.batch.items.map((i: { status: string }) => i.status)).toEqual(["CREATED", "REFUSED", "REFUSED"]);
    expect((await api("GET", `/api/v1/invoices?batchId=${res.body.batch.id}`, { apiKey })).body.invoices).toHaveLength(
      1,
    );
    // The invoice it made is paid like any other.
    expect((await pay(apiKey, items[0].invoice.id)).body.invoice.status).toBe("PAID");
    expect(await balanceMatchesLedger(merchant.id)).toBe(9000);
  });
});
