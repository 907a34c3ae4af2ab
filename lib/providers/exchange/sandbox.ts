import { sql } from "drizzle-orm";
import { db } from "@/db";
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
  // The sandbox's wallet holds what its orders were paid, in reais (it converts nothing), less the
  // refunds it made: read from what the sandbox recorded, so the solvency report has a true figure.
  async balance() {
    const [row] = await db().execute<{ centavos: string }>(sql`
      select (
        coalesce((select sum(value_centavos) from orders where kind = 'exchange' and provider = ${sandboxExchange.name} and paid_at is not null), 0)
        - coalesce((select sum(value_centavos) from order_refunds where provider = ${sandboxExchange.name} and status = 'COMPLETED'), 0)
      )::text as centavos`);
    return { currency: "BRL", centavos: Number(row.centavos) };
  },
};
