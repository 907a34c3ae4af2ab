import { describe, expect, it } from "vitest";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { api, seedMerchant, specOf } from "./helpers";

// The Crypto-PIX payer's page reads this: what to send and where, progress, and the end (PIX paid,
// or the crypto refunded); public, and nothing private to the merchant.

const code = (amountCentavos: number) =>
  encodeStaticBrCode({
    pixKey: "padaria@example.com",
    merchantName: "Padaria Pao Quente",
    merchantCity: "Sao Paulo",
    amountCentavos,
    txid: "PEDIDO9",
  });

async function newPayment(apiKey: string, amountCentavos = 5400) {
  const res = await api("POST", "/api/v1/crypto-pix/onchain/pay", {
    apiKey,
    body: { qrcode: code(amountCentavos), network: "bsc", asset: "USDT" },
  });
  expect(res.status).toBe(201);
  return res.body.data as { payCryptoPixId: string; address: string; cryptoValue: number };
}

const lookup = (id: string) => api("GET", `/api/v1/public/crypto-pix/${encodeURIComponent(id)}`);
const transfer = (apiKey: string, id: string, body: Record<string, unknown>) =>
  api("POST", `/api/v1/sandbox/crypto-pix/${id}/transfer`, { apiKey, body });

describe("GET /api/v1/public/crypto-pix/{payCryptoPixId}", () => {
  it("→ 200 with what to send, where, and the recipient's key masked; no auth, nothing private", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 12_345 });
    const created = await newPayment(apiKey);
    const res = await lookup(created.payCryptoPixId);
    expect(res.status).toBe(200);
    const p = res.body.payment;
    expect(p).toMatchObject({
      payCryptoPixId: created.payCryptoPixId,
      merchantName: merchant.companyName,
      status: "PENDING",
      value: 54,
      recipientName: "Padaria Pao Quente",
      payment: {
        network: "bsc",
        asset: "USDT",
        address: created.address,
        amount: created.cryptoValue,
        received: 0,
        remaining: created.cryptoValue,
      },
    });
    expect(p.link).toBe(`http://localhost:3000/pay/crypto-pix/${created.payCryptoPixId}`);
    expect(p.payment.qrContent).toMatch(
      new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@56/transfer\\?address=${created.address}&uint256=\\d+$`),
    );
    expect(p.pixKey).not.toBe("padaria@example.com");
    const text = JSON.stringify(res.body);
    for (const secret of [merchant.id, "12345", "123.45", Buffer.from(created.payCryptoPixId, "base64url").toString()])
      expect(text).not.toContain(secret);
  });

  it("shows a partial payment's progress, then the PIX paid with the paying transfer", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newPayment(apiKey);
    await transfer(apiKey, created.payCryptoPixId, { amount: "4" });
    const partial = (await lookup(created.payCryptoPixId)).body.payment;
    expect(partial).toMatchObject({ status: "PARTIAL_ORDER", payment: { received: 4 } });
    expect(partial.payment.remaining).toBeCloseTo(created.cryptoValue - 4, 6);

    const rest = (created.cryptoValue - 4).toFixed(6);
    expect((await transfer(apiKey, created.payCryptoPixId, { amount: rest })).status).toBe(200);
    const done = (await lookup(created.payCryptoPixId)).body.payment;
    expect(done.status).toBe("COMPLETED");
    expect(typeof done.paidAt).toBe("string");
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("shows the refund when the PIX cannot be paid", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newPayment(apiKey);
    await transfer(apiKey, created.payCryptoPixId, { amount: String(created.cryptoValue), failPix: true });
    const p = (await lookup(created.payCryptoPixId)).body.payment;
    expect(p.refund).toMatchObject({ amount: created.cryptoValue });
    expect(["PENDING", "COMPLETED"]).toContain(p.refund.status);
  });

  it("→ 404 { message } for an unknown or malformed id", async () => {
    for (const id of [
      "bm90LWEtdXVpZA",
      Buffer.from("7d9f0335-8dcc-4054-9bf9-0dbd61d36906").toString("base64url"),
      "bad$id",
    ]) {
      const res = await lookup(id);
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    }
  });
});
