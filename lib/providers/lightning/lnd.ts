import https from "node:https";
import bolt11 from "bolt11";
import { env, type Env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { centavosToBrl } from "@/lib/money";
import { credentialFile } from "@/lib/secrets";
import { UpstreamHttpError } from "../http/client";
import { httpsRequest, pinnedAgent, type HttpsAnswer } from "../http/mtls";
import { storedDetails } from "./stored-details";
import type { LightningInvoice, LightningProvider, RemoteInvoice, StreamedInvoice } from "./types";

// Lightning through the merchant's own LND node, over its REST gateway (docs/providers.md#lightning-lnd-the-merchants-own-node; LND's REST
// description is lightning.swagger.json / invoices.swagger.json):
//   POST /v1/invoices                  an invoice (value_msat, expiry = the order's)
//   GET  /v1/invoice/{r_hash hex}      read one back (state, settle_date)
//   GET  /v1/invoices/subscribe        the node's stream of invoices, resumed from a settle_index
//   POST /v2/invoices/hodl|settle|cancel   hold invoices (Crypto-PIX over Lightning)
//   GET  /v2/invoices/subscribe/{hash} one invoice's stream: the all-invoices stream never reports a
//                                      hold invoice ACCEPTED or CANCELED (lnd keeps those for these)
//   GET  /v2/chainkit/bestblock        the current height, which held HTLCs expire against
// TLS is pinned to the node's own certificate, and the macaroon (sent as Grpc-Metadata-macaroon)
// should be an invoice macaroon: it can make and read invoices but never spend. It cannot call
// GetInfo (info:read), but it can call ChainKit's GetBestBlock (onchain:read, which lnd's
// invoicePermissions in rpcserver.go grant; ChainKit is in lnd's release builds since 0.16).
// Proto3 JSON: 64-bit integers are strings, bytes are base64.

export const LND_PROVIDER = "lnd";

type Json = Record<string, unknown>;
type Node = { base: string; macaroon: string; agent: https.Agent; timeoutMs: number };

const nodes = new WeakMap<Env, Node>();

function node(): Node {
  const e = env();
  let n = nodes.get(e);
  if (!n) {
    const macaroon = e.LND_MACAROON_HEX ?? credentialFile("LND_MACAROON_FILE", e.LND_MACAROON_FILE!).toString("hex");
    n = {
      base: e.LND_REST_URL!.replace(/\/+$/, ""),
      macaroon,
      agent: pinnedAgent(credentialFile("LND_TLS_CERT_FILE", e.LND_TLS_CERT_FILE!)),
      timeoutMs: e.LND_TIMEOUT_MS,
    };
    nodes.set(e, n);
  }
  return n;
}

const b64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");
const hexToB64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");
const seconds = (v: unknown) =>
  typeof v === "string" && /^\d+$/.test(v) && v !== "0" ? new Date(Number(v) * 1000) : null;

/** gRPC-gateway errors: `{ code, message }`. */
function problem(answer: HttpsAnswer): string {
  const o = (answer.json ?? {}) as Json;
  return `HTTP ${answer.status}${typeof o.message === "string" ? `: ${o.message}` : ""}`;
}

async function call(
  method: "GET" | "POST",
  path: string,
  what: string,
  body?: unknown,
  retries = 2,
): Promise<HttpsAnswer> {
  const n = node();
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await httpsRequest(`${n.base}${path}`, {
        agent: n.agent,
        method,
        headers: {
          "Grpc-Metadata-macaroon": n.macaroon,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        timeoutMs: n.timeoutMs,
      });
      if (answer.status >= 500 && attempt < retries && !/not found|unable to locate/i.test(answer.text))
        throw new UpstreamHttpError(answer.status, problem(answer));
      return answer;
    } catch (err) {
      if (!(err instanceof UpstreamHttpError) || attempt >= retries)
        throw new UpstreamUnavailable(
          `LND node unavailable (${what}): ${err instanceof Error ? err.message : String(err)}`,
        );
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
}

/**
 * The invoice LND made is the one we asked for: our amount, the payment hash it says it is and, for a
 * hold invoice, at least the blocks we asked the payer's HTLC to leave.
 */
function checked(paymentRequest: string, rHashHex: string, satoshis: number, cltvExpiry?: number): LightningInvoice {
  const decoded = bolt11.decode(paymentRequest);
  const hash = decoded.tags.find((t) => t.tagName === "payment_hash")?.data;
  if (decoded.satoshis !== satoshis)
    throw new UpstreamUnavailable(`LND made an invoice for ${decoded.satoshis ?? "no"} sats, not ${satoshis}`);
  if (hash !== rHashHex)
    throw new UpstreamUnavailable("LND made an invoice whose payment hash is not the one it reported");
  const cltv = decoded.tags.find((t) => t.tagName === "min_final_cltv_expiry")?.data;
  if (cltvExpiry !== undefined && (typeof cltv !== "number" || cltv < cltvExpiry))
    throw new UpstreamUnavailable(
      `LND made a hold invoice whose payer may leave ${String(cltv ?? "no")} blocks, not ${cltvExpiry}`,
    );
  const createdAt = new Date((decoded.timestamp ?? Math.floor(Date.now() / 1000)) * 1000);
  const expiresAt = new Date((decoded.timeExpireDate ?? Math.floor(createdAt.getTime() / 1000) + 3600) * 1000);
  return { id: rHashHex, invoice: paymentRequest, paymentHash: rHashHex, createdAt, expiresAt };
}

/** An lnrpc.Invoice as the rest of the service reads it. */
function remote(o: Json): StreamedInvoice {
  const state = String(o.state ?? "OPEN");
  const hash = typeof o.r_hash === "string" ? b64ToHex(o.r_hash) : "";
  const htlcs = Array.isArray(o.htlcs) ? (o.htlcs as Json[]) : [];
  const acceptTimes = htlcs.map((h) => seconds(h.accept_time)).filter((d): d is Date => d !== null);
  // lnd's expiry watcher goes by the earliest expiry among the HTLCs it still holds.
  const held = htlcs.filter((h) => h.state === "ACCEPTED");
  const heights = (field: string) =>
    held.map((h) => h[field]).filter((v): v is number => typeof v === "number" && v > 0);
  return {
    id: hash,
    paymentHash: hash,
    status: state.toLowerCase(),
    paid: state === "SETTLED",
    paidAt: state === "SETTLED" ? seconds(o.settle_date) : null,
    accepted: state === "ACCEPTED",
    // A hold invoice's payment arrived when its HTLCs were accepted (the last one completes it).
    acceptedAt: acceptTimes.length ? new Date(Math.max(...acceptTimes.map((d) => d.getTime()))) : null,
    canceled: state === "CANCELED",
    htlcExpiryHeight: heights("expiry_height").length ? Math.min(...heights("expiry_height")) : null,
    acceptHeight: heights("accept_height").length ? Math.max(...heights("accept_height")) : null,
    settleIndex:
      typeof o.settle_index === "string" && /^\d+$/.test(o.settle_index) && o.settle_index !== "0"
        ? Number(o.settle_index)
        : null,
  };
}

async function lookup(hashHex: string): Promise<Json> {
  const answer = await call("GET", `/v1/invoice/${hashHex}`, "read the invoice");
  if (answer.status !== 200) throw new UpstreamUnavailable(`LND node refused to read the invoice: ${problem(answer)}`);
  return answer.json as Json;
}

/**
 * A grpc-gateway stream: one JSON message per line, `{ result }` or `{ error }`. Each invoice is handed
 * over in order, the next only once the previous one has been applied. Resolves when the node ends
 * the stream; throws when it fails or is cut.
 */
function follow(
  pathAndQuery: string,
  signal: AbortSignal,
  onInvoice: (invoice: StreamedInvoice) => Promise<void>,
): Promise<void> {
  const n = node();
  return new Promise<void>((resolve, reject) => {
    const req = https.request(
      `${n.base}${pathAndQuery}`,
      { method: "GET", agent: n.agent, headers: { "Grpc-Metadata-macaroon": n.macaroon }, signal },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new UpstreamUnavailable(`LND node refused the invoice stream: HTTP ${res.statusCode}`));
          return;
        }
        let buffer = "";
        let chain = Promise.resolve();
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let nl;
          while ((nl = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (!line) continue;
            chain = chain.then(async () => {
              const msg = JSON.parse(line) as Json;
              if (msg.error)
                throw new UpstreamUnavailable(`LND invoice stream error: ${JSON.stringify(msg.error).slice(0, 200)}`);
              if (msg.result && typeof msg.result === "object") await onInvoice(remote(msg.result as Json));
            });
            chain.catch((err: unknown) => {
              req.destroy();
              reject(err);
            });
          }
        });
        res.on("end", () => void chain.then(resolve, reject));
        res.on("error", (err) => reject(new UpstreamUnavailable(`LND invoice stream cut: ${err.message}`)));
        res.on("aborted", () => reject(new UpstreamUnavailable("LND invoice stream cut")));
      },
    );
    req.on("error", (err) =>
      reject(signal.aborted ? err : new UpstreamUnavailable(`LND invoice stream failed: ${err.message}`)),
    );
    req.end();
  });
}

export const lndLightning: LightningProvider = {
  name: LND_PROVIDER,

  async createInvoice({ satoshis, description, expirySeconds }) {
    // Not retried: a repeat would make a second invoice (harmless, but not ours to leave behind).
    const answer = await call(
      "POST",
      "/v1/invoices",
      "create the invoice",
      { memo: description, value_msat: String(BigInt(satoshis) * 1000n), expiry: String(expirySeconds) },
      0,
    );
    const o = (answer.json ?? {}) as Json;
    if (answer.status !== 200 || typeof o.r_hash !== "string" || typeof o.payment_request !== "string")
      throw new UpstreamUnavailable(`LND node refused to create the invoice: ${problem(answer)}`);
    return checked(o.payment_request, b64ToHex(o.r_hash), satoshis);
  },

  async describe(state) {
    try {
      const o = await lookup(state.id);
      const r = remote(o);
      return {
        success: true,
        data: {
          id: r.id,
          name: state.name,
          status: r.paid ? "paid" : r.canceled ? "expired" : state.status,
          currency: "BTC",
          created_at: Number(o.creation_date ?? 0),
          fee: 0,
          notes: "",
          address: typeof o.fallback_addr === "string" ? o.fallback_addr : "",
          metadata: { settle_index: o.settle_index ?? "0", add_index: o.add_index ?? "0", state: o.state ?? "OPEN" },
          fiat_value: centavosToBrl(state.fiatCentavos),
          amount: Number(o.value ?? state.satoshis),
          description: typeof o.memo === "string" ? o.memo : state.description,
          auto_settle: true,
          transactions: Array.isArray(o.htlcs) ? o.htlcs : [],
        },
      };
    } catch {
      return storedDetails(state, true);
    }
  },

  async readInvoice(id): Promise<RemoteInvoice> {
    return remote(await lookup(id));
  },

  async listInvoices({ indexOffset, max, createdFrom, createdTo }) {
    // ListInvoices pages by add_index: index_offset is exclusive, last_index_offset the next page's start.
    const query = new URLSearchParams({
      index_offset: String(indexOffset),
      num_max_invoices: String(max),
      creation_date_start: String(Math.floor(createdFrom.getTime() / 1000)),
      creation_date_end: String(Math.ceil(createdTo.getTime() / 1000)),
    });
    const answer = await call("GET", `/v1/invoices?${query}`, "list the invoices");
    if (answer.status !== 200)
      throw new UpstreamUnavailable(`LND node refused to list the invoices: ${problem(answer)}`);
    const o = (answer.json ?? {}) as Json;
    const whole = (v: unknown) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : 0);
    const invoices = (Array.isArray(o.invoices) ? (o.invoices as Json[]) : []).map((i) => ({
      ...remote(i),
      addIndex: whole(i.add_index),
      valueSatoshis: whole(i.value),
      paidSatoshis: whole(i.amt_paid_sat),
    }));
    return { invoices, lastIndexOffset: whole(o.last_index_offset) };
  },

  followInvoices(afterSettleIndex, signal, onInvoice) {
    return follow(`/v1/invoices/subscribe?settle_index=${afterSettleIndex}`, signal, onInvoice);
  },

  followInvoice(paymentHash, signal, onInvoice) {
    // REST path bytes are base64url (invoices.swagger.json).
    return follow(`/v2/invoices/subscribe/${Buffer.from(paymentHash, "hex").toString("base64url")}`, signal, onInvoice);
  },

  async createHoldInvoice({ paymentHash, satoshis, description, expirySeconds }) {
    // Said explicitly rather than left to the node's default: how long the payer's HTLC outlives its
    // arrival bounds the time we have to pay the PIX (LND_HOLD_CLTV_EXPIRY in lib/env/fields.ts).
    const cltvExpiry = env().LND_HOLD_CLTV_EXPIRY;
    const answer = await call(
      "POST",
      "/v2/invoices/hodl",
      "create the hold invoice",
      {
        memo: description,
        hash: hexToB64(paymentHash),
        value_msat: String(BigInt(satoshis) * 1000n),
        expiry: String(expirySeconds),
        cltv_expiry: String(cltvExpiry),
      },
      0,
    );
    const o = (answer.json ?? {}) as Json;
    if (answer.status !== 200 || typeof o.payment_request !== "string")
      throw new UpstreamUnavailable(`LND node refused to create the hold invoice: ${problem(answer)}`);
    return checked(o.payment_request, paymentHash, satoshis, cltvExpiry);
  },

  async settleHoldInvoice(preimage) {
    const answer = await call("POST", "/v2/invoices/settle", "settle the hold invoice", {
      preimage: hexToB64(preimage),
    });
    if (answer.status !== 200)
      throw new UpstreamUnavailable(`LND node refused to settle the hold invoice: ${problem(answer)}`);
  },

  async cancelHoldInvoice(paymentHash) {
    const answer = await call("POST", "/v2/invoices/cancel", "cancel the hold invoice", {
      payment_hash: hexToB64(paymentHash),
    });
    if (answer.status !== 200)
      throw new UpstreamUnavailable(`LND node refused to cancel the hold invoice: ${problem(answer)}`);
  },

  async bestBlockHeight() {
    const answer = await call("GET", "/v2/chainkit/bestblock", "read the best block");
    const o = (answer.json ?? {}) as Json;
    if (answer.status !== 200 || typeof o.block_height !== "number" || o.block_height <= 0)
      throw new UpstreamUnavailable(`LND node did not tell its block height: ${problem(answer)}`);
    return o.block_height;
  },
};
