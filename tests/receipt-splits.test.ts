import { describe, expect, it } from "vitest";
import { setReceiptShowsSplits } from "@/lib/merchants/service";
import { receiptForm } from "@/lib/dashboard/schemas";
import { api, seedMerchant } from "./helpers";

// The payer's receipt and a split (docs/api.md#public-payments-and-splits): GET
// /api/v1/public/payments/{paymentLinkId}, which the hosted checkout's receipt renders, says nothing
// of the split unless the merchant chose to show it in Settings; then each recipient's name and part.

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
    const { merchant, linkId, plainLinkId } = await splitSale();
    await setReceiptShowsSplits(merchant.id, true);
    const payment = await publicView(linkId);
    expect(payment.splits).toEqual([
      { name: "Maria Souza Doces", value: 30 },
      { name: "João Lima", value: 12.5 },
    ]);
    // Names and parts only: no ids, documents or keys of the recipients.
    expect(JSON.stringify(payment.splits)).not.toMatch(/recipientId|52998224725|@example\.com/);
    // An order without a split has none to show.
    expect((await publicView(plainLinkId)).splits).toBeUndefined();
    await setReceiptShowsSplits(merchant.id, false);
    expect((await publicView(linkId)).splits).toBeUndefined();
  });

  it("the dashboard's form: a ticked box turns it on, an unticked one off", () => {
    const on = new FormData();
    on.set("receiptShowsSplits", "on");
    expect(receiptForm.parse(on)).toEqual({ receiptShowsSplits: "on" });
    expect(receiptForm.parse(new FormData())).toEqual({});
  });
});
