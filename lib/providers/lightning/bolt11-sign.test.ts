import { describe, it, expect } from "vitest";
import bolt11 from "bolt11";
import { sha256, toHex } from "viem";
import { SANDBOX_LN_NODE_KEY, createSignedInvoice, nodePublicKey } from "./bolt11-sign";

const TS = 1_700_000_000;

function tag(decoded: ReturnType<typeof bolt11.decode>, name: string) {
  return decoded.tags.find((t) => t.tagName === name)?.data;
}

describe("nodePublicKey", () => {
  it("returns the compressed 33-byte key", () => {
    // Private key 1 maps to the generator point G.
    expect(nodePublicKey("00".repeat(31) + "01")).toBe(
      "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    );
    expect(nodePublicKey(SANDBOX_LN_NODE_KEY)).toMatch(/^0[23][0-9a-f]{64}$/);
  });

  it("rejects malformed or out-of-range keys", () => {
    expect(() => nodePublicKey("abcd")).toThrow(/32 bytes/);
    expect(() => nodePublicKey("00".repeat(32))).toThrow(/not a valid/);
    expect(() => nodePublicKey("ff".repeat(32))).toThrow(/not a valid/);
  });
});

describe("SANDBOX_LN_NODE_KEY", () => {
  it("is the transparent sha256 of its label (nothing up the sleeve)", () => {
    expect(`0x${SANDBOX_LN_NODE_KEY}`).toBe(sha256(toHex("pixcrypto sandbox lightning node")));
  });
});

describe("createSignedInvoice", () => {
  for (const satoshis of [1, 21, 123_456_789]) {
    it(`encodes exactly ${satoshis} sat, signed by the node key`, () => {
      const created = createSignedInvoice({
        satoshis,
        description: "Pedido #42 — café",
        expirySeconds: 900,
        nodePrivateKey: SANDBOX_LN_NODE_KEY,
        timestamp: TS,
      });
      const decoded = bolt11.decode(created.invoice);

      expect(created.invoice.startsWith("lnbc")).toBe(true);
      expect(decoded.network?.bech32).toBe("bc");
      expect(decoded.satoshis).toBe(satoshis);
      expect(decoded.millisatoshis).toBe(String(satoshis * 1000));
      // decode() recovers the signer rather than checking it, so the signer must be compared here.
      expect(decoded.payeeNodeKey).toBe(nodePublicKey(SANDBOX_LN_NODE_KEY));
      expect(created.payeeNodeKey).toBe(decoded.payeeNodeKey);

      expect(decoded.timestamp).toBe(TS);
      expect(created.timestamp).toBe(TS);
      expect(decoded.timeExpireDate).toBe(TS + 900);
      expect(created.expiresAt).toBe(TS + 900);
      expect(tag(decoded, "expire_time")).toBe(900);
      expect(tag(decoded, "description")).toBe("Pedido #42 — café");
      expect(tag(decoded, "min_final_cltv_expiry")).toBe(18);

      expect(created.preimage).toMatch(/^[0-9a-f]{64}$/);
      expect(tag(decoded, "payment_hash")).toBe(created.paymentHash);
      expect(`0x${created.paymentHash}`).toBe(sha256(`0x${created.preimage}`));

      expect(decoded.tagsObject.payment_secret).toMatch(/^[0-9a-f]{64}$/);
      expect(decoded.tagsObject.feature_bits?.payment_secret?.required).toBe(true);
      expect(decoded.tagsObject.feature_bits?.var_onion_optin?.required).toBe(true);
    });
  }

  it("uses a caller-supplied payment hash and returns no preimage", () => {
    const paymentHash = "AB".repeat(32);
    const created = createSignedInvoice({
      satoshis: 1000,
      description: "",
      expirySeconds: 60,
      nodePrivateKey: SANDBOX_LN_NODE_KEY,
      paymentHash,
      timestamp: TS,
    });
    expect(created.preimage).toBeNull();
    expect(created.paymentHash).toBe("ab".repeat(32));
    expect(bolt11.decode(created.invoice).tagsObject.payment_hash).toBe("ab".repeat(32));
  });

  it("signs with whichever node key it is given", () => {
    const otherKey = "11".repeat(32);
    const created = createSignedInvoice({
      satoshis: 5,
      description: "x",
      expirySeconds: 60,
      nodePrivateKey: otherKey,
      timestamp: TS,
    });
    const payee = bolt11.decode(created.invoice).payeeNodeKey;
    expect(payee).toBe(nodePublicKey(otherKey));
    expect(payee).not.toBe(nodePublicKey(SANDBOX_LN_NODE_KEY));
  });

  it("gives fresh preimages, secrets and invoices per call", () => {
    const args = {
      satoshis: 10,
      description: "d",
      expirySeconds: 60,
      nodePrivateKey: SANDBOX_LN_NODE_KEY,
      timestamp: TS,
    };
    const a = createSignedInvoice(args);
    const b = createSignedInvoice(args);
    expect(a.preimage).not.toBe(b.preimage);
    expect(a.paymentHash).not.toBe(b.paymentHash);
    expect(a.invoice).not.toBe(b.invoice);
  });

  it("defaults the timestamp to now", () => {
    const before = Math.floor(Date.now() / 1000);
    const created = createSignedInvoice({
      satoshis: 1,
      description: "",
      expirySeconds: 60,
      nodePrivateKey: SANDBOX_LN_NODE_KEY,
    });
    const after = Math.floor(Date.now() / 1000);
    expect(created.timestamp).toBeGreaterThanOrEqual(before);
    expect(created.timestamp).toBeLessThanOrEqual(after);
    expect(bolt11.decode(created.invoice).timestamp).toBe(created.timestamp);
  });

  it("rejects invalid input", () => {
    const base = {
      satoshis: 1,
      description: "",
      expirySeconds: 60,
      nodePrivateKey: SANDBOX_LN_NODE_KEY,
      timestamp: TS,
    };
    for (const satoshis of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, 2_100_000_000_000_001]) {
      expect(() => createSignedInvoice({ ...base, satoshis })).toThrow(/satoshis/);
    }
    for (const expirySeconds of [0, -5, 2.5]) {
      expect(() => createSignedInvoice({ ...base, expirySeconds })).toThrow(/expirySeconds/);
    }
    expect(() => createSignedInvoice({ ...base, timestamp: -1 })).toThrow(/timestamp/);
    expect(() => createSignedInvoice({ ...base, nodePrivateKey: "zz" })).toThrow(/32 bytes/);
    expect(() => createSignedInvoice({ ...base, paymentHash: "00" })).toThrow(/paymentHash/);
    expect(() => createSignedInvoice({ ...base, description: "é".repeat(400) })).toThrow(/Description is too long/);
  });
});
