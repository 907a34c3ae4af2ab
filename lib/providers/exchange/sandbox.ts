import { randomBase62 } from "@/lib/ids";
import { sandboxRefunder } from "../refund/sandbox";
import type { ExchangeWalletProvider } from "./types";

export const sandboxExchange: ExchangeWalletProvider = {
  name: "sandbox-exchange",
  async createPayment({ payLink }) {
    // The payer's exchange app opens the hosted payment page, which shows the amount and status.
    return { providerRef: `exw_${randomBase62(20)}`, qrContent: payLink };
  },
  ...sandboxRefunder,
};
