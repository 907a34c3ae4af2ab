import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { hasError, isDynamicPix, parsePix } from "pix-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { crc16, dynamicBrCode, readBrCode, staticBrCode } from "./fixtures/pix-psp/brcode";
import { ERRATA, loadPixOpenApi, pixOpenApi } from "./fixtures/pix-psp/openapi";
import { startPixPsp, type PixPsp } from "./fixtures/pix-psp/server";

// Tests of the test PSP itself: that it enforces mutual TLS and OAuth, speaks API Pix as the Central
// Bank's document says (and notices when a client or it does not), pays, notifies, refunds, sends Efí
// payouts, checks a webhook URL as Efí does and injects its faults. Each describe ends with no
// violation recorded for correct traffic.

const RECEIVER_KEY = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906";
const PAYOUT_KEY = "pagamentos@pixcrypto.example";
const E2E = /^E\d{8}\d{12}[a-zA-Z0-9]{11}$/;

type Cert = "client" | "pfx" | "untrusted" | "none";
type Res = { status: number; headers: http.IncomingHttpHeaders; body: any };

/** A tiny mTLS client: one fresh connection per call, so every call makes its own handshake. */
function call(
  psp: PixPsp,
  method: string,
  path: string,
  o: {
    json?: unknown;
    raw?: string;
    contentType?: string;
    token?: string;
    basic?: [string, string];
    cert?: Cert;
    timeoutMs?: number;
    host?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Res> {
  const f = psp.files;
  const cert = o.cert ?? "client";
  const tls =
    cert === "client"
      ? { cert: fs.readFileSync(f.clientCert), key: fs.readFileSync(f.clientKey) }
      : cert === "pfx"
        ? { pfx: fs.readFileSync(f.pfx), passphrase: f.pfxPassphrase }
        : cert === "untrusted"
          ? { cert: fs.readFileSync(f.untrustedCert), key: fs.readFileSync(f.untrustedKey) }
          : {};
  const data = o.json !== undefined ? JSON.stringify(o.json) : o.raw;
  const headers: Record<string, string> = { ...o.headers };
  if (data !== undefined) headers["content-type"] = o.contentType ?? "application/json";
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.basic) headers.authorization = `Basic ${Buffer.from(o.basic.join(":")).toString("base64")}`;
  const url = new URL(psp.origin + path);
  if (o.host) url.hostname = o.host;
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, ca: fs.readFileSync(f.ca), agent: false, ...tls }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
      res.on("error", reject);
    });
    if (o.timeoutMs) req.setTimeout(o.timeoutMs, () => req.destroy(new Error("client timeout")));
    req.on("error", reject);
    req.end(data);
  });
}

async function getToken(psp: PixPsp, scope?: string): Promise<string> {
  const res = await call(psp, "POST", "/oauth/token", {
    raw: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ""}`,
    contentType: "application/x-www-form-urlencoded",
    basic: [psp.clientId, psp.clientSecret],
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

/** Where our service would listen for notifications: plain http on 127.0.0.1. */
async function startReceiver(status = 200) {
  const got: { path: string; body: any; at: number }[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      got.push({ path: req.url ?? "", body: JSON.parse(raw), at: Date.now() });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pix-psp`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * Where our service would listen behind TLS, as Efí wants a webhook URL: https with the PSP's own server
 * certificate (CN 127.0.0.1, signed by the test CA, so the PSP trusts it), answering `status` to every
 * POST. "require": a client certificate from the test CA is demanded in the handshake, as a proxy that
 * terminates mutual TLS does; "none": anyone may call (TLS only). `peer` is the caller's certificate CN.
 */
async function startHttpsReceiver(psp: PixPsp, o: { clientCert: "require" | "none"; status?: number }) {
  const f = psp.files;
  const got: { path: string; body: any; peer: string | null }[] = [];
  const refused: string[] = [];
  const server = https.createServer(
    {
      key: fs.readFileSync(f.serverKey),
      cert: fs.readFileSync(f.serverCert),
      minVersion: "TLSv1.2",
      ...(o.clientCert === "require" ? { ca: fs.readFileSync(f.ca), requestCert: true, rejectUnauthorized: true } : {}),
    },
    (req, res) => {
      let raw = "";
      req.on("data", (c) => (raw += c));
      req.on("end", () => {
        const cn: unknown = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
        got.push({ path: req.url ?? "", body: JSON.parse(raw), peer: typeof cn === "string" ? cn : null });
        res.writeHead(o.status ?? 200).end();
      });
    },
  );
  // A handshake refused for want of a certificate is what a caller without one is meant to meet.
  server.on("tlsClientError", (e) => refused.push(e.message));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pix-psp`;
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return { url, got, refused, close };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let seq = 0;
const txidOf = () =>
  `pixpsptest${Date.now().toString(36)}${String(seq++).padStart(4, "0")}`.padEnd(30, "0").slice(0, 30);
const cobBody = (valor = "12.34", extra: Record<string, unknown> = {}) => ({
  calendario: { expiracao: 3600 },
  valor: { original: valor },
  chave: RECEIVER_KEY,
  solicitacaoPagador: "Pedido 123",
  ...extra,
});
const sendBody = (valor = "15.00", chave = "fornecedor@example.com") => ({
  valor,
  pagador: { chave: PAYOUT_KEY, infoPagador: "saque 42" },
  favorecido: { chave },
});
const problemType = (tipo: string) => `https://pix.bcb.gov.br/api/v2/error/${tipo}`;

describe("the test PSP", () => {
  let psp: PixPsp;
  let token: string;
  // Our receiver for the receiver key's notifications (registered by the webhook tests below), and the
  // payer key's webhook, which Efí requires before it sends anything from that key.
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let payerHook: Awaited<ReturnType<typeof startReceiver>>;
  const pix = (method: string, path: string, json?: unknown) => call(psp, method, `/v2${path}`, { json, token });
  const efi = (method: string, path: string, json?: unknown, o: { timeoutMs?: number } = {}) =>
    call(psp, method, path, { json, token, ...o });

  beforeAll(async () => {
    // These receivers are plain http, which Efí's registration handshake (the default) refuses: here
    // webhooks are stored as given, and the handshake has its own tests ("webhook registration" below).
    psp = await startPixPsp({
      receiverKey: RECEIVER_KEY,
      payoutKey: PAYOUT_KEY,
      pageSize: 2,
      webhookHandshake: "none",
      quiet: true,
    });
    token = await getToken(psp);
    receiver = await startReceiver();
    payerHook = await startReceiver();
    expect((await pix("PUT", `/webhook/${PAYOUT_KEY}`, { webhookUrl: payerHook.url })).status).toBe(200);
  });
  afterAll(async () => {
    await psp.close();
    await Promise.all([receiver.close(), payerHook.close()]);
  });
  // Every correct exchange in these tests must satisfy the document; tests that send wrong things on
  // purpose check and clear what they caused.
  afterEach(() => expect(psp.violations).toEqual([]));

  const takeViolations = () => psp.violations.splice(0);

  async function paidPix(valor: string) {
    const txid = txidOf();
    await pix("PUT", `/cob/${txid}`, cobBody(valor));
    return psp.pay(txid, { notify: false });
  }

  describe("mutual TLS", () => {
    it("refuses a client without a certificate and one whose certificate the CA did not sign", async () => {
      const before = psp.requests.length;
      const tlsBefore = psp.tlsErrors.length;
      await expect(
        call(psp, "POST", "/oauth/token", {
          cert: "none",
          basic: [psp.clientId, psp.clientSecret],
          raw: "grant_type=client_credentials",
        }),
      ).rejects.toThrow();
      await expect(
        call(psp, "POST", "/oauth/token", {
          cert: "untrusted",
          basic: [psp.clientId, psp.clientSecret],
          raw: "grant_type=client_credentials",
        }),
      ).rejects.toThrow();
      expect(psp.requests.length).toBe(before); // no HTTP request got through
      expect(psp.tlsErrors.length).toBeGreaterThanOrEqual(tlsBefore + 2);
    });

    it("serves our certificate as PEM and as PKCS#12, under 127.0.0.1 and localhost", async () => {
      const pem = await call(psp, "POST", "/oauth/token", {
        basic: [psp.clientId, psp.clientSecret],
        raw: "grant_type=client_credentials",
        contentType: "application/x-www-form-urlencoded",
      });
      const pfx = await call(psp, "POST", "/oauth/token", {
        cert: "pfx",
        host: "localhost",
        basic: [psp.clientId, psp.clientSecret],
        raw: "grant_type=client_credentials",
        contentType: "application/x-www-form-urlencoded",
      });
      expect([pem.status, pfx.status]).toEqual([200, 200]);
    });
  });

  describe("OAuth2", () => {
    it("issues bearer tokens for the client's credentials only", async () => {
      const issued = psp.tokensIssued;
      const ok = await call(psp, "POST", "/oauth/token", {
        json: { grant_type: "client_credentials" },
        basic: [psp.clientId, psp.clientSecret],
      });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({
        token_type: "Bearer",
        expires_in: 3600,
        scope: expect.stringContaining("cob.write"),
      });
      expect(ok.headers["cache-control"]).toBe("no-store");
      expect(psp.tokensIssued).toBe(issued + 1);

      const wrong = await call(psp, "POST", "/oauth/token", {
        raw: "grant_type=client_credentials",
        basic: [psp.clientId, "wrong"],
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
      expect((await call(psp, "POST", "/oauth/token", { raw: "grant_type=client_credentials" })).status).toBe(401);
      expect(
        (
          await call(psp, "POST", "/oauth/token", {
            raw: "grant_type=password",
            basic: [psp.clientId, psp.clientSecret],
          })
        ).status,
      ).toBe(400);
    });

    it("answers a missing or revoked token with the document's 403 AcessoNegado, and a new token works", async () => {
      const none = await call(psp, "GET", "/v2/cob/" + txidOf());
      expect(none.status).toBe(403);
      expect(none.headers["content-type"]).toBe("application/problem+json");
      expect(none.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/AcessoNegado");

      const old = await getToken(psp);
      expect((await call(psp, "GET", "/v2/cob/" + txidOf(), { token: old })).status).toBe(404);
      psp.faults.expireTokensNow = true;
      expect((await call(psp, "GET", "/v2/cob/" + txidOf(), { token: old })).status).toBe(403);
      expect((await call(psp, "GET", "/v2/gn/pix/enviados/id-envio/x1", { token: old })).status).toBe(401);
      const fresh = await getToken(psp);
      expect((await call(psp, "GET", "/v2/cob/" + txidOf(), { token: fresh })).status).toBe(404);
      psp.faults.expireTokensNow = false;
      token = fresh;
    });

    it("refuses an operation outside the token's scope", async () => {
      const readOnly = await getToken(psp, "cob.read");
      const res = await call(psp, "PUT", `/v2/cob/${txidOf()}`, { token: readOnly, json: cobBody() });
      expect(res.status).toBe(403);
      expect(res.body.detail).toContain("cob.write");
    });

    it("lets a token expire after tokenTtlSeconds, and answers 401 when asked to", async () => {
      const short = await startPixPsp({
        receiverKey: RECEIVER_KEY,
        tokenTtlSeconds: 1,
        authFailureStatus: 401,
        quiet: true,
      });
      try {
        const t = await getToken(short);
        expect((await call(short, "GET", "/v2/cob/" + txidOf(), { token: t })).status).toBe(404);
        await new Promise((r) => setTimeout(r, 1100));
        const expired = await call(short, "GET", "/v2/cob/" + txidOf(), { token: t });
        expect(expired.status).toBe(401);
        expect(expired.headers["www-authenticate"]).toContain("invalid_token");
        expect(short.violations).toEqual([]);
      } finally {
        await short.close();
      }
    });
  });

  describe("charges (cob)", () => {
    it("creates a charge as the document's CobGerada, with a dynamic BR Code that pix-utils reads", async () => {
      const txid = txidOf();
      const res = await pix(
        "PUT",
        `/cob/${txid}`,
        cobBody("12.34", { devedor: { cpf: "12345678909", nome: "Fulano de Tal" } }),
      );
      expect(res.status).toBe(201);
      const c = res.body;
      expect(c).toMatchObject({
        txid,
        revisao: 0,
        status: "ATIVA",
        valor: { original: "12.34" },
        chave: RECEIVER_KEY,
        solicitacaoPagador: "Pedido 123",
      });
      expect(c.devedor).toEqual({ cpf: "12345678909", nome: "Fulano de Tal" });
      expect(c.calendario).toEqual({ criacao: expect.any(String), expiracao: 3600 });
      expect(c.loc).toMatchObject({ id: expect.any(Number), location: c.location, tipoCob: "cob", txid });

      const code: string = c.pixCopiaECola;
      expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
      expect(code).toMatch(/^000201010212/); // payload format 01, point of initiation 12
      expect(code).toContain("0503***");
      const parsed = parsePix(code);
      if (hasError(parsed)) throw new Error(parsed.message);
      expect(isDynamicPix(parsed)).toBe(true);
      if (!isDynamicPix(parsed)) return;
      expect(parsed.url).toBe(c.location);
      expect(parsed.merchantCategoryCode).toBe("0000");
      expect(parsed.transactionCurrency).toBe("986");
      expect(readBrCode(code)).toMatchObject({ location: c.location, valor: null, chave: null });

      const got = await pix("GET", `/cob/${txid}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(c);
    });

    it("revises, removes and refuses to change what is no longer ATIVA", async () => {
      const txid = txidOf();
      await pix("PUT", `/cob/${txid}`, cobBody("10.00"));
      // The same PUT again changes nothing: the same charge, same revision.
      const again = await pix("PUT", `/cob/${txid}`, cobBody("10.00"));
      expect(again.status).toBe(201);
      expect(again.body.revisao).toBe(0);

      const patched = await pix("PATCH", `/cob/${txid}`, { valor: { original: "11.00" } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ revisao: 1, valor: { original: "11.00" } });
      expect((await pix("GET", `/cob/${txid}?revisao=0`)).body.valor.original).toBe("10.00");
      expect((await pix("GET", `/cob/${txid}?revisao=7`)).status).toBe(400);

      const both = await pix("PATCH", `/cob/${txid}`, {
        status: "REMOVIDA_PELO_USUARIO_RECEBEDOR",
        solicitacaoPagador: "x",
      });
      expect(both.status).toBe(400);
      const removed = await pix("PATCH", `/cob/${txid}`, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" });
      expect(removed.body).toMatchObject({ status: "REMOVIDA_PELO_USUARIO_RECEBEDOR", revisao: 2 });
      const late = await pix("PATCH", `/cob/${txid}`, { valor: { original: "1.00" } });
      expect(late.status).toBe(400);
      expect(late.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida");
      expect((await pix("PUT", `/cob/${txid}`, cobBody())).status).toBe(400);
      await expect(psp.pay(txid)).rejects.toThrow(/REMOVIDA/);
      expect((await pix("GET", `/cob/${txidOf()}`)).body.type).toBe(
        "https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado",
      );
    });

    it("answers 400 with violacoes and records a violation for what breaks the document", async () => {
      const badValor = await pix("PUT", `/cob/${txidOf()}`, cobBody("12.3"));
      expect(badValor.status).toBe(400);
      expect(badValor.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida");
      expect(badValor.body.violacoes).toContainEqual(expect.objectContaining({ propriedade: "cob.valor.original" }));
      expect(takeViolations()).toEqual([
        expect.stringMatching(/^PUT \/v2\/cob\/\w+: request body \/valor\/original: must match pattern/),
      ]);

      const shortTxid = await pix("PUT", "/cob/abcdefghij", cobBody());
      expect(shortTxid.status).toBe(400);
      expect(takeViolations()).toEqual([expect.stringContaining("path parameter txid: must match pattern")]);

      // Beyond the document: a misspelt field would be silently ignored by a PSP.
      const typo = await pix("PUT", `/cob/${txidOf()}`, { ...cobBody(), solicitacaoPagadr: "x" });
      expect(typo.status).toBe(400);
      expect(takeViolations()).toEqual([
        expect.stringContaining("/solicitacaoPagadr: is not a property the document defines"),
      ]);

      // Within the document but refused by the PSP: no violation, still a 400.
      const foreign = await pix("PUT", `/cob/${txidOf()}`, { ...cobBody(), chave: "someone-else@example.com" });
      expect(foreign.status).toBe(400);
      expect(foreign.body.violacoes[0].propriedade).toBe("cob.chave");
      const zero = await pix("PUT", `/cob/${txidOf()}`, cobBody("0.00"));
      expect(zero.status).toBe(400);
    });
  });

  describe("payments, notifications, listing", () => {
    it("registers, shows and deletes a webhook for the receiver's key only", async () => {
      expect((await pix("GET", `/webhook/${RECEIVER_KEY}`)).status).toBe(404);
      expect((await pix("PUT", `/webhook/${RECEIVER_KEY}`, { webhookUrl: receiver.url })).status).toBe(200);
      expect((await pix("GET", `/webhook/${RECEIVER_KEY}`)).body).toEqual({
        webhookUrl: receiver.url,
        chave: RECEIVER_KEY,
        criacao: expect.any(String),
      });
      expect((await pix("PUT", "/webhook/someone@example.com", { webhookUrl: receiver.url })).status).toBe(400);
      expect((await pix("DELETE", `/webhook/${RECEIVER_KEY}`)).status).toBe(204);
      expect((await pix("DELETE", `/webhook/${RECEIVER_KEY}`)).status).toBe(404);
      expect([...psp.webhooks.keys()]).toEqual([PAYOUT_KEY]);
      await pix("PUT", `/webhook/${RECEIVER_KEY}`, { webhookUrl: receiver.url });
    });

    it("pays a charge: CONCLUIDA, GET /pix/{e2eid}, and { pix: [...] } posted to <webhookUrl>/pix", async () => {
      const txid = txidOf();
      await pix("PUT", `/cob/${txid}`, cobBody("25.00"));
      const before = receiver.got.length;
      const paid = await psp.pay(txid, { infoPagador: "obrigado" });
      expect(paid.endToEndId).toMatch(E2E);
      expect(paid).toMatchObject({ txid, valor: "25.00", chave: RECEIVER_KEY, infoPagador: "obrigado" });

      const cob = (await pix("GET", `/cob/${txid}`)).body;
      expect(cob.status).toBe("CONCLUIDA");
      expect(cob.pix).toEqual([paid]);
      expect((await pix("GET", `/pix/${paid.endToEndId}`)).body).toEqual(paid);
      expect((await pix("GET", `/pix/E12345678202001011200abcdefghijk`)).body.type).toBe(
        "https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado",
      );

      expect(receiver.got.length).toBe(before + 1);
      expect(receiver.got.at(-1)).toMatchObject({ path: "/hooks/pix-psp/pix", body: { pix: [paid] } });
      await expect(psp.pay(txid)).rejects.toThrow(/CONCLUIDA/);
    });

    it("drops, repeats and delays notifications when told to", async () => {
      const [a, b, c] = [txidOf(), txidOf(), txidOf()];
      for (const t of [a, b, c]) await pix("PUT", `/cob/${t}`, cobBody("1.00"));
      const count = () => receiver.got.length;

      let n = count();
      psp.faults.dropNotifications = true;
      await psp.pay(a);
      expect(count()).toBe(n);
      psp.faults.dropNotifications = false;

      n = count();
      psp.faults.duplicateNotifications = true;
      const pb = await psp.pay(b);
      expect(receiver.got.slice(n).map((g) => g.body.pix[0].endToEndId)).toEqual([pb.endToEndId, pb.endToEndId]);
      psp.faults.duplicateNotifications = false;

      n = count();
      psp.faults.notificationDelayMs = 150;
      const t0 = Date.now();
      await psp.pay(c);
      expect(count()).toBe(n); // pay() returned before the late notification
      await psp.idle();
      expect(count()).toBe(n + 1);
      expect(receiver.got.at(-1)!.at - t0).toBeGreaterThanOrEqual(140);
      psp.faults.notificationDelayMs = 0;
    });

    it("forges a notification for a Pix the PSP never saw", async () => {
      const txid = txidOf();
      await pix("PUT", `/cob/${txid}`, cobBody("99.90"));
      const status = await psp.forgeNotification(txid);
      expect(status).toBe(200);
      const forged = receiver.got.at(-1)!.body.pix[0];
      expect(forged).toMatchObject({ txid, valor: "99.90", chave: RECEIVER_KEY });
      expect(forged.endToEndId).toMatch(E2E);
      expect((await pix("GET", `/pix/${forged.endToEndId}`)).status).toBe(404);
      expect(psp.charges.get(txid)!.status).toBe("ATIVA");
    });

    it("notifies over mutual TLS with a certificate from the test CA; a forger has none", async () => {
      const mtls = await startHttpsReceiver(psp, { clientCert: "require" });
      try {
        const txid = txidOf();
        await pix("PUT", `/cob/${txid}`, cobBody("3.00"));
        await pix("PUT", `/webhook/${RECEIVER_KEY}`, { webhookUrl: mtls.url });
        const paid = await psp.pay(txid, { notify: false });
        expect(await psp.notify([paid])).toBe(200);
        expect(mtls.got).toEqual([
          { path: "/hooks/pix-psp/pix", body: { pix: [paid] }, peer: "pix-psp webhook client" },
        ]);
        expect(await psp.forgeNotification(txid)).toBe(0); // refused in the handshake
        expect(mtls.got).toHaveLength(1);
        expect(mtls.refused).toHaveLength(1);
      } finally {
        await pix("PUT", `/webhook/${RECEIVER_KEY}`, { webhookUrl: receiver.url });
        await mtls.close();
      }
    });

    it("lists received Pix by horario, with the document's parameter names and pagination", async () => {
      const base = new Date("2030-01-01T10:00:00.000Z");
      const paid = [];
      for (let i = 0; i < 5; i++) {
        const txid = txidOf();
        await pix("PUT", `/cob/${txid}`, cobBody(`${i + 1}.00`));
        paid.push(await psp.pay(txid, { horario: new Date(base.getTime() + i * 60_000), notify: false, force: true }));
      }
      const q = (extra = "") => `/pix?inicio=2030-01-01T10:00:00Z&fim=2030-01-01T10:04:00Z${extra}`;
      const page0 = (await pix("GET", q())).body;
      expect(page0.parametros).toEqual({
        inicio: "2030-01-01T10:00:00Z",
        fim: "2030-01-01T10:04:00Z",
        paginacao: { paginaAtual: 0, itensPorPagina: 2, quantidadeDePaginas: 3, quantidadeTotalDeItens: 5 },
      });
      const pages = [page0.pix];
      for (const p of [1, 2]) pages.push((await pix("GET", q(`&paginacao.paginaAtual=${p}`))).body.pix);
      expect(pages.flat().map((p: any) => p.endToEndId)).toEqual(paid.map((p) => p.endToEndId));
      expect((await pix("GET", q("&paginacao.itensPorPagina=10"))).body.pix).toHaveLength(5);
      expect((await pix("GET", q(`&txid=${paid[3].txid}`))).body.pix).toEqual([paid[3]]);
      expect((await pix("GET", "/pix?inicio=2030-01-01T10:01:30Z&fim=2030-01-01T10:02:30Z")).body.pix).toEqual([
        paid[2],
      ]);

      const backwards = await pix("GET", "/pix?inicio=2030-01-02T00:00:00Z&fim=2030-01-01T00:00:00Z");
      expect(backwards.status).toBe(400);
      expect(backwards.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida");

      // What a client gets wrong: a short parameter name, a missing fim, a date without a zone.
      const wrong = await pix("GET", "/pix?inicio=2030-01-01T10:00:00&paginaAtual=1");
      expect(wrong.status).toBe(400);
      const v = takeViolations();
      expect(v).toContainEqual(expect.stringContaining("query parameter paginaAtual: is not a parameter of GET /pix"));
      expect(v).toContainEqual(expect.stringContaining("query parameter fim: must have required property 'fim'"));
      expect(v).toContainEqual(expect.stringContaining('query parameter inicio: must match format "date-time"'));
    });
  });

  describe("devoluções", () => {
    beforeAll(async () => {
      await pix("PUT", `/webhook/${RECEIVER_KEY}`, { webhookUrl: receiver.url });
    });

    it("takes an id once, even for the same request again (the document's 400), and never returns more than the Pix", async () => {
      const p = await paidPix("10.00");
      const first = await pix("PUT", `/pix/${p.endToEndId}/devolucao/dev1`, { valor: "4.00" });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ id: "dev1", valor: "4.00", natureza: "ORIGINAL", status: "DEVOLVIDO" });
      expect(first.body.rtrId).toMatch(/^D\d{8}\d{12}[a-zA-Z0-9]{11}$/);
      expect(first.body.horario).toEqual({ solicitacao: expect.any(String), liquidacao: expect.any(String) });
      // The document names no kinder answer for a repeat of the same request: an id used before is
      // PixDevolucaoInvalida, so a client whose answer was lost must read the devolução, not repeat it.
      const again = await pix("PUT", `/pix/${p.endToEndId}/devolucao/dev1`, { valor: "4.00" });
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({
        type: problemType("PixDevolucaoInvalida"),
        violacoes: [{ razao: expect.stringContaining("id já utilizado"), propriedade: "devolucao.id", valor: "dev1" }],
      });
      expect(psp.received.get(p.endToEndId)!.devolucoes).toHaveLength(1);
      expect((await pix("GET", `/pix/${p.endToEndId}/devolucao/dev1`)).body).toEqual(first.body);

      const reused = await pix("PUT", `/pix/${p.endToEndId}/devolucao/dev1`, { valor: "5.00" });
      expect(reused.status).toBe(400);
      const over = await pix("PUT", `/pix/${p.endToEndId}/devolucao/dev2`, { valor: "6.01" });
      expect(over.status).toBe(400);
      expect(over.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida");
      expect((await pix("PUT", `/pix/${p.endToEndId}/devolucao/dev2`, { valor: "6.00" })).status).toBe(201);
      expect((await pix("GET", `/pix/${p.endToEndId}`)).body.devolucoes.map((d: any) => d.id)).toEqual([
        "dev1",
        "dev2",
      ]);
      expect((await pix("PUT", `/pix/E12345678202001011200abcdefghijk/devolucao/x`, { valor: "1.00" })).status).toBe(
        404,
      );
      expect((await pix("GET", `/pix/${p.endToEndId}/devolucao/nope`)).body.type).toBe(
        "https://pix.bcb.gov.br/api/v2/error/PixDevolucaoNaoEncontrada",
      );
    });

    it("stays EM_PROCESSAMENTO until settled, then notifies; NAO_REALIZADO gives nothing back", async () => {
      const p = await paidPix("8.00");
      psp.faults.refundOutcome = () => "EM_PROCESSAMENTO";
      const r = await pix("PUT", `/pix/${p.endToEndId}/devolucao/late1`, { valor: "8.00", descricao: "estorno" });
      psp.faults.refundOutcome = () => "DEVOLVIDO";
      expect(r.body).toMatchObject({ status: "EM_PROCESSAMENTO", descricao: "estorno" });
      expect(r.body.horario.liquidacao).toBeUndefined();

      const n = receiver.got.length;
      await psp.settleRefund(p.endToEndId, "late1", "NAO_REALIZADO");
      const shown = (await pix("GET", `/pix/${p.endToEndId}/devolucao/late1`)).body;
      expect(shown).toMatchObject({ status: "NAO_REALIZADO", motivo: expect.any(String) });
      expect(receiver.got.length).toBe(n + 1);
      expect(receiver.got.at(-1)!.body.pix[0].devolucoes[0]).toMatchObject({ id: "late1", status: "NAO_REALIZADO" });
      await expect(psp.settleRefund(p.endToEndId, "late1", "DEVOLVIDO")).rejects.toThrow();

      // The refused devolução returned nothing, so the whole value can still go back.
      const retry = await pix("PUT", `/pix/${p.endToEndId}/devolucao/late2`, { valor: "8.00" });
      expect(retry.body.status).toBe("DEVOLVIDO");
    });
  });

  describe("Efí payouts", () => {
    const QRCODE_INVALIDO = problemType("QrcodeOperacaoInvalida");
    const detalhar = (pixCopiaECola: unknown, t = token) =>
      call(psp, "POST", "/v2/gn/qrcodes/detalhar", { json: { pixCopiaECola }, token: t });
    const payCode = (idEnvio: string, pixCopiaECola: string) =>
      efi("PUT", `/v2/gn/pix/${idEnvio}/qrcode`, { pagador: { chave: PAYOUT_KEY }, pixCopiaECola });

    it("sends once per idEnvio: any request under a used idEnvio is a 409, the same body again too", async () => {
      const made = psp.payoutsMade;
      const res = await efi("PUT", "/v2/gn/pix/saque42a", sendBody());
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        idEnvio: "saque42a",
        e2eId: expect.stringMatching(E2E),
        valor: "15.00",
        horario: { solicitacao: expect.any(String) },
        status: "EM_PROCESSAMENTO",
      });
      // Efí's documentation answers a used idEnvio so and names no kinder answer for a repeat.
      const again = await efi("PUT", "/v2/gn/pix/saque42a", sendBody());
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ nome: "id_envio_duplicado", mensagem: expect.any(String) });
      const other = await efi("PUT", "/v2/gn/pix/saque42a", sendBody("16.00"));
      expect(other.status).toBe(409);
      expect(other.body.nome).toBe("id_envio_duplicado");
      expect(psp.payoutsMade).toBe(made + 1);

      const got = await efi("GET", "/v2/gn/pix/enviados/id-envio/saque42a");
      expect(got.body).toMatchObject({
        endToEndId: res.body.e2eId,
        idEnvio: "saque42a",
        valor: "15.00",
        chave: PAYOUT_KEY,
        status: "REALIZADO",
        infoPagador: "saque 42",
        horario: { solicitacao: expect.any(String), liquidacao: expect.any(String) },
        favorecido: { chave: "fornecedor@example.com" },
      });
      expect((await efi("GET", `/v2/gn/pix/enviados/${res.body.e2eId}`)).body.idEnvio).toBe("saque42a");
      const unknown = await efi("GET", "/v2/gn/pix/enviados/id-envio/nuncaexistiu");
      expect(unknown.status).toBe(404);
      expect(unknown.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado");
    });

    it("refuses another payer key and shapes Efí does not take", async () => {
      const foreign = await efi("PUT", "/v2/gn/pix/saque43", {
        ...sendBody(),
        pagador: { chave: "outra@example.com" },
      });
      expect(foreign.status).toBe(400);
      expect(foreign.body.nome).toBe("chave_invalida");
      expect(takeViolations()).toEqual([]);

      const shape = await efi("PUT", "/v2/gn/pix/saque44", { ...sendBody(), valor: 15 });
      expect(shape.status).toBe(400);
      expect(shape.body.nome).toBe("json_invalido");
      expect(takeViolations()).toEqual([expect.stringContaining("/valor must be string")]);

      // Efí names the code field pixCopiaECola.
      const named = await efi("PUT", "/v2/gn/pix/saque45/qrcode", { pagador: { chave: PAYOUT_KEY }, qrcode: "000201" });
      expect(named.status).toBe(400);
      expect(takeViolations()).toEqual(expect.arrayContaining([expect.stringContaining("qrcode")]));
      expect((await efi("PUT", "/v2/gn/pix/saque46", undefined)).status).toBe(400);
      expect(takeViolations()).toContainEqual(expect.stringContaining("(root) must have required property 'valor'"));
      expect((await call(psp, "GET", "/v2/gn/pix/enviados/id-envio/saque42a")).status).toBe(401);
    });

    it("pays a BR Code: the amount from field 54, or for its own dynamic code from the charge", async () => {
      const code = staticBrCode({
        chave: "loja@example.com",
        valor: "7.50",
        merchantName: "Loja",
        merchantCity: "Recife",
      });
      const res = await efi("PUT", "/v2/gn/pix/qr1/qrcode", { pagador: { chave: PAYOUT_KEY }, pixCopiaECola: code });
      expect(res.status).toBe(201);
      expect(res.body.valor).toBe("7.50");
      expect(psp.payouts.get("qr1")!.favorecido).toEqual({ chave: "loja@example.com" });

      const txid = txidOf();
      const cob = (await pix("PUT", `/cob/${txid}`, cobBody("3.21"))).body;
      const dyn = await payCode("qr2", cob.pixCopiaECola);
      expect(dyn.body.valor).toBe("3.21");
      // Paid: the charge is CONCLUIDA, and its code pays no more.
      expect((await pix("GET", `/cob/${txid}`)).body.status).toBe("CONCLUIDA");
      const twice = await payCode("qr2b", cob.pixCopiaECola);
      expect([twice.status, twice.body.type]).toEqual([400, QRCODE_INVALIDO]);

      const noAmount = staticBrCode({ chave: "loja@example.com", merchantName: "Loja", merchantCity: "Recife" });
      const refused = await efi("PUT", "/v2/gn/pix/qr3/qrcode", {
        pagador: { chave: PAYOUT_KEY },
        pixCopiaECola: noAmount,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/QrcodeOperacaoInvalida");
      const badCrc = await efi("PUT", "/v2/gn/pix/qr4/qrcode", {
        pagador: { chave: PAYOUT_KEY },
        pixCopiaECola: code.slice(0, -4) + "0000",
      });
      expect(badCrc.status).toBe(400);
    });

    it("loses the answer after paying; the payout is there to read, and a retry is a 409 that pays nothing more", async () => {
      const made = psp.payoutsMade;
      psp.faults.loseNextPayoutResponse = 1;
      await expect(efi("PUT", "/v2/gn/pix/lost1", sendBody("2.00"))).rejects.toThrow();
      expect(psp.payoutsMade).toBe(made + 1);
      expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/lost1")).body.status).toBe("REALIZADO");
      const retry = await efi("PUT", "/v2/gn/pix/lost1", sendBody("2.00"));
      expect(retry.status).toBe(409);
      expect(retry.body.nome).toBe("id_envio_duplicado");
      expect(psp.payoutsMade).toBe(made + 1);
    });

    it("ends NAO_REALIZADO, or stays EM_PROCESSAMENTO until settled", async () => {
      psp.faults.payoutOutcome = ({ valorCentavos }) => (valorCentavos > 2000 ? "NAO_REALIZADO" : "EM_PROCESSAMENTO");
      try {
        await efi("PUT", "/v2/gn/pix/big1", sendBody("20.01"));
        await efi("PUT", "/v2/gn/pix/slow1", sendBody("20.00"));
      } finally {
        psp.faults.payoutOutcome = () => "REALIZADO";
      }
      expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/big1")).body.status).toBe("NAO_REALIZADO");
      const slow = (await efi("GET", "/v2/gn/pix/enviados/id-envio/slow1")).body;
      expect(slow.status).toBe("EM_PROCESSAMENTO");
      expect(slow.horario.liquidacao).toBeUndefined();
      psp.settlePayout("slow1", "REALIZADO");
      expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/slow1")).body.status).toBe("REALIZADO");
      expect(() => psp.settlePayout("slow1", "NAO_REALIZADO")).toThrow();
    });

    it("sends to a key on PUT /v3/gn/pix/:idEnvio (the SDK's path) as on v2, with one idEnvio space; codes are paid on v2 only", async () => {
      const res = await efi("PUT", "/v3/gn/pix/versao3a", sendBody("4.00"));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        idEnvio: "versao3a",
        e2eId: expect.stringMatching(E2E),
        valor: "4.00",
        horario: { solicitacao: expect.any(String) },
        status: "EM_PROCESSAMENTO",
      });
      expect(psp.payouts.get("versao3a")).toMatchObject({
        valor: "4.00",
        chave: PAYOUT_KEY,
        favorecido: { chave: "fornecedor@example.com" },
      });
      expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/versao3a")).body.endToEndId).toBe(res.body.e2eId);
      expect((await efi("PUT", "/v2/gn/pix/versao3a", sendBody("4.00"))).status).toBe(409);

      const code = staticBrCode({
        chave: "loja@example.com",
        valor: "1.00",
        merchantName: "Loja",
        merchantCity: "Recife",
      });
      const onV3 = await efi("PUT", "/v3/gn/pix/versao3b/qrcode", {
        pagador: { chave: PAYOUT_KEY },
        pixCopiaECola: code,
      });
      expect([onV3.status, onV3.body.nome]).toEqual([404, "rota_nao_encontrada"]);
    });

    it("sends nothing from a payer key without a webhook: 400, and the idEnvio is still free", async () => {
      expect((await pix("DELETE", `/webhook/${PAYOUT_KEY}`)).status).toBe(204);
      const made = psp.payoutsMade;
      try {
        const toKey = await efi("PUT", "/v3/gn/pix/semwebhook1", sendBody());
        expect(toKey.status).toBe(400);
        expect(toKey.body).toEqual({ nome: "webhook_nao_configurado", mensagem: expect.any(String) });
        const code = staticBrCode({
          chave: "loja@example.com",
          valor: "1.00",
          merchantName: "Loja",
          merchantCity: "Recife",
        });
        expect((await payCode("semwebhook2", code)).body.nome).toBe("webhook_nao_configurado");
        expect(psp.payoutsMade).toBe(made);
      } finally {
        expect((await pix("PUT", `/webhook/${PAYOUT_KEY}`, { webhookUrl: payerHook.url })).status).toBe(200);
      }
      expect((await efi("PUT", "/v3/gn/pix/semwebhook1", sendBody())).status).toBe(201);
    });

    it("notifies each outcome to the payer key's webhook as tipo SOLICITACAO: REALIZADO, NAO_REALIZADO, nothing while EM_PROCESSAMENTO", async () => {
      psp.faults.payoutOutcome = ({ idEnvio }) =>
        idEnvio === "solicit2" ? "NAO_REALIZADO" : idEnvio === "solicit3" ? "EM_PROCESSAMENTO" : "REALIZADO";
      try {
        for (const id of ["solicit1", "solicit2", "solicit3"])
          expect((await efi("PUT", `/v3/gn/pix/${id}`, sendBody("6.50"))).status).toBe(201);
      } finally {
        psp.faults.payoutOutcome = () => "REALIZADO";
      }
      await psp.idle();
      const about = (idEnvio: string) =>
        psp.payoutNotifications.filter((n) => (n.body.pix as any[]).some((i) => i.gnExtras?.idEnvio === idEnvio));

      const ok = psp.payouts.get("solicit1")!;
      expect(about("solicit1")).toMatchObject([{ url: `${payerHook.url}/pix`, status: 200 }]);
      expect(about("solicit1")[0].body).toEqual({
        pix: [
          {
            endToEndId: ok.endToEndId,
            chave: PAYOUT_KEY,
            tipo: "SOLICITACAO",
            status: "REALIZADO",
            valor: "6.50",
            horario: ok.horario.liquidacao,
            infoPagador: "saque 42",
            gnExtras: { idEnvio: "solicit1" },
          },
        ],
      });

      // Refused: no settlement time, and Efí's reason under gnExtras.erro.
      const refused = psp.payouts.get("solicit2")!;
      expect(about("solicit2").map((n) => n.body)).toEqual([
        {
          pix: [
            {
              endToEndId: refused.endToEndId,
              chave: PAYOUT_KEY,
              tipo: "SOLICITACAO",
              status: "NAO_REALIZADO",
              valor: "6.50",
              horario: null,
              infoPagador: "saque 42",
              gnExtras: {
                idEnvio: "solicit2",
                erro: { codigo: expect.any(String), origem: expect.any(String), motivo: expect.any(String) },
              },
            },
          ],
        },
      ]);

      // Still in processing: nothing to say until it settles.
      expect(about("solicit3")).toEqual([]);
      psp.settlePayout("solicit3", "NAO_REALIZADO");
      await psp.idle();
      expect(about("solicit3").map((n) => (n.body.pix as any[])[0])).toEqual([
        expect.objectContaining({
          tipo: "SOLICITACAO",
          status: "NAO_REALIZADO",
          gnExtras: expect.objectContaining({ idEnvio: "solicit3" }),
        }),
      ]);

      // Delivered as the API Pix callback is: to <webhookUrl>/pix.
      const delivered = payerHook.got.filter((g) => /^solicit/.test(g.body.pix?.[0]?.gnExtras?.idEnvio ?? ""));
      expect(delivered.map((g) => [g.path, g.body.pix[0].gnExtras.idEnvio])).toEqual([
        ["/hooks/pix-psp/pix", "solicit1"],
        ["/hooks/pix-psp/pix", "solicit2"],
        ["/hooks/pix-psp/pix", "solicit3"],
      ]);
    });

    it("details a dynamic code on POST /v2/gn/qrcodes/detalhar: 200 for a charge it holds, 400 for a static or unknown one, 422 for no code", async () => {
      const foreign = psp.issueForeignCharge({
        chave: "loja@outra.example",
        valor: "42.10",
        solicitacaoPagador: "Pedido 9",
      });
      const ok = await detalhar(foreign.pixCopiaECola);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({
        tipoCob: "cob",
        txid: foreign.txid,
        revisao: 0,
        calendario: { criacao: foreign.calendario.criacao, apresentacao: expect.any(String), expiracao: 3600 },
        status: "ATIVA",
        recebedor: { nome: expect.any(String), cnpj: expect.any(String) },
        valor: { final: "42.10" },
        chave: "loja@outra.example",
        solicitacaoPagador: "Pedido 9",
      });

      const kind = (r: Res) => [r.status, r.body.type];
      const staticCode = staticBrCode({
        chave: "loja@outra.example",
        valor: "1.00",
        merchantName: "Loja",
        merchantCity: "Recife",
      });
      expect(kind(await detalhar(staticCode))).toEqual([400, QRCODE_INVALIDO]);
      const neverIssued = dynamicBrCode({
        location: "qr.pix-psp.test/qr/v2/nuncaemitida",
        merchantName: "Loja",
        merchantCity: "Recife",
      });
      expect(kind(await detalhar(neverIssued))).toEqual([400, QRCODE_INVALIDO]);
      expect(kind(await detalhar(foreign.pixCopiaECola.slice(0, -4) + "0000"))).toEqual([422, QRCODE_INVALIDO]);
      // Efí's field is pixCopiaECola: another name is the client's mistake, recorded.
      const misnamed = await call(psp, "POST", "/v2/gn/qrcodes/detalhar", {
        json: { qrcode: foreign.pixCopiaECola },
        token,
      });
      expect(kind(misnamed)).toEqual([422, QRCODE_INVALIDO]);
      expect(takeViolations()).toEqual([expect.stringContaining("POST /v2/gn/qrcodes/detalhar request body")]);

      // Decoding needs the scope gn.qrcodes.read.
      const sendOnly = await getToken(psp, "pix.send");
      expect((await detalhar(foreign.pixCopiaECola, sendOnly)).status).toBe(403);
    });

    it("issues another receiver's charge: its dynamic code pays once, at the charge's amount, and not once expired", async () => {
      const charge = psp.issueForeignCharge({ chave: "loja@outra.example", valor: "12.00" });
      expect(charge).toMatchObject({
        chave: "loja@outra.example",
        status: "ATIVA",
        valor: { original: "12.00" },
        calendario: { expiracao: 3600 },
      });
      // A dynamic code: the amount is not in it but at its location.
      expect(readBrCode(charge.pixCopiaECola)).toMatchObject({ location: charge.location, valor: null, chave: null });

      const paid = await payCode("alheia1", charge.pixCopiaECola);
      expect([paid.status, paid.body.valor]).toEqual([201, "12.00"]);
      expect(psp.payouts.get("alheia1")!.favorecido).toEqual({ chave: "loja@outra.example" });
      expect(charge.status).toBe("CONCLUIDA");
      expect((await detalhar(charge.pixCopiaECola)).body.status).toBe("CONCLUIDA");
      const twice = await payCode("alheia2", charge.pixCopiaECola);
      expect([twice.status, twice.body.type]).toEqual([400, QRCODE_INVALIDO]);

      const brief = psp.issueForeignCharge({ chave: "loja@outra.example", valor: "1.00", expiracao: 1 });
      await sleep(1100);
      expect((await detalhar(brief.pixCopiaECola)).body.status).toBe("REMOVIDA_PELO_PSP");
      expect((await payCode("alheia3", brief.pixCopiaECola)).status).toBe(400);
      expect(psp.payouts.has("alheia2") || psp.payouts.has("alheia3")).toBe(false);
    });
  });

  describe("failNext and delayNext", () => {
    it("answers the next matching requests with the injected status, then normally", async () => {
      const txid = txidOf();
      psp.faults.failNext.push({ path: /\/cob\//, status: 503, count: 2 });
      for (let i = 0; i < 2; i++) {
        const res = await pix("PUT", `/cob/${txid}`, cobBody());
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({
          type: "https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel",
          status: 503,
        });
      }
      expect(psp.charges.has(txid)).toBe(false); // a failure injected before the work
      expect((await pix("PUT", `/cob/${txid}`, cobBody())).status).toBe(201);
      expect(psp.faults.failNext).toEqual([]);

      psp.faults.failNext.push({ path: /^\/oauth\/token$/, status: 500, count: 1 });
      const failed = await call(psp, "POST", "/oauth/token", {
        raw: "grant_type=client_credentials",
        basic: [psp.clientId, psp.clientSecret],
      });
      expect(failed.status).toBe(500);
      // Efí's documented 500 is ApplicationError.
      psp.faults.failNext.push({ path: /^\/v2\/gn\//, status: 500, count: 1 });
      expect((await call(psp, "GET", "/v2/gn/pix/enviados/id-envio/x", { token })).body).toEqual({
        nome: "erro_aplicacao",
        mensagem: expect.any(String),
      });
    });

    it("delays the answer after doing the work: a client that times out has created the charge", async () => {
      const txid = txidOf();
      psp.faults.delayNext.push({ path: new RegExp(`/cob/${txid}$`), ms: 300, count: 1 });
      const t0 = Date.now();
      expect((await pix("PUT", `/cob/${txid}`, cobBody())).status).toBe(201);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
      // The same, with a client that gives up first.
      const txid2 = txidOf();
      psp.faults.delayNext.push({ path: new RegExp(`/cob/${txid2}$`), ms: 400, count: 1 });
      await expect(call(psp, "PUT", `/v2/cob/${txid2}`, { json: cobBody(), token, timeoutMs: 100 })).rejects.toThrow(
        "client timeout",
      );
      expect(psp.charges.get(txid2)?.status).toBe("ATIVA");
      expect((await pix("GET", `/cob/${txid2}`)).status).toBe(200);

      psp.faults.delayNext.push({ path: /\/v2\/gn\/pix\/slowsend$/, ms: 300, count: 1 });
      await expect(
        call(psp, "PUT", "/v2/gn/pix/slowsend", {
          json: { valor: "1.00", pagador: { chave: PAYOUT_KEY }, favorecido: { chave: "x@example.com" } },
          token,
          timeoutMs: 100,
        }),
      ).rejects.toThrow();
      expect(psp.payouts.get("slowsend")?.status).toBe("REALIZADO");
    });

    it("records every request it served, with the status it answered (0: none)", async () => {
      const txid = txidOf();
      psp.faults.failNext.push({ path: /\/cob\//, status: 500, count: 1 });
      await pix("GET", `/cob/${txid}?revisao=0`);
      await pix("GET", `/cob/${txid}`);
      expect(psp.requests.slice(-2)).toEqual([
        { method: "GET", path: `/v2/cob/${txid}?revisao=0`, status: 500, at: expect.any(Number) },
        { method: "GET", path: `/v2/cob/${txid}`, status: 404, at: expect.any(Number) },
      ]);
      expect(psp.requests.find((r) => r.path === "/v2/gn/pix/lost1" && r.status === 0)).toBeDefined();
    });
  });

  // The faults that make money out an unknown outcome for a client: it must read, not guess.
  describe("rateLimitNext, loseNext, failNext afterWork, readLagMs", () => {
    it("rateLimitNext: 429 with Retry-After, and nothing done", async () => {
      const txid = txidOf();
      psp.faults.rateLimitNext.push({ path: new RegExp(`/cob/${txid}$`), count: 1, retryAfterSeconds: 7 });
      const limited = await pix("PUT", `/cob/${txid}`, cobBody());
      expect(limited.status).toBe(429);
      expect(limited.headers["retry-after"]).toBe("7");
      expect(limited.body).toMatchObject({ type: problemType("BaldeFichasVazio"), status: 429 });
      expect(psp.charges.has(txid)).toBe(false);
      expect((await pix("PUT", `/cob/${txid}`, cobBody())).status).toBe(201);

      // Nothing paid on Efí either, so the idEnvio is still free.
      const made = psp.payoutsMade;
      psp.faults.rateLimitNext.push({ path: /^\/v3\/gn\/pix\/limitado1$/, count: 1, retryAfterSeconds: 2 });
      const send = await efi("PUT", "/v3/gn/pix/limitado1", sendBody());
      expect([send.status, send.headers["retry-after"]]).toEqual([429, "2"]);
      expect(psp.payoutsMade).toBe(made);
      expect((await efi("PUT", "/v3/gn/pix/limitado1", sendBody())).status).toBe(201);
      expect(psp.faults.rateLimitNext).toEqual([]);
    });

    it("loseNext: the request is carried out, then the connection drops with no answer", async () => {
      const p = await paidPix("5.00");
      const path = `/pix/${p.endToEndId}/devolucao/perdida1`;
      psp.faults.loseNext.push({ path: /\/devolucao\/perdida1$/, count: 1 });
      await expect(pix("PUT", path, { valor: "5.00" })).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(psp.requests.at(-1)).toMatchObject({ method: "PUT", path: `/v2${path}`, status: 0 });
      expect(psp.received.get(p.endToEndId)!.devolucoes).toEqual([
        expect.objectContaining({ id: "perdida1", valor: "5.00" }),
      ]);
      // Asking again is a used id (400) though the devolução was made: only its read tells.
      expect((await pix("PUT", path, { valor: "5.00" })).status).toBe(400);
      expect((await pix("GET", path)).body).toMatchObject({ id: "perdida1", status: "DEVOLVIDO" });

      const made = psp.payoutsMade;
      psp.faults.loseNext.push({ path: /^\/v3\/gn\/pix\/perdido2$/, count: 1 });
      await expect(efi("PUT", "/v3/gn/pix/perdido2", sendBody())).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(psp.payoutsMade).toBe(made + 1);
      expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/perdido2")).body.status).toBe("REALIZADO");
      expect(psp.faults.loseNext).toEqual([]);
    });

    it("failNext with afterWork: the work is done, and the injected failure is the answer (Efí's 500 erro_aplicacao)", async () => {
      const made = psp.payoutsMade;
      psp.faults.failNext.push({ path: /^\/v3\/gn\/pix\/depois1$/, status: 500, count: 1, afterWork: true });
      const failed = await efi("PUT", "/v3/gn/pix/depois1", sendBody("3.00"));
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual({ nome: "erro_aplicacao", mensagem: expect.any(String) });
      expect(psp.payoutsMade).toBe(made + 1);
      expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/depois1")).body).toMatchObject({
        idEnvio: "depois1",
        valor: "3.00",
        status: "REALIZADO",
      });
      expect((await efi("PUT", "/v3/gn/pix/depois1", sendBody("3.00"))).status).toBe(409);

      // The same on API Pix: the document's 500, and the devolução made.
      const p = await paidPix("2.00");
      psp.faults.failNext.push({ path: /\/devolucao\/depois2$/, status: 500, count: 1, afterWork: true });
      const refund = await pix("PUT", `/pix/${p.endToEndId}/devolucao/depois2`, { valor: "2.00" });
      expect([refund.status, refund.body.type]).toEqual([500, problemType("ErroInternoDoServidor")]);
      expect(psp.received.get(p.endToEndId)!.devolucoes!.map((d) => d.id)).toEqual(["depois2"]);
      expect(psp.faults.failNext).toEqual([]);
    });

    it("readLagMs: a new devolução or payout is not found by its read until the lag has passed", async () => {
      psp.faults.readLagMs = 400;
      try {
        const p = await paidPix("1.00");
        const path = `/pix/${p.endToEndId}/devolucao/atrasada1`;
        expect((await pix("PUT", path, { valor: "1.00" })).status).toBe(201);
        expect((await efi("PUT", "/v3/gn/pix/atrasado2", sendBody("1.00"))).status).toBe(201);
        const refund = await pix("GET", path);
        expect([refund.status, refund.body.type]).toEqual([404, problemType("PixDevolucaoNaoEncontrada")]);
        const payout = await efi("GET", "/v2/gn/pix/enviados/id-envio/atrasado2");
        expect([payout.status, payout.body.type]).toEqual([404, problemType("PixEnviadoNaoEncontrado")]);

        await sleep(450);
        expect((await pix("GET", path)).body).toMatchObject({ id: "atrasada1", status: "DEVOLVIDO" });
        expect((await efi("GET", "/v2/gn/pix/enviados/id-envio/atrasado2")).body).toMatchObject({
          idEnvio: "atrasado2",
          status: "REALIZADO",
        });
      } finally {
        psp.faults.readLagMs = 0;
      }
    });
  });
});

describe("webhook registration, as Efí does it (the default)", () => {
  let psp: PixPsp;
  let token: string;
  const register = (webhookUrl: string, o: { skipMtlsChecking?: boolean } = {}) =>
    call(psp, "PUT", `/v2/webhook/${RECEIVER_KEY}`, {
      json: { webhookUrl },
      token,
      headers: o.skipMtlsChecking ? { "x-skip-mtls-checking": "true" } : {},
    });
  const handshakesWith = (url: string) => psp.handshakes.filter((h) => h.url === url);
  const TEST_POST = { evento: "teste_webhook" };

  beforeAll(async () => {
    psp = await startPixPsp({ receiverKey: RECEIVER_KEY, quiet: true });
    token = await getToken(psp);
  });
  afterAll(() => psp.close());
  afterEach(async () => {
    expect(psp.violations).toEqual([]);
    if (psp.webhooks.has(RECEIVER_KEY))
      expect((await call(psp, "DELETE", `/v2/webhook/${RECEIVER_KEY}`, { token })).status).toBe(204);
  });

  it("refuses an https URL that answers a caller without a client certificate, unless told the check is skipped", async () => {
    const open = await startHttpsReceiver(psp, { clientCert: "none" });
    try {
      const refused = await register(open.url);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ nome: "webhook_invalido", mensagem: expect.stringContaining("TLS mútuo") });
      expect(handshakesWith(open.url)).toEqual([{ url: open.url, withCertificate: false, status: 200 }]);
      expect(psp.webhooks.has(RECEIVER_KEY)).toBe(false);

      // x-skip-mtls-checking: true says the service checks its callers itself: no probe, only the test POST.
      const accepted = await register(open.url, { skipMtlsChecking: true });
      expect(accepted.status).toBe(200);
      expect(handshakesWith(open.url).slice(1)).toEqual([{ url: open.url, withCertificate: true, status: 200 }]);
      expect(psp.webhooks.get(RECEIVER_KEY)).toBe(open.url);
      // Both went to the URL as registered, not to <url>/pix.
      expect(open.got.map((g) => [g.path, g.body])).toEqual([
        ["/hooks/pix-psp", TEST_POST],
        ["/hooks/pix-psp", TEST_POST],
      ]);
    } finally {
      await open.close();
    }
  });

  it("accepts an https URL that demands a client certificate from the test CA: the probe fails its handshake (0), the test POST gets 2xx", async () => {
    const mtls = await startHttpsReceiver(psp, { clientCert: "require" });
    try {
      const res = await register(mtls.url);
      expect(res.status).toBe(200);
      expect(handshakesWith(mtls.url)).toEqual([
        { url: mtls.url, withCertificate: false, status: 0 },
        { url: mtls.url, withCertificate: true, status: 200 },
      ]);
      expect(mtls.refused).toHaveLength(1);
      expect(mtls.got).toEqual([{ path: "/hooks/pix-psp", body: TEST_POST, peer: "pix-psp webhook client" }]);
      expect((await call(psp, "GET", `/v2/webhook/${RECEIVER_KEY}`, { token })).body).toMatchObject({
        webhookUrl: mtls.url,
        chave: RECEIVER_KEY,
      });
    } finally {
      await mtls.close();
    }
  });

  it("refuses an http URL without calling it", async () => {
    const plain = await startReceiver();
    try {
      for (const skipMtlsChecking of [false, true]) {
        const res = await register(plain.url, { skipMtlsChecking });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ nome: "valor_invalido", mensagem: expect.stringContaining("HTTPS") });
      }
      expect(handshakesWith(plain.url)).toEqual([]);
      expect(plain.got).toEqual([]);
      expect(psp.webhooks.has(RECEIVER_KEY)).toBe(false);
    } finally {
      await plain.close();
    }
  });

  it("refuses a URL that answers the test POST with 404", async () => {
    const missing = await startHttpsReceiver(psp, { clientCert: "require", status: 404 });
    try {
      const res = await register(missing.url);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ nome: "webhook_invalido", mensagem: expect.stringContaining("404") });
      expect(handshakesWith(missing.url)).toEqual([
        { url: missing.url, withCertificate: false, status: 0 },
        { url: missing.url, withCertificate: true, status: 404 },
      ]);
      expect(psp.webhooks.has(RECEIVER_KEY)).toBe(false);
    } finally {
      await missing.close();
    }
  });
});

describe("the test PSP's options", () => {
  it("serves API Pix under another base path, rejects a second PUT /cob, and replays a repeated idEnvio or devolução when told to", async () => {
    const receiver = await startReceiver();
    const psp = await startPixPsp({
      receiverKey: RECEIVER_KEY,
      basePath: "/api/v2/",
      duplicateCobPut: "reject",
      efiSameIdEnvio: "replay",
      devolucaoRepeat: "replay",
      webhookHandshake: "none",
      quiet: true,
    });
    try {
      expect(psp.apiUrl).toBe(`${psp.origin}/api/v2`);
      const token = await getToken(psp);
      const txid = txidOf();
      expect((await call(psp, "PUT", `/api/v2/cob/${txid}`, { json: cobBody(), token })).status).toBe(201);
      const again = await call(psp, "PUT", `/api/v2/cob/${txid}`, { json: cobBody(), token });
      expect(again.status).toBe(400);
      expect(again.body.violacoes[0].propriedade).toBe("cob.txid");
      expect((await call(psp, "GET", `/v2/cob/${txid}`, { token })).status).toBe(404);

      // "none": a plain http URL is stored as given, without calling it.
      expect(
        (await call(psp, "PUT", `/api/v2/webhook/${RECEIVER_KEY}`, { json: { webhookUrl: receiver.url }, token }))
          .status,
      ).toBe(200);
      expect(psp.handshakes).toEqual([]);
      expect(receiver.got).toEqual([]);

      // "replay": the same request again is answered as the first, without paying twice; another body is still refused.
      const send = { valor: "1.00", pagador: { chave: RECEIVER_KEY }, favorecido: { chave: "x@example.com" } };
      const first = await call(psp, "PUT", "/v2/gn/pix/conf1", { json: send, token });
      expect(first.status).toBe(201);
      const repeat = await call(psp, "PUT", "/v2/gn/pix/conf1", { json: send, token });
      expect([repeat.status, repeat.body]).toEqual([201, first.body]);
      expect((await call(psp, "PUT", "/v2/gn/pix/conf1", { json: { ...send, valor: "2.00" }, token })).status).toBe(
        409,
      );
      expect(psp.payoutsMade).toBe(1);

      const paid = await psp.pay(txid);
      const path = `/api/v2/pix/${paid.endToEndId}/devolucao/repete1`;
      const refund = await call(psp, "PUT", path, { json: { valor: "1.00" }, token });
      expect(refund.status).toBe(201);
      const refundAgain = await call(psp, "PUT", path, { json: { valor: "1.00" }, token });
      expect([refundAgain.status, refundAgain.body]).toEqual([201, refund.body]);
      expect((await call(psp, "PUT", path, { json: { valor: "2.00" }, token })).status).toBe(400);
      expect(psp.received.get(paid.endToEndId)!.devolucoes).toHaveLength(1);
      expect(psp.violations).toEqual([]);
    } finally {
      await psp.close();
      await receiver.close();
    }
    expect(fs.existsSync(psp.files.dir)).toBe(false); // no key material left behind
  });
});

describe("the OpenAPI validator", () => {
  const api = pixOpenApi();
  const now = new Date().toISOString();
  const cob = {
    calendario: { criacao: now, expiracao: 3600 },
    txid: "a".repeat(30),
    revisao: 0,
    loc: { id: 1, location: "qr.example/v2/x", tipoCob: "cob", criacao: now, txid: "a".repeat(30) },
    location: "qr.example/v2/x",
    status: "ATIVA",
    valor: { original: "1.00" },
    chave: RECEIVER_KEY,
    pixCopiaECola: "000201",
  };
  // The document's cobResponse4, with the loc.txid and loc.criacao CobVGerada requires.
  const cobv = {
    calendario: { criacao: "2020-09-09T20:15:00.358Z", dataDeVencimento: "2020-12-31", validadeAposVencimento: 30 },
    txid: "7978c0c97ea847e78e8849634473c1f1",
    revisao: 0,
    loc: {
      id: 789,
      location: "pix.example.com/qr/c2/cobv/9d36b84fc70b478fb95c12729b90ca25",
      tipoCob: "cobv",
      criacao: "2020-09-09T20:15:00.358Z",
      txid: "7978c0c97ea847e78e8849634473c1f1",
    },
    location: "pix.example.com/qr/c2/cobv/9d36b84fc70b478fb95c12729b90ca25",
    status: "ATIVA",
    devedor: {
      logradouro: "Alameda Souza, Numero 80, Bairro Braz",
      cidade: "Recife",
      uf: "PE",
      cep: "70011750",
      cpf: "12345678909",
      nome: "Francisco da Silva",
    },
    recebedor: {
      logradouro: "Rua 15 Numero 1200, Bairro São Luiz",
      cidade: "São Paulo",
      uf: "SP",
      cep: "70800100",
      cnpj: "56989000019533",
      nome: "Empresa de Logística SA",
    },
    valor: { original: "123.45" },
    chave: "5f84a4c5-c5cb-4599-9f13-7eb4d419dacc",
    solicitacaoPagador: "Cobrança dos serviços prestados.",
  };
  const put = api.match("PUT", `/cob/${"a".repeat(30)}`)!;

  it("accepts a right response and flags a wrong one", () => {
    expect(api.validateResponse(put, { status: 201, contentType: "application/json", body: cob })).toEqual([]);
    const { revisao: _r, ...noRevisao } = cob;
    expect(
      api
        .validateResponse(put, { status: 201, contentType: "application/json", body: { ...noRevisao, status: "PAGA" } })
        .sort(),
    ).toEqual([
      "response 201 body /revisao: must have required property 'revisao'",
      "response 201 body /status: must be equal to one of the allowed values (ATIVA, CONCLUIDA, REMOVIDA_PELO_USUARIO_RECEBEDOR, REMOVIDA_PELO_PSP)",
    ]);
    expect(api.validateResponse(put, { status: 201, contentType: "text/plain", body: cob })[0]).toContain(
      "content-type text/plain",
    );
    expect(api.validateResponse(put, { status: 409, contentType: "application/problem+json", body: {} })).toEqual([
      "status 409 is not a documented response of PUT /cob/{txid}",
    ]);
    expect(
      api.validateResponse(put, {
        status: 503,
        contentType: "application/problem+json",
        body: { type: "about:blank", title: "x", status: 503 },
      }),
    ).toEqual(["problem type about:blank is not https://pix.bcb.gov.br/api/v2/error/<TipoErro>"]);
  });

  it("takes readOnly properties out of what a request must send, not out of a response", () => {
    // PayloadLocation requires id, location and criacao, all readOnly.
    expect(api.validateSchema("PayloadLocation", { tipoCob: "cob" }, "request")).toEqual([]);
    expect(api.validateSchema("PayloadLocation", { tipoCob: "cob" }, "response")).toHaveLength(3);
  });

  it("anchors the document's patterns", () => {
    const raw = loadPixOpenApi({ anchorPatterns: false });
    expect(raw.validateSchema("TxId", "a".repeat(40), "request")).toEqual([]);
    expect(api.validateSchema("TxId", "a".repeat(40), "request")).not.toEqual([]);
    expect(api.validateSchema("EndToEndId", "E12345678202009091221abcdef12345", "response")).toEqual([]);
  });

  it("needs each of its errata: the document's own examples fail without them", () => {
    const raw = loadPixOpenApi({ errata: false });
    const cases: Record<string, [string, unknown]> = {
      "cpf-pattern-slashes": ["PessoaFisica", { cpf: "12345678909", nome: "Fulano" }],
      "pix-consultados-required": [
        "PixConsultados",
        {
          parametros: {
            inicio: now,
            fim: now,
            paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 0 },
          },
          pix: [],
        },
      ],
      "webhook-completo-chave": [
        "WebhookCompleto",
        { webhookUrl: "https://pix.example.com/api/webhook/", chave: RECEIVER_KEY, criacao: now },
      ],
      "location-without-scheme": ["CobGerada", cob],
      "cobv-desconto-oneof": [
        "CobVSolicitada",
        {
          calendario: { dataDeVencimento: "2020-12-31" },
          devedor: { cpf: "12345678909", nome: "Francisco da Silva" },
          valor: { original: "123.45", desconto: { modalidade: 3, valorPerc: "0.10" } },
          chave: RECEIVER_KEY,
        },
      ],
      "cobs-idcob": [
        "CobsVConsultadas",
        {
          parametros: {
            inicio: now,
            fim: now,
            paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 1 },
          },
          cobs: [cobv],
        },
      ],
      "dados-recebedor-required": ["CobVGerada", cobv],
      // The document's recBody2, as POST /rec sends it.
      "rec-base-required": [
        "RecSolicitada",
        {
          vinculo: { contrato: "998782003", devedor: { cpf: "02989131415", nome: "Beltrano da Silva" } },
          calendario: { dataInicial: "2024-10-10", periodicidade: "ANUAL" },
          valor: { valorMinimoRecebedor: "5000.00" },
          politicaRetentativa: "PERMITE_3R_7D",
        },
      ],
      // The document's recResponse4, its history as the schema words it (status, not the example's nome).
      "dados-pagador-rec-ispb": [
        "RecCompleta",
        {
          idRec: "RR7784567820240528123defgh775",
          status: "CRIADA",
          valor: { valorRec: "250.00" },
          vinculo: { contrato: "9612389", devedor: { cpf: "45832633800", nome: "Alfredo Tavares" } },
          calendario: { dataInicial: "2024-02-01", periodicidade: "MENSAL" },
          politicaRetentativa: "PERMITE_3R_7D",
          pagador: { codMun: "1509873", cpf: "45832633800", ispbParticipante: "52780028" },
          recebedor: { cnpj: "56958712500811", nome: "Academia Saúde" },
          atualizacao: [{ data: "2024-01-03T08:30:02.050Z", status: "CRIADA" }],
        },
      ],
      // The document's recWebhookNotification1.
      "rec-notification-required": [
        "RecNotification",
        {
          idRec: "RR1026652320240821lab77511abf",
          status: "APROVADA",
          atualizacao: [
            { status: "CRIADA", data: "2024-08-20T10:12:07.567Z" },
            { status: "APROVADA", data: "2024-08-22T12:43:53.337Z" },
          ],
          ativacao: { tipoJornada: "JORNADA_3", dadosJornada: { txid: "r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6" } },
        },
      ],
      // A Pix of a recurring charge, its value as the document's pix examples give one.
      "pix-automatico-valor": [
        "PixAutomatico",
        {
          endToEndId: "E12345678202406201221abcdef12345",
          txid: "3136957d93134f2184b369e8f1c0729d",
          valor: "106.07",
          horario: "2024-04-15T12:00:00.000Z",
        },
      ],
      // The document's recResponse5 (its cancelamento), history worded as the schema says.
      "encerramento-oneof": [
        "RecEncerramento",
        {
          encerramento: {
            cancelamento: {
              solicitante: "USUARIO_RECEBEDOR",
              codigo: "SLCR",
              descricao: "Cancelamento solicitado pelo usuário recebedor",
            },
          },
        },
      ],
    };
    expect(Object.keys(cases).sort()).toEqual(ERRATA.map((e) => e.id).sort());
    for (const [id, [schema, value]] of Object.entries(cases)) {
      expect(raw.validateSchema(schema, value, "response"), id).not.toEqual([]);
      expect(api.validateSchema(schema, value, "response"), id).toEqual([]);
    }
  });

  it("checks notification bodies against the webhook callback's schema", () => {
    expect(
      api.validateNotification({
        pix: [{ endToEndId: "E12345678202009091221abcdef12345", valor: "1.00", horario: now }],
      }),
    ).toEqual([]);
    expect(api.validateNotification({ pix: [{ endToEndId: "E1", valor: "1", horario: "ontem" }], extra: 1 })).toEqual([
      "notification body /pix/0/endToEndId: must NOT have fewer than 32 characters",
      'notification body /pix/0/endToEndId: must match pattern "^(?:[a-zA-Z0-9]{32})$"',
      'notification body /pix/0/valor: must match pattern "^(?:\\d{1,10}\\.\\d{2})$"',
      'notification body /pix/0/horario: must match format "date-time"',
      "notification body /extra: is not a property the document defines",
    ]);
  });

  it("matches literal path segments before parameters", () => {
    expect(api.match("GET", "/pix")!.template).toBe("/pix");
    expect(api.match("GET", "/qualquercoisa")!.template).toBe("/{pixUrlAccessToken}");
    expect(api.match("POST", "/pix")).toBeNull();
    // A tie goes to the API's own operation, not to a payload served on a server of its own.
    expect(api.match("GET", "/rec/RR1234567820240115abcdefghijk")!.template).toBe("/rec/{idRec}");
    expect(api.match("GET", "/cobv/7978c0c97ea847e78e8849634473c1f1")!.template).toBe("/cobv/{txid}");
  });
});
