import { createHmac, timingSafeEqual } from "node:crypto";
import bolt11 from "bolt11";
import { z } from "zod";
import { env, publicBaseUrl } from "@/lib/env";
import { centavosToBrl } from "@/lib/money";
import { requestJson } from "@/lib/providers/http/client";
import { storedDetails } from "./stored-details";
import type { InvoiceState, LightningProvider, LightningProviderDetails, RemoteInvoice } from "./types";

// Lightning through OpenNode's charge API (LIGHTNING_API_URL, LIGHTNING_API_KEY):
//   POST /v1/charges       create a charge (a BOLT11 invoice plus an on-chain fallback address)
//   GET  /v1/charge/{id}   read it back
//   callbacks carry hashed_order = HMAC-SHA256(key = API key, message = charge id), hex.
// OpenNode takes the key itself in the Authorization header, without a scheme.

const charge = z.object({
  id: z.string().min(1),
  name: z.string().nullish(),
  description: z.string().nullish(),
  created_at: z.number(),
  status: z.string(),
  amount: z.number(),
  currency: z.string().nullish(),
  fee: z.number().nullish(),
  notes: z.string().nullish(),
  address: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  auto_settle: z.boolean().nullish(),
  settled_at: z.number().nullish(),
  transactions: z.array(z.unknown()).nullish(),
  chain_invoice: z.object({ address: z.string() }).partial().nullish(),
  lightning_invoice: z.object({ payreq: z.string().min(1), expires_at: z.number().optional(), settled_at: z.number().nullish() }).nullish(),
});
const envelope = z.object({ data: charge });
type Charge = z.infer<typeof charge>;

function config() {
  const e = env();
  if (!e.LIGHTNING_API_URL || !e.LIGHTNING_API_KEY) throw new Error("LIGHTNING_API_URL and LIGHTNING_API_KEY must be set");
  return { base: e.LIGHTNING_API_URL.replace(/\/+$/, ""), key: e.LIGHTNING_API_KEY, timeoutMs: e.LIGHTNING_TIMEOUT_MS };
}

function parseCharge(body: unknown): Charge {
  const parsed = envelope.safeParse(body);
  if (!parsed.success) throw new Error(`unexpected charge response (${parsed.error.issues[0]?.path.join(".") || "body"})`);
  return parsed.data.data;
}

async function getCharge(id: string): Promise<Charge> {
  const { base, key, timeoutMs } = config();
  // Reading is safe to repeat, so it retries; creating (below) is not, since a retry could open a second charge.
  return parseCharge(await requestJson(`${base}/v1/charge/${encodeURIComponent(id)}`, { headers: { authorization: key }, timeoutMs, retries: 2 }));
}

function tag(decoded: ReturnType<typeof bolt11.decode>, name: string): unknown {
  return decoded.tags.find((t) => t.tagName === name)?.data;
}

const seconds = (s: number | null | undefined) => (s ? new Date(s * 1000) : null);

export const OPENNODE_PROVIDER = "opennode";

export const openNodeLightning: LightningProvider = {
  name: OPENNODE_PROVIDER,
  async createInvoice({ satoshis, description, expirySeconds, name }) {
    const { base, key, timeoutMs } = config();
    const body = await requestJson(`${base}/v1/charges`, {
      method: "POST",
      headers: { authorization: key },
      // No currency: the amount is then in satoshis, the exact figure fixed on the order.
      body: {
        amount: satoshis,
        description,
        ttl: Math.max(1, Math.ceil(expirySeconds / 60)),
        auto_settle: false,
        // Where OpenNode says the charge was paid (lib/lightning/endpoints.ts); a poll backs it up.
        callback_url: `${publicBaseUrl()}/api/v1/providers/opennode/webhook`,
        ...(name ? { customer_name: name } : {}),
      },
      timeoutMs,
    });
    const c = parseCharge(body);
    if (!c.lightning_invoice) throw new Error("charge has no Lightning invoice (amount above the provider's Lightning limit?)");
    // The invoice is what the payer pays: check it asks for exactly our amount before handing it out.
    let decoded: ReturnType<typeof bolt11.decode>;
    try {
      decoded = bolt11.decode(c.lightning_invoice.payreq);
    } catch {
      throw new Error("charge carries an invalid BOLT11 invoice");
    }
    if (decoded.satoshis !== satoshis) throw new Error(`charge invoice is for ${decoded.satoshis ?? "no"} sats, expected ${satoshis}`);
    const paymentHash = tag(decoded, "payment_hash");
    if (typeof paymentHash !== "string") throw new Error("charge invoice has no payment hash");
    const createdAt = new Date((decoded.timestamp ?? c.created_at) * 1000);
    const expiresAt = seconds(c.lightning_invoice.expires_at) ?? new Date((decoded.timeExpireDate ?? c.created_at + expirySeconds) * 1000);
    return { id: c.id, invoice: c.lightning_invoice.payreq, paymentHash, createdAt, expiresAt };
  },

  async describe(state) {
    try {
      return details(await getCharge(state.id), state);
    } catch {
      // `success` is the spec's "whether the provider query succeeded": answer from what we stored.
      return storedDetails(state, false);
    }
  },

  async readInvoice(id): Promise<RemoteInvoice> {
    const c = await getCharge(id);
    const paid = c.status === "paid";
    return { id: c.id, status: c.status, paid, paidAt: paid ? (seconds(c.lightning_invoice?.settled_at) ?? seconds(c.settled_at)) : null };
  },

  verifyCallback(payload) {
    const { id, hashed_order: received } = payload;
    if (typeof id !== "string" || typeof received !== "string" || !/^[0-9a-f]{64}$/i.test(received)) return false;
    const expected = createHmac("sha256", config().key).update(id).digest();
    return timingSafeEqual(expected, Buffer.from(received, "hex"));
  },
};

function details(c: Charge, state: InvoiceState): LightningProviderDetails {
  return {
    success: true,
    data: {
      id: c.id,
      name: c.name ?? state.name,
      status: c.status,
      currency: c.currency ?? "BTC",
      created_at: c.created_at,
      fee: c.fee ?? 0,
      notes: c.notes ?? "",
      address: c.chain_invoice?.address ?? c.address ?? "",
      metadata: c.metadata ?? {},
      // The spec's fiat_value is BRL; OpenNode's is in the account's currency, so ours is shown.
      fiat_value: centavosToBrl(state.fiatCentavos),
      amount: c.amount,
      description: c.description ?? state.description,
      auto_settle: c.auto_settle ?? false,
      transactions: c.transactions ?? [],
    },
  };
}
