import { env, type Env } from "@/lib/env";
import { newPixTxid } from "@/lib/ids";
import { staticBrCodeEncoder } from "@/lib/pix/brcode";
import { sandboxRefunder } from "../refund/sandbox";
import type { PixProvider } from "./types";

// The receiver's half of every code is validated and encoded once per configuration, not per order.
const encoders = new WeakMap<Env, ReturnType<typeof staticBrCodeEncoder>>();

/** The static-code encoder of the service's receiving key (PIX_RECEIVER_*): the sandbox's codes, orders' and invoices'. */
export function receiverEncoder() {
  const e = env();
  let encode = encoders.get(e);
  if (!encode) {
    encode = staticBrCodeEncoder({
      pixKey: e.PIX_RECEIVER_KEY,
      merchantName: e.PIX_RECEIVER_NAME,
      merchantCity: e.PIX_RECEIVER_CITY,
    });
    encoders.set(e, encode);
  }
  return encode;
}

export const sandboxPix: PixProvider = {
  name: "sandbox-pix",
  async createCollection({ valueCentavos, description }) {
    // A static code's txid (field 62-05) holds at most 25 characters.
    const txid = newPixTxid();
    const brcode = receiverEncoder()({ amountCentavos: valueCentavos, txid, description });
    return { brcode, txid, provider: "sandbox-pix", providerRef: txid };
  },
  async cancelCollection() {
    return "removed";
  },
  // The sandbox's payments are made by its helpers and applied directly; it has nothing to report.
  async readPayment() {
    return null;
  },
  ...sandboxRefunder,
};
