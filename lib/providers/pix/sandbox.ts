import { randomUUID } from "node:crypto";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { staticBrCodeEncoder, type BrCodeReceiver } from "@/lib/pix/brcode";
import type { PixProvider } from "./types";

/** Payouts to this key fail in the sandbox, so merchants can exercise their failure handling. */
export const SANDBOX_FAILING_PIX_KEY = "payout.fail@example.com";

// The receiver's half of every code is validated and encoded once per configuration, not per order.
let encoder: { receiver: BrCodeReceiver; encode: ReturnType<typeof staticBrCodeEncoder> } | null = null;

function receiverEncoder() {
  const e = env();
  const receiver = { pixKey: e.PIX_RECEIVER_KEY, merchantName: e.PIX_RECEIVER_NAME, merchantCity: e.PIX_RECEIVER_CITY };
  const same = encoder && (Object.keys(receiver) as (keyof BrCodeReceiver)[]).every((k) => encoder!.receiver[k] === receiver[k]);
  if (!same) encoder = { receiver, encode: staticBrCodeEncoder(receiver) };
  return encoder!.encode;
}

export const sandboxPix: PixProvider = {
  name: "sandbox-pix",
  async createCollection({ valueCentavos, txid, description }) {
    const brcode = receiverEncoder()({ amountCentavos: valueCentavos, txid, description });
    return { brcode, provider: "sandbox-pix", providerRef: txid };
  },
  async resolveDynamic() {
    // The sandbox only ever issues static codes, so any dynamic code came from elsewhere and
    // cannot be resolved without a live PSP.
    throw new InvalidInput(
      "Dynamic PIX QR codes cannot be resolved in sandbox mode: use a static BR Code (with or without an amount)",
    );
  },
  async sendPayout({ pixKey }) {
    const id = `E${randomUUID().replace(/-/g, "").slice(0, 31)}`;
    if (pixKey.toLowerCase() === SANDBOX_FAILING_PIX_KEY) {
      return { id, status: "FAILED", reason: "Recipient bank rejected the transfer (sandbox failing key)" };
    }
    return { id, status: "COMPLETED" };
  },
};
