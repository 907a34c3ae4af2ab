import { bech32 } from "bech32";
import { sql } from "drizzle-orm";
import { db } from "@/db";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { centavosToBrl, fromBaseUnits } from "@/lib/money";
import { createSignedInvoice, nodePublicKey, SANDBOX_LN_NODE_KEY } from "./bolt11-sign";
import type { LightningProvider } from "./types";

const NODE_PUBKEY = nodePublicKey(SANDBOX_LN_NODE_KEY);

// The on-chain fallback address OpenNode-style charges carry: a native SegWit (P2WPKH) address of
// the sandbox node's key, so the field holds a real, valid Bitcoin address.
const FALLBACK_ADDRESS = (() => {
  const hash160 = ripemd160(sha256(Buffer.from(NODE_PUBKEY, "hex")));
  return bech32.encode("bc", [0, ...bech32.toWords(hash160)]);
})();

export const sandboxLightning: LightningProvider = {
  name: "sandbox-lightning",
  async createInvoice({ satoshis, description, expirySeconds }) {
    const signed = createSignedInvoice({ satoshis, description, expirySeconds, nodePrivateKey: SANDBOX_LN_NODE_KEY });
    return {
      id: signed.paymentHash,
      invoice: signed.invoice,
      paymentHash: signed.paymentHash,
      createdAt: new Date(signed.timestamp * 1000),
      expiresAt: new Date(signed.expiresAt * 1000),
    };
  },
  // Hold invoices: the sandbox's node is this table's state; the sandbox helper plays the payer.
  async createHoldInvoice({ paymentHash, satoshis, description, expirySeconds }) {
    const signed = createSignedInvoice({
      satoshis,
      description,
      expirySeconds,
      nodePrivateKey: SANDBOX_LN_NODE_KEY,
      paymentHash,
    });
    return {
      id: signed.paymentHash,
      invoice: signed.invoice,
      paymentHash: signed.paymentHash,
      createdAt: new Date(signed.timestamp * 1000),
      expiresAt: new Date(signed.expiresAt * 1000),
    };
  },
  async settleHoldInvoice() {},
  // The sandbox node holds the satoshis of the invoices paid to it: orders, and Crypto-PIX hold
  // invoices it settled (their payers' sats became ours when the PIX was made).
  async balance() {
    const [row] = await db().execute<{ sats: string }>(sql`
      select (
        coalesce((select sum(satoshis) from orders where kind = 'lightning' and provider = ${sandboxLightning.name} and paid_at is not null), 0)
        + coalesce((select sum(satoshis) from crypto_pix_invoices where provider = ${sandboxLightning.name} and state = 'settled'), 0)
      )::text as sats`);
    return { currency: "BTC", amount: fromBaseUnits(BigInt(row.sats), 8) };
  },
  async cancelHoldInvoice() {},
  async describe(state) {
    return {
      success: true,
      data: {
        id: state.id,
        name: state.name,
        status: state.status,
        currency: "BRL",
        created_at: Math.floor(state.createdAt.getTime() / 1000),
        fee: 0,
        notes: "",
        address: FALLBACK_ADDRESS,
        metadata: { source: "sandbox" },
        fiat_value: centavosToBrl(state.fiatCentavos),
        amount: state.satoshis,
        description: state.description,
        auto_settle: false,
        transactions: [],
      },
    };
  },
};
