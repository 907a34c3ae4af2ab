import bolt11, { type PaymentRequestObject } from "bolt11";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes, sha256 } from "viem";

// Fixed node key for the sandbox Lightning provider only: sha256("pixcrypto sandbox lightning node").
// It is committed to the repo, so invoices signed with it prove nothing about a real node and
// must never be used to receive real payments.
export const SANDBOX_LN_NODE_KEY = "bc61d4ad8ccc5031d3fc60e55aedce6f9080265dbbc5f335bb598850fdba94ca";

const BITCOIN_MAINNET: NonNullable<PaymentRequestObject["network"]> = {
  bech32: "bc",
  pubKeyHash: 0x00,
  scriptHash: 0x05,
  validWitnessVersions: [0, 1],
};

// 21 million BTC: the BOLT11 amount ceiling enforced by decoders.
const MAX_SATOSHIS = 2_100_000_000_000_000;
// BOLT11 raised its default from 9 to 18 blocks; payers treat a shorter delta as unsafe.
const MIN_FINAL_CLTV_EXPIRY = 18;

export type CreateSignedInvoiceArgs = {
  satoshis: number;
  description: string;
  expirySeconds: number;
  nodePrivateKey: string;
  paymentHash?: string;
  timestamp?: number;
  /** The final CLTV delta the payer's HTLC must leave (the `c` tag); 18 when not given. */
  minFinalCltvExpiry?: number;
};

export type SignedInvoice = {
  invoice: string;
  paymentHash: string;
  preimage: string | null;
  payeeNodeKey: string;
  timestamp: number;
  expiresAt: number;
};

function normalizeHex32(value: string, name: string): string {
  const hex = value.startsWith("0x") ? value.slice(2) : value;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${name} must be 32 bytes of hex`);
  return hex.toLowerCase();
}

function randomHex32(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return bytesToHex(bytes).slice(2);
}

export function nodePublicKey(privHex: string): string {
  const key = hexToBytes(`0x${normalizeHex32(privHex, "node private key")}`);
  if (!secp256k1.utils.isValidSecretKey(key)) throw new Error("node private key is not a valid secp256k1 key");
  return bytesToHex(secp256k1.getPublicKey(key, true)).slice(2);
}

export function createSignedInvoice(args: CreateSignedInvoiceArgs): SignedInvoice {
  const { satoshis, description, expirySeconds } = args;
  if (!Number.isSafeInteger(satoshis) || satoshis <= 0 || satoshis > MAX_SATOSHIS) {
    throw new Error(`satoshis must be a positive integer up to 21M BTC, got ${String(satoshis)}`);
  }
  if (!Number.isSafeInteger(expirySeconds) || expirySeconds <= 0) {
    throw new Error(`expirySeconds must be a positive integer, got ${String(expirySeconds)}`);
  }
  if (typeof description !== "string") throw new Error("description must be a string");
  const timestamp = args.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error(`timestamp must be non-negative whole seconds, got ${String(timestamp)}`);
  }
  const privateKey = normalizeHex32(args.nodePrivateKey, "nodePrivateKey");
  const payeeNodeKey = nodePublicKey(privateKey);

  let preimage: string | null = null;
  let paymentHash: string;
  if (args.paymentHash !== undefined) {
    paymentHash = normalizeHex32(args.paymentHash, "paymentHash");
  } else {
    preimage = randomHex32();
    paymentHash = sha256(`0x${preimage}`).slice(2);
  }

  const unsigned = bolt11.encode(
    {
      network: BITCOIN_MAINNET,
      // Millisatoshis as a decimal string keeps the amount exact; the library would otherwise
      // do float arithmetic on the satoshi figure.
      millisatoshis: (BigInt(satoshis) * 1000n).toString(),
      timestamp,
      tags: [
        { tagName: "payment_hash", data: paymentHash },
        // Wallets refuse invoices without a payment secret (it blocks probing by intermediate nodes).
        { tagName: "payment_secret", data: randomHex32() },
        { tagName: "description", data: description },
        { tagName: "expire_time", data: expirySeconds },
        { tagName: "min_final_cltv_expiry", data: args.minFinalCltvExpiry ?? MIN_FINAL_CLTV_EXPIRY },
        {
          tagName: "feature_bits",
          // Both are mandatory on today's network (BOLT 9 "assumed" features), matching what LND/CLN emit.
          data: {
            word_length: 3,
            var_onion_optin: { required: true, supported: false },
            payment_secret: { required: true, supported: false },
          },
        },
      ],
    },
    // Without this, the library silently appends its own defaults (e.g. a 9-block CLTV).
    false,
  );
  const signed = bolt11.sign(unsigned, privateKey);
  if (!signed.paymentRequest || signed.payeeNodeKey !== payeeNodeKey) {
    throw new Error("bolt11 signing did not produce a complete invoice for the node key");
  }

  return {
    invoice: signed.paymentRequest,
    paymentHash,
    preimage,
    payeeNodeKey,
    timestamp,
    expiresAt: timestamp + expirySeconds,
  };
}
