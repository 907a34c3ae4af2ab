import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { payoutDestinations, pixPayouts, recipientLedgerEntries, recipients } from "@/db/schema";
import { advancePayout } from "@/lib/pix-payouts/machine";
import { SANDBOX_FAILING_PIX_KEY } from "@/lib/providers/payout/sandbox";
import { postRecipientEntry, recipientLedgerSum } from "@/lib/recipients/ledger";
import { PAYOUT_OWNERS } from "@/lib/worker/owners";
import { api, seedMerchant } from "./helpers";

// The recipients API (docs/api.md#recipients) against the real handlers and PostgreSQL: keyed
// creation, validation, paging, tenancy, the payout key's hold (the same payout_destinations rule as
// the merchant's own destinations), payouts through the PIX payout machine, and balance = ledger.

// Valid CPFs (check digits right), one per recipient of a merchant.
const CPFS = ["52998224725", "11144477735", "39053344705", "86288366757", "71428793860"];
const CNPJ = "11.222.333/0001-81";

async function create(apiKey: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const res = await api("POST", "/api/v1/recipients", {
    apiKey,
    headers,
    body: { name: "Maria Souza", document: CPFS[0], pixKey: "maria@example.com", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.recipient;
}

/** A split part credited to the recipient, as order confirmation does (lib/recipients/ledger.ts). */
const credit = (merchantId: string, recipientId: string, amountCentavos: number) =>
  db().transaction((tx) =>
    postRecipientEntry(tx, {
      merchantId,
      recipientId,
      kind: "split_credit",
      amountCentavos,
      refType: "order_split",
      refId: randomUUID(),
    }),
  );

const payout = (apiKey: string, id: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  api("POST", `/api/v1/recipients/${id}/payouts`, { apiKey, body, headers });

async function expectBalanceIsLedger(recipientId: string, centavos: number) {
  const [row] = await db().select().from(recipients).where(eq(recipients.id, recipientId));
  expect(row.balanceCentavos).toBe(centavos);
  expect(await recipientLedgerSum(db(), recipientId)).toBe(centavos);
}

/** Ends the hold of a merchant's destination, as the clock passing DESTINATION_HOLD_HOURS would. */
const endHold = (merchantId: string, value: string) =>
  db()
    .update(payoutDestinations)
    .set({ holdUntil: sql`now() - interval '1 second'` })
    .where(and(eq(payoutDestinations.merchantId, merchantId), eq(payoutDestinations.value, value)));

describe("POST /api/v1/recipients", () => {
  it("→ 201 with the masked document and key, a zero balance; an Idempotency-Key repeat answers the same", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const headers = { "idempotency-key": `rc-${randomUUID()}` };
    const body = { document: "529.982.247-25", email: "maria@example.com", reference: "seller-1" };
    const r = await create(apiKey, body, headers);
    expect(r).toMatchObject({
      name: "Maria Souza",
      document: "***.982.247-**",
      documentType: "cpf",
      pixKey: "m***@example.com",
      pixKeyType: "email",
      pixKeyUsableAt: null,
      email: "maria@example.com",
      reference: "seller-1",
      balance: 0,
      status: "ACTIVE",
    });
    const again = await api("POST", "/api/v1/recipients", {
      apiKey,
      headers,
      body: { name: "Maria Souza", pixKey: "maria@example.com", ...body },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.recipient.id).toBe(r.id);
    const rows = await db().select().from(recipients).where(eq(recipients.merchantId, merchant.id));
    expect(rows).toHaveLength(1);
    // Its key is one of the merchant's destinations, recorded without a hold.
    const [dest] = await db()
      .select()
      .from(payoutDestinations)
      .where(and(eq(payoutDestinations.merchantId, merchant.id), eq(payoutDestinations.value, "maria@example.com")));
    expect(dest).toMatchObject({ kind: "pix_key", status: "held", holdUntil: null });
  });

  it("→ 400 validation_failed naming document for wrong check digits, and pixKey for a bad key", async () => {
    const { apiKey } = await seedMerchant();
    const bad = await api("POST", "/api/v1/recipients", {
      apiKey,
      body: { name: "X", document: "529.982.247-26", pixKey: "maria@example.com" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("validation_failed");
    expect(bad.body.fields.map((f: { field: string }) => f.field)).toEqual(["document"]);
    const key = await api("POST", "/api/v1/recipients", {
      apiKey,
      body: { name: "X", document: CNPJ, pixKey: "not a key" },
    });
    expect(key.status).toBe(400);
    expect(key.body.fields.map((f: { field: string }) => f.field)).toEqual(["pixKey"]);
    // A CNPJ is accepted too.
    expect((await create(apiKey, { document: CNPJ })).documentType).toBe("cnpj");
  });

  it("→ 409 recipient_document_taken for a second recipient with the same document", async () => {
    const { apiKey } = await seedMerchant();
    await create(apiKey);
    const dup = await api("POST", "/api/v1/recipients", {
      apiKey,
      body: { name: "Outra", document: "529.982.247-25", pixKey: "outra@example.com" },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: "recipient_document_taken", message: expect.any(String) });
    // Another merchant may have the same person as a recipient.
    await create((await seedMerchant()).apiKey);
  });
});

describe("GET /api/v1/recipients", () => {
  it("pages newest first with nextCursor like every list, and shows only the merchant's own", async () => {
    const { apiKey } = await seedMerchant();
    const made = [];
    for (const document of CPFS.slice(0, 3)) made.push(await create(apiKey, { document }));
    await create((await seedMerchant()).apiKey);
    const first = await api("GET", "/api/v1/recipients?limit=2", { apiKey });
    expect(first.status).toBe(200);
    expect(first.body.recipients.map((r: { id: string }) => r.id)).toEqual([made[2].id, made[1].id]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api("GET", `/api/v1/recipients?limit=2&cursor=${first.body.nextCursor}`, { apiKey });
    expect(second.body.recipients.map((r: { id: string }) => r.id)).toEqual([made[0].id]);
    expect(second.body.nextCursor).toBeNull();
    const bad = await api("GET", "/api/v1/recipients?cursor=nonsense", { apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Invalid cursor");
  });
});

describe("another merchant's recipient", () => {
  it("→ 404 { message } on every endpoint, like an unknown id", async () => {
    const theirs = await create((await seedMerchant()).apiKey);
    const { apiKey } = await seedMerchant();
    const calls = [
      api("GET", `/api/v1/recipients/${theirs.id}`, { apiKey }),
      api("PATCH", `/api/v1/recipients/${theirs.id}`, { apiKey, body: { name: "Mine now" } }),
      api("GET", `/api/v1/recipients/${theirs.id}/statement`, { apiKey }),
      payout(apiKey, theirs.id, { value: 1 }),
      api("GET", `/api/v1/recipients/${randomUUID()}`, { apiKey }),
      api("GET", "/api/v1/recipients/not-a-uuid", { apiKey }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ message: "Recipient not found", code: "not_found" });
    }
  });
});

describe("PATCH /api/v1/recipients/{id}", () => {
  it("a new pixKey is a held destination: payouts refused until the hold ends, then paid", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey);
    await credit(merchant.id, r.id, 10_000);
    const patched = await api("PATCH", `/api/v1/recipients/${r.id}`, {
      apiKey,
      body: { pixKey: "+5511987654321", email: null, name: "Maria S." },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.recipient).toMatchObject({ name: "Maria S.", email: null, pixKeyType: "phone" });
    const usableAt = Date.parse(patched.body.recipient.pixKeyUsableAt);
    expect(usableAt).toBeGreaterThan(Date.now() + 23 * 3_600_000);

    const held = await payout(apiKey, r.id, { value: 10 });
    expect(held.status).toBe(400);
    expect(held.body.code).toBe("recipient_pix_key_held");
    await expectBalanceIsLedger(r.id, 10_000);

    await endHold(merchant.id, "+5511987654321");
    const got = await api("GET", `/api/v1/recipients/${r.id}`, { apiKey });
    expect(got.body.recipient.pixKeyUsableAt).toBeNull();
    const paid = await payout(apiKey, r.id, { value: 10 });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.payout).toMatchObject({ status: "PENDING", value: 10, amount: 1000 });
    await expectBalanceIsLedger(r.id, 9_000);
  });

  it("an owner's confirmation releases a held key before the hold ends", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey);
    await credit(merchant.id, r.id, 500);
    await api("PATCH", `/api/v1/recipients/${r.id}`, { apiKey, body: { pixKey: "nova@example.com" } });
    expect((await payout(apiKey, r.id)).body.code).toBe("recipient_pix_key_held");
    await db()
      .update(payoutDestinations)
      .set({ status: "confirmed", confirmedAt: sql`now()` })
      .where(and(eq(payoutDestinations.merchantId, merchant.id), eq(payoutDestinations.value, "nova@example.com")));
    expect((await payout(apiKey, r.id)).status).toBe(201);
  });

  it("DISABLED stops payouts; ACTIVE again allows them", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey);
    await credit(merchant.id, r.id, 500);
    const off = await api("PATCH", `/api/v1/recipients/${r.id}`, { apiKey, body: { status: "DISABLED" } });
    expect(off.body.recipient.status).toBe("DISABLED");
    expect((await payout(apiKey, r.id)).body.code).toBe("recipient_disabled");
    await api("PATCH", `/api/v1/recipients/${r.id}`, { apiKey, body: { status: "ACTIVE" } });
    expect((await payout(apiKey, r.id)).status).toBe(201);
  });
});

describe("POST /api/v1/recipients/{id}/payouts", () => {
  it("debits the recipient's ledger exactly once per Idempotency-Key; COMPLETED leaves it debited", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey);
    await credit(merchant.id, r.id, 10_000);
    const headers = { "idempotency-key": `rp-${randomUUID()}` };
    const first = await payout(apiKey, r.id, { value: 40 }, headers);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await payout(apiKey, r.id, { value: 40 }, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.payout.id).toBe(first.body.payout.id);
    const debits = await db()
      .select()
      .from(recipientLedgerEntries)
      .where(and(eq(recipientLedgerEntries.recipientId, r.id), eq(recipientLedgerEntries.kind, "payout_debit")));
    expect(debits.map((d) => d.amountCentavos)).toEqual([-4000]);
    await expectBalanceIsLedger(r.id, 6_000);

    const [pix] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, first.body.payout.id));
    expect(pix).toMatchObject({ purpose: "recipient_payout", pixKey: "maria@example.com", valueCentavos: 4000 });
    expect(await advancePayout(pix.id, PAYOUT_OWNERS)).toBe(true);
    await expectBalanceIsLedger(r.id, 6_000);

    const statement = await api("GET", `/api/v1/recipients/${r.id}/statement`, { apiKey });
    expect(statement.status).toBe(200);
    expect(statement.body.balance).toBe(60);
    expect(
      statement.body.entries.map((e: { kind: string; amount: number; balanceAfter: number }) => [
        e.kind,
        e.amount,
        e.balanceAfter,
      ]),
    ).toEqual([
      ["payout_debit", -40, 60],
      ["split_credit", 100, 100],
    ]);
    // The merchant's own balance is its part only.
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBe(0);
  });

  it("without value pays the whole balance; above the balance → 400 recipient_balance_insufficient", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey);
    expect((await payout(apiKey, r.id)).body.code).toBe("recipient_balance_insufficient");
    await credit(merchant.id, r.id, 1_234);
    const over = await payout(apiKey, r.id, { value: 12.35 });
    expect(over.status).toBe(400);
    expect(over.body.code).toBe("recipient_balance_insufficient");
    const all = await payout(apiKey, r.id);
    expect(all.body.payout.value).toBe(12.34);
    await expectBalanceIsLedger(r.id, 0);
    expect((await payout(apiKey, r.id, { value: 0.01 })).body.code).toBe("recipient_balance_insufficient");
  });

  it("concurrent payouts never spend one balance twice", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey);
    await credit(merchant.id, r.id, 1_000);
    const results = await Promise.all(Array.from({ length: 5 }, () => payout(apiKey, r.id, { value: 4 })));
    expect(results.filter((res) => res.status === 201)).toHaveLength(2);
    expect(results.filter((res) => res.status === 400)).toHaveLength(3);
    await expectBalanceIsLedger(r.id, 200);
  });

  it("a PIX the provider did not make is credited back to the recipient once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const r = await create(apiKey, { pixKey: SANDBOX_FAILING_PIX_KEY });
    await credit(merchant.id, r.id, 2_000);
    const res = await payout(apiKey, r.id, { value: 15 });
    expect(res.status).toBe(201);
    await expectBalanceIsLedger(r.id, 500);
    const [pix] = await db().select().from(pixPayouts).where(eq(pixPayouts.ownerId, res.body.payout.id));
    expect(await advancePayout(pix.id, PAYOUT_OWNERS)).toBe(true);
    expect(await advancePayout(pix.id, PAYOUT_OWNERS)).toBe(true);
    await expectBalanceIsLedger(r.id, 2_000);
    const statement = await api("GET", `/api/v1/recipients/${r.id}/statement?limit=1`, { apiKey });
    expect(statement.body.entries[0]).toMatchObject({ kind: "payout_reversal", amount: 15, balanceAfter: 20 });
    const rest = await api("GET", `/api/v1/recipients/${r.id}/statement?limit=5&cursor=${statement.body.nextCursor}`, {
      apiKey,
    });
    expect(rest.body.entries.map((e: { balanceAfter: number }) => e.balanceAfter)).toEqual([5, 20]);
    expect(rest.body.balance).toBe(20);
  });
});
