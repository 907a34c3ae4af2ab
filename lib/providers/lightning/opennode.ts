import { createHmac, timingSafeEqual } from "node:crypto";
import bolt11 from "bolt11";
import type { z } from "zod";
import { env, publicBaseUrl } from "@/lib/env";
import { requestJson } from "@/lib/providers/http/client";
import { chargeDetails, chargeV2, createdCharge, remoteInvoiceOf, type ChargeV2 } from "./opennode-charge";
import { storedDetails } from "./stored-details";
import type { LightningProvider } from "./types";

// Lightning through OpenNode's charge API (LIGHTNING_API_URL, LIGHTNING_API_KEY), as its official SDK
// (opennodedev/opennode-node src/client.ts) calls it:
//   POST /v1/charges        create a charge (a BOLT11 invoice plus an on-chain fallback address)
//   GET  /v2/charges/{id}   read it back (chargeInfo(); the legacy GET /v1/charge/{id} is not used)
//   callbacks carry hashed_order = HMAC-SHA256(key = API key, message = charge id), hex.
// OpenNode takes the key itself in the Authorization header, without a scheme.

/** A charge's `ttl`, in minutes: "Min: 10, Max(Default): 1440 (24H)" (the SDK's src/types/v1.ts). */
const TTL_MINUTES = { min: 10, max: 1440 };

function config() {
  const e = env();
  if (!e.LIGHTNING_API_URL || !e.LIGHTNING_API_KEY)
    throw new Error("LIGHTNING_API_URL and LIGHTNING_API_KEY must be set");
  return { base: e.LIGHTNING_API_URL.replace(/\/+$/, ""), key: e.LIGHTNING_API_KEY, timeoutMs: e.LIGHTNING_TIMEOUT_MS };
}

/** OpenNode wraps its answers in `{ data }`; the SDK reads either (its response interceptor), so do we. */
function parsed<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const inner = body && typeof body === "object" && "data" in body ? (body as { data: unknown }).data : body;
  const result = schema.safeParse(inner);
  if (!result.success)
    throw new Error(`unexpected charge response (${result.error.issues[0]?.path.join(".") || "body"})`);
  return result.data;
}

async function getCharge(id: string): Promise<ChargeV2> {
  const { base, key, timeoutMs } = config();
  // Reading is safe to repeat, so it retries (after what a 429's Retry-After asks); creating (below) is
  // not, since a retry could open a second charge.
  return parsed(
    chargeV2,
    await requestJson(`${base}/v2/charges/${encodeURIComponent(id)}`, {
      headers: { authorization: key },
      timeoutMs,
      retries: 2,
    }),
  );
}

function tag(decoded: ReturnType<typeof bolt11.decode>, name: string): unknown {
  return decoded.tags.find((t) => t.tagName === name)?.data;
}

export const OPENNODE_PROVIDER = "opennode";

export const openNodeLightning: LightningProvider = {
  name: OPENNODE_PROVIDER,
  // A payment on chain is `processing` until it confirms, possibly after the order's expiry.
  readBeforeExpiry: true,

  async createInvoice({ satoshis, description, expirySeconds, name, paymentLinkId }) {
    const { base, key, timeoutMs } = config();
    // OpenNode refuses a ttl outside 10–1440 minutes. Below 10 the charge outlives the order: the order
    // still expires at EXPIRY_LIGHTNING_SECONDS (below), and a payment made after that is recorded as
    // unapplied funds, never credited nor lost (docs/providers.md, "Payments reported late").
    const ttl = Math.min(TTL_MINUTES.max, Math.max(TTL_MINUTES.min, Math.ceil(expirySeconds / 60)));
    const body = await requestJson(`${base}/v1/charges`, {
      method: "POST",
      headers: { authorization: key },
      // No currency: the amount is then in satoshis, the exact figure fixed on the order.
      body: {
        amount: satoshis,
        description,
        ttl,
        // Our payment link id: OpenNode's dashboard and callbacks name our order by it, and reads are checked against it.
        order_id: paymentLinkId,
        auto_settle: false,
        // Where OpenNode says the charge changed (lib/lightning/endpoints.ts); a poll backs it up.
        callback_url: `${publicBaseUrl()}/api/v1/providers/opennode/webhook`,
        ...(name ? { customer_name: name } : {}),
      },
      timeoutMs,
    });
    const c = parsed(createdCharge, body);
    if (!c.lightning_invoice)
      throw new Error("charge has no Lightning invoice (amount above the provider's Lightning limit?)");
    if (c.order_id && c.order_id !== paymentLinkId)
      throw new Error(`charge is for order ${c.order_id}, expected ${paymentLinkId}`);
    // The invoice is what the payer pays: check it asks for exactly our amount before handing it out.
    let decoded: ReturnType<typeof bolt11.decode>;
    try {
      decoded = bolt11.decode(c.lightning_invoice.payreq);
    } catch {
      throw new Error("charge carries an invalid BOLT11 invoice");
    }
    if (decoded.satoshis !== satoshis)
      throw new Error(`charge invoice is for ${decoded.satoshis ?? "no"} sats, expected ${satoshis}`);
    const paymentHash = tag(decoded, "payment_hash");
    if (typeof paymentHash !== "string") throw new Error("charge invoice has no payment hash");
    const createdAt = new Date((decoded.timestamp ?? c.created_at) * 1000);
    const invoiceExpiry = (c.lightning_invoice.expires_at ?? decoded.timeExpireDate ?? c.created_at + ttl * 60) * 1000;
    // Ours, or OpenNode's when that comes first (a ttl cut to 1440 minutes): nobody can pay after it.
    const expiresAt = new Date(Math.min(createdAt.getTime() + expirySeconds * 1000, invoiceExpiry));
    return { id: c.id, invoice: c.lightning_invoice.payreq, paymentHash, createdAt, expiresAt };
  },

  async describe(state) {
    try {
      return chargeDetails(await getCharge(state.id), state);
    } catch {
      // `success` is the spec's "whether the provider query succeeded": answer from what we stored.
      return storedDetails(state, false);
    }
  },

  async readInvoice(id) {
    return remoteInvoiceOf(await getCharge(id));
  },

  verifyCallback(payload) {
    const { id, hashed_order: received } = payload;
    if (typeof id !== "string" || typeof received !== "string" || !/^[0-9a-f]{64}$/i.test(received)) return false;
    const expected = createHmac("sha256", config().key).update(id).digest();
    return timingSafeEqual(expected, Buffer.from(received, "hex"));
  },
};
