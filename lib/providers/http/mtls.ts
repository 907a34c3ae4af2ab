import https from "node:https";
import tls from "node:tls";
import { parseRetryAfter } from "../outcome";
import { UpstreamHttpError } from "./client";

// HTTPS with a client certificate (mutual TLS), as API Pix and the PSPs' payout APIs require on every
// call, the token call included. Node's fetch cannot present a client certificate without an extra
// dispatcher package, so this speaks node:https directly, over one keep-alive agent per identity.

export type TlsIdentity = { cert?: Buffer; key?: Buffer; pfx?: Buffer; passphrase?: string; ca?: Buffer };

export function mtlsAgent(identity: TlsIdentity): https.Agent {
  // The PSP's own CA (PIX_CA_FILE) is trusted in addition to the system's, never instead of it.
  const ca = identity.ca ? [...tls.rootCertificates, identity.ca] : undefined;
  return new https.Agent({
    keepAlive: true,
    maxSockets: 16,
    cert: identity.cert,
    key: identity.key,
    pfx: identity.pfx,
    passphrase: identity.passphrase,
    ca,
  });
}

/** Trusts only this certificate (a Lightning node's self-signed one): pinned, not added to the public roots. */
export function pinnedAgent(cert: Buffer): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets: 16, ca: [cert] });
}

/** An answer; `retryAfterSeconds` is the Retry-After a 429 or 503 carried (null without one). */
export type HttpsAnswer = {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
  retryAfterSeconds: number | null;
};

export type HttpsCall = {
  agent: https.Agent;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  /** Sent as is: the caller decides the encoding (JSON, form). */
  body?: string;
  timeoutMs: number;
};

/** One request; any HTTP status is an answer. No answer in time, or none at all, throws UpstreamHttpError. */
export function httpsRequest(url: string, call: HttpsCall): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "application/json", ...call.headers };
    if (call.body !== undefined) headers["content-length"] = String(Buffer.byteLength(call.body));
    const req = https.request(url, { method: call.method, agent: call.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (err) => fail(new UpstreamHttpError("network", `answer cut off (${err.message})`)));
      res.on("end", () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = null;
        }
        const retryAfter = res.headers["retry-after"];
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          text,
          json,
          retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
        });
      });
    });
    const fail = (err: UpstreamHttpError) => {
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new UpstreamHttpError("timeout", `no answer within ${call.timeoutMs} ms`)),
      call.timeoutMs,
    );
    req.on("error", (err) => fail(new UpstreamHttpError("network", `unreachable (${err.message})`)));
    if (call.body !== undefined) req.write(call.body);
    req.end();
  });
}
