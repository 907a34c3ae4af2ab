import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { apiKeys, auditEvents } from "@/db/schema";
import { createApiKey, updateMerchantSettings } from "@/lib/merchants/service";
import { receiptForm } from "@/lib/dashboard/schemas";
import { API_KEY_ACTOR_PREFIX, actionText, auditDetail, auditDetailText } from "@/lib/identity/audit-text";
import { translator } from "@/lib/i18n";
import { api, seedMerchant } from "./helpers";

// The payer's receipt and a split (docs/api.md#public-payments-and-splits): GET
// /api/v1/public/payments/{paymentLinkId}, which the hosted checkout's receipt renders, says nothing
// of the split unless the merchant chose to show it (dashboard Settings, or PATCH
// /api/v1/account/settings); then each recipient's name and part. Every change is on the audit trail.

async function splitSale() {
  const seeded = await seedMerchant();
  const { apiKey } = seeded;
  const made = async (name: string, document: string, pixKey: string) =>
    (await api("POST", "/api/v1/recipients", { apiKey, body: { name, document, pixKey } })).body.recipient.id;
  const maria = await made("Maria Souza Doces", "52998224725", "maria@example.com");
  const joao = await made("João Lima", "11144477735", "joao@example.com");
  const order = await api("POST", "/api/v1/order/create/pix", {
    apiKey,
    body: {
      value: 100,
      splits: [
        { recipientId: maria, value: 30 },
        { recipientId: joao, percentage: 12.5 },
      ],
    },
  });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  const paid = await api("POST", `/api/v1/sandbox/orders/${order.body.pixOrder._id}/pay`, { apiKey });
  expect(paid.status).toBe(200);
  const plain = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
  return { ...seeded, linkId: order.body.pixOrder.paymentLinkId, plainLinkId: plain.body.pixOrder.paymentLinkId };
}

const publicView = async (linkId: string) => {
  const res = await api("GET", `/api/v1/public/payments/${linkId}`);
  expect(res.status).toBe(200);
  return res.body.payment;
};

describe("the payer's receipt and a split", () => {
  it("by default shows nothing of it: no splits, no recipient's name anywhere", async () => {
    const { linkId } = await splitSale();
    const payment = await publicView(linkId);
    expect(payment.status).toBe("COMPLETED");
    expect(payment.splits).toBeUndefined();
    expect(JSON.stringify(payment)).not.toContain("Maria");
  });

  it("with the merchant's setting on: each recipient's name and part, in order; off again hides them", async () => {
    const { apiKey, linkId, plainLinkId } = await splitSale();
    const on = await api("PATCH", "/api/v1/account/settings", { apiKey, body: { receiptShowsSplits: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toEqual({ settings: { receiptShowsSplits: true } });
    const payment = await publicView(linkId);
    expect(payment.splits).toEqual([
      { name: "Maria Souza Doces", value: 30 },
      { name: "João Lima", value: 12.5 },
    ]);
    // Names and parts only: no ids, documents or keys of the recipients.
    expect(JSON.stringify(payment.splits)).not.toMatch(/recipientId|52998224725|@example\.com/);
    // An order without a split has none to show.
    expect((await publicView(plainLinkId)).splits).toBeUndefined();
    await api("PATCH", "/api/v1/account/settings", { apiKey, body: { receiptShowsSplits: false } });
    expect((await publicView(linkId)).splits).toBeUndefined();
  });

  it("the settings endpoint: read, changed by a key, each change audited in its transaction, a repeat not", async () => {
    const { merchant, apiKey } = await splitSale();
    const read = async () => (await api("GET", "/api/v1/account/settings", { apiKey })).body;
    expect(await read()).toEqual({ settings: { receiptShowsSplits: false } });
    const trail = () =>
      db()
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.merchantId, merchant.id), eq(auditEvents.action, "receipt.splitsChanged")))
        .orderBy(asc(auditEvents.id));

    const patch = (body: unknown) => api("PATCH", "/api/v1/account/settings", { apiKey, body });
    expect((await patch({ receiptShowsSplits: true })).status).toBe(200);
    // The same value again, and an empty change: answered, nothing written.
    expect((await patch({ receiptShowsSplits: true })).body).toEqual({ settings: { receiptShowsSplits: true } });
    expect((await patch({})).body).toEqual({ settings: { receiptShowsSplits: true } });
    expect(await read()).toEqual({ settings: { receiptShowsSplits: true } });
    const [key] = await db().select().from(apiKeys).where(eq(apiKeys.merchantId, merchant.id));
    let rows = await trail();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor: `${API_KEY_ACTOR_PREFIX}${key.id}`,
      target: merchant.id,
      details: { shown: true },
    });

    // The dashboard's action goes through the same call, with the signed-in member as the actor.
    const member = { merchantId: merchant.id, userId: null, email: "ana@example.com", ip: "203.0.113.9" };
    expect(await updateMerchantSettings(member, { receiptShowsSplits: false })).toEqual({ receiptShowsSplits: false });
    rows = await trail();
    expect(rows.map((r) => [r.actor, r.details])).toEqual([
      [`${API_KEY_ACTOR_PREFIX}${key.id}`, { shown: true }],
      ["ana@example.com", { shown: false }],
    ]);
    const t = translator("pt-BR");
    expect(actionText(t, "receipt.splitsChanged")).toBe("Recibo do pagador alterado");
    expect(auditDetailText(t, auditDetail(t, "pt-BR", rows[1].action, rows[1].details)!)).toMatch(/^Desativado/);

    // A non-boolean is refused as any body field is; a read-only key may read but not change.
    expect((await patch({ receiptShowsSplits: "yes" })).status).toBe(400);
    const reader = await createApiKey(merchant.id, "reader", { mode: "sandbox", scopes: ["read"] });
    expect((await api("GET", "/api/v1/account/settings", { apiKey: reader.key })).status).toBe(200);
    const refused = await api("PATCH", "/api/v1/account/settings", {
      apiKey: reader.key,
      body: { receiptShowsSplits: true },
    });
    expect(refused.status).toBe(403);
    expect((await read()).settings.receiptShowsSplits).toBe(false);
    expect((await trail()).length).toBe(2);
  });

  it("the dashboard's form: a ticked box turns it on, an unticked one off", () => {
    const on = new FormData();
    on.set("receiptShowsSplits", "on");
    expect(receiptForm.parse(on)).toEqual({ receiptShowsSplits: "on" });
    expect(receiptForm.parse(new FormData())).toEqual({});
  });
});
