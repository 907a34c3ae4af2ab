import { createHmac, createVerify } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hmacSignature } from "./fixtures/binance-pay/signing";
import { waitFor } from "./support/wait";
import { PATHS, startBinancePay, type BinancePayServer } from "./fixtures/binance-pay/server";

// Tests of the test Binance Pay server itself: that it refuses what Binance refuses (signatures, keys,
// clocks, nonces, malformed bodies), speaks the merchant API's shapes, signs notifications a receiver can
// verify with the published certificate over the raw body, and injects its faults. The client and the
// verification below are written from Binance's pages independently of the fixture's own signing code.

const ACK = '{"returnCode":"SUCCESS","returnMessage":null}';
const ID = /^\d{17,19}$/;
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const MESSAGE_400000 = "An unknown error occurred while processing the request.";

let seq = 0;
const tradeNo = () => `T${Date.now().toString(36)}${(seq++).toString().padStart(4, "0")}`.toUpperCase();
const nonce32 = () => Array.from({ length: 32 }, () => ALNUM[Math.floor(Math.random() * ALNUM.length)]).join("");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Res = { status: number; contentType: string; text: string; body: any };

/** A tiny merchant client: signs timestamp\nnonce\nbody\n with HMAC-SHA512, upper-case hex, as api-common says. */
async function api(
  s: BinancePayServer,
  path: string,
  body?: unknown,
  o: {
    raw?: string;
    timestamp?: number;
    nonce?: string;
    signature?: string;
    apiKey?: string | null;
    secretKey?: string;
    contentType?: string | null;
    method?: string;
    timeoutMs?: number;
  } = {},
): Promise<Res> {
  const raw = o.raw ?? (body === undefined ? "" : JSON.stringify(body));
  const timestamp = o.timestamp ?? Date.now();
  const nonce = o.nonce ?? nonce32();
  const signature =
    o.signature ??
    createHmac("sha512", o.secretKey ?? s.secretKey)
      .update(`${timestamp}\n${nonce}\n${raw}\n`)
      .digest("hex")
      .toUpperCase();
  const headers: Record<string, string> = {
    "BinancePay-Timestamp": String(timestamp),
    "BinancePay-Nonce": nonce,
    "BinancePay-Signature": signature,
  };
  if (o.apiKey !== null) headers["BinancePay-Certificate-SN"] = o.apiKey ?? s.apiKey;
  if (o.contentType !== null) headers["content-type"] = o.contentType ?? "application/json";
  const res = await fetch(s.url + path, {
    method: o.method ?? "POST",
    headers,
    body: raw === "" ? undefined : raw,
    signal: o.timeoutMs ? AbortSignal.timeout(o.timeoutMs) : undefined,
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    contentType,
    text,
    body: contentType.startsWith("application/json") && text ? JSON.parse(text) : undefined,
  };
}

type Got = { path: string; raw: string; headers: http.IncomingHttpHeaders; at: number };

/** Where our service would listen: plain http on 127.0.0.1. `answer` decides each reply (default: the documented acknowledgement). */
async function startReceiver(
  answer: (n: number, got: Got) => { status: number; body?: string } = () => ({ status: 200, body: ACK }),
) {
  const got: Got[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const g = { path: req.url ?? "", raw, headers: req.headers, at: Date.now() };
      got.push(g);
      const a = answer(got.length, g);
      res.writeHead(a.status, { "content-type": "application/json" }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/providers/binance-pay/webhook`;
  return {
    url,
    got,
    async waitFor(n: number, ms = 3000) {
      const end = Date.now() + ms;
      while (got.length < n && Date.now() < end) await sleep(10);
      return got;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** webhook-common: base64 RSA-SHA256 over timestamp\nnonce\nrawBody\n with the certificate's public key. */
function verifies(
  certPublic: string,
  g: { raw: string; headers: http.IncomingHttpHeaders | Record<string, string> },
): boolean {
  const h = (n: string) => {
    const v =
      (g.headers as Record<string, string | string[] | undefined>)[n.toLowerCase()] ??
      (g.headers as Record<string, string>)[n];
    return Array.isArray(v) ? v[0] : v;
  };
  const sig = h("BinancePay-Signature");
  if (!sig) return false;
  return createVerify("RSA-SHA256")
    .update(`${h("BinancePay-Timestamp")}\n${h("BinancePay-Nonce")}\n${g.raw}\n`)
    .verify(certPublic, sig, "base64");
}

async function certificates(s: BinancePayServer): Promise<{ certSerial: string; certPublic: string }[]> {
  const r = await api(s, PATHS.certificates, {});
  expect(r.body).toMatchObject({ status: "SUCCESS", code: "000000" });
  return r.body.data;
}

function orderBody(no: string, webhookUrl: string | undefined, extra: Record<string, unknown> = {}) {
  return {
    env: { terminalType: "WEB" },
    merchantTradeNo: no,
    fiatAmount: 25.5,
    fiatCurrency: "BRL",
    description: `Pedido ${no}`,
    goodsDetails: [{ goodsType: "02", goodsCategory: "Z000", referenceGoodsId: no, goodsName: `Pedido ${no}` }],
    orderExpireTime: Date.now() + 15 * 60_000,
    returnUrl: "https://loja.example/ok",
    cancelUrl: "https://loja.example/cancel",
    ...(webhookUrl ? { webhookUrl } : {}),
    ...extra,
  };
}

async function create(s: BinancePayServer, webhookUrl?: string, extra: Record<string, unknown> = {}) {
  const no = tradeNo();
  const r = await api(s, PATHS.create, orderBody(no, webhookUrl, extra));
  expect(r.body?.status, r.text).toBe("SUCCESS");
  return { no, data: r.body.data };
}

describe("the test Binance Pay server", () => {
  let s: BinancePayServer;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    s = await startBinancePay({ quiet: true });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await s.stop();
    await rx.close();
  });
  afterEach(async () => {
    await s.idle();
    s.faults.dropNotifications = false;
    s.faults.duplicateNotifications = false;
    s.faults.notificationDelayMs = 0;
    s.faults.failNext.length = 0;
    s.faults.delayNext.length = 0;
    s.faults.loseAnswerNext.length = 0;
    s.faults.refundOutcome = () => "REFUNDED";
  });

  it("signs the FAQ's example inputs as HMAC-SHA512 over timestamp\\nnonce\\nbody\\n", () => {
    const body =
      '{"merchantId":"98765987","subMerchantId":"98765987","merchantTradeNo":"9825382937292","totalFee":25.17,"productDetail":"Greentea ice cream cone","currency":"USDT","returnUrl":"","tradeType":"APP","productType":"Food","productName":"Ice Cream"}';
    const sig = hmacSignature(
      "uahr4nhailyq55yubuhuncnprfac73bcbz2qfafsevic1jruwunioxtoaozy122f",
      1611232922428,
      "5RhaTrZPhknNv0kDSA2UQ67cPMVNS4sA",
      body,
    );
    // Computed independently with `openssl dgst -sha512 -hmac`. The FAQ page prints "253B9241…" for these inputs,
    // which neither this nor any variant tried (no trailing LF, CRLF, SHA-256, pretty-printed body) reproduces.
    expect(sig).toBe(
      "C1F7A336D5E6A100DD31F41669895D99C24A3A4D4F96DB6389761CB2CDD37FA2F6D106A24DB048B4989005E85EADEA392CD866902736D3D276BDC44C49DD00FC",
    );
  });

  describe("create and query", () => {
    it("creates an order priced in BRL: USDT amount, big string ids, links on the fixture", async () => {
      const { no, data } = await create(s, rx.url);
      expect(data).toMatchObject({
        currency: "USDT",
        totalFee: "5.10",
        fiatCurrency: "BRL",
        fiatAmount: "25.50",
        terminalType: "WEB",
      });
      expect(typeof data.prepayId).toBe("string");
      expect(data.prepayId).toMatch(ID);
      expect(BigInt(data.prepayId)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
      expect(data.expireTime).toBe(s.orders.get(no)!.expireTime);
      for (const k of ["qrcodeLink", "qrContent", "checkoutUrl", "universalUrl"])
        expect(data[k].startsWith(s.url)).toBe(true);
      expect(data.deeplink).toMatch(/^bnc:\/\//);
      expect(s.orders.get(no)).toMatchObject({ status: "INITIAL", orderAmount: "5.10000000", prepayId: data.prepayId });
    });

    it("serves the QR code as a PNG at qrcodeLink, and a checkout page", async () => {
      const { data } = await create(s, rx.url);
      const png = await fetch(data.qrcodeLink);
      expect(png.status).toBe(200);
      expect(png.headers.get("content-type")).toBe("image/png");
      const bytes = Buffer.from(await png.arrayBuffer());
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(bytes.readUInt32BE(16)).toBeGreaterThan(100); // IHDR width
      expect((await fetch(data.checkoutUrl)).status).toBe(200);
      expect((await fetch(`${s.url}/static/payment/qr/1234567890123456789.png`)).status).toBe(404);
    });

    it("answers query by prepayId and by merchantTradeNo; an unknown order is 400202", async () => {
      const { no, data } = await create(s, rx.url, { passThroughInfo: "order-77" });
      const a = await api(s, PATHS.query, { prepayId: data.prepayId });
      const b = await api(s, PATHS.query, { merchantTradeNo: no });
      expect(a.body).toMatchObject({ status: "SUCCESS", code: "000000", errorMessage: "" });
      expect(a.body.data).toEqual(b.body.data);
      expect(a.body.data).toMatchObject({
        merchantId: s.merchantId,
        prepayId: data.prepayId,
        merchantTradeNo: no,
        status: "INITIAL",
        currency: "USDT",
        orderAmount: "5.10",
        passThroughInfo: "order-77",
      });
      expect(a.body.data.transactTime).toBeUndefined();
      const missing = await api(s, PATHS.query, { merchantTradeNo: "NOPE123" });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ status: "FAIL", code: "400202", errorMessage: "Order not found." });
    });

    it("refuses a merchantTradeNo used before (400201), even with a byte-identical body", async () => {
      const no = tradeNo();
      const raw = JSON.stringify(orderBody(no, rx.url));
      const first = await api(s, PATHS.create, undefined, { raw });
      expect(first.body.status).toBe("SUCCESS");
      const again = await api(s, PATHS.create, undefined, { raw });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        status: "FAIL",
        code: "400201",
        errorMessage: "merchantTradeNo is invalid or duplicated.",
      });
      // The first order stands as it was; the query by merchantTradeNo finds it.
      expect((await api(s, PATHS.query, { merchantTradeNo: no })).body.data).toMatchObject({
        prepayId: first.body.data.prepayId,
        status: "INITIAL",
      });
    });

    it("refuses a fiat currency it does not price and an expiry in the past", async () => {
      expect((await api(s, PATHS.create, orderBody(tradeNo(), rx.url, { fiatCurrency: "XYZ" }))).body.code).toBe(
        "400102",
      );
      expect(
        (await api(s, PATHS.create, orderBody(tradeNo(), rx.url, { orderExpireTime: Date.now() - 1000 }))).body.code,
      ).toBe("400102");
    });
  });

  describe("authentication and schemas", () => {
    it("refuses a wrong signature, a lower-case one, and one over other bytes (400002)", async () => {
      const before = s.violations.length;
      const no = tradeNo();
      const body = orderBody(no, rx.url);
      const wrong = await api(s, PATHS.create, body, { secretKey: "not-the-secret" });
      expect(wrong.status).toBe(406);
      expect(wrong.body).toEqual({
        status: "FAIL",
        code: "400002",
        errorMessage: "Signature for this request is not valid.",
      });
      const ts = Date.now();
      const n = nonce32();
      const raw = JSON.stringify(body);
      const lower = createHmac("sha512", s.secretKey).update(`${ts}\n${n}\n${raw}\n`).digest("hex");
      expect(
        (await api(s, PATHS.create, undefined, { raw, timestamp: ts, nonce: n, signature: lower })).body.code,
      ).toBe("400002");
      // Signed over the compact JSON, sent pretty-printed: the same object, other bytes.
      const n2 = nonce32();
      const compact = createHmac("sha512", s.secretKey).update(`${ts}\n${n2}\n${raw}\n`).digest("hex").toUpperCase();
      expect(
        (
          await api(s, PATHS.create, undefined, {
            raw: JSON.stringify(body, null, 2),
            timestamp: ts,
            nonce: n2,
            signature: compact,
          })
        ).body.code,
      ).toBe("400002");
      expect(s.orders.has(no)).toBe(false);
      expect(s.violations.slice(before)).toEqual([
        expect.stringContaining("does not match"),
        expect.stringContaining("not upper-case"),
        expect.stringContaining("does not match"),
      ]);
    });

    it("refuses an unknown or missing API key (400004, 400005)", async () => {
      const r = await api(s, PATHS.query, { merchantTradeNo: "X1" }, { apiKey: "someone-else" });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("400004");
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { apiKey: null })).body.code).toBe("400005");
    });

    it("refuses a stale or future timestamp and one in seconds (400003)", async () => {
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { timestamp: Date.now() - 61_000 })).body.code).toBe(
        "400003",
      );
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { timestamp: Date.now() + 61_000 })).body.code).toBe(
        "400003",
      );
      expect(
        (await api(s, PATHS.query, { merchantTradeNo: "X1" }, { timestamp: Math.floor(Date.now() / 1000) })).body.code,
      ).toBe("400003");
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { timestamp: Date.now() - 50_000 })).body.code).toBe(
        "400202",
      );
    });

    it("takes the allowed skew as an option", async () => {
      const s2 = await startBinancePay({ maxSkewMs: 1000, quiet: true });
      try {
        expect(
          (await api(s2, PATHS.query, { merchantTradeNo: "X1" }, { timestamp: Date.now() - 2500 })).body.code,
        ).toBe("400003");
        expect((await api(s2, PATHS.query, { merchantTradeNo: "X1" }, { timestamp: Date.now() - 500 })).body.code).toBe(
          "400202",
        );
      } finally {
        await s2.stop();
      }
    });

    it("refuses a reused nonce and one that is not 32 letters or digits (400001)", async () => {
      const n = nonce32();
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { nonce: n })).body.code).toBe("400202");
      const replay = await api(s, PATHS.query, { merchantTradeNo: "X1" }, { nonce: n });
      expect(replay.body.code).toBe("400001");
      expect(s.violations.at(-1)).toContain("was used before");
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { nonce: "short" })).body.code).toBe("400001");
      expect(
        (await api(s, PATHS.query, { merchantTradeNo: "X1" }, { nonce: `${nonce32().slice(0, 31)}-` })).body.code,
      ).toBe("400001");
    });

    it("answers GETs, other content types and bodiless calls as the FAQ says (100001001), and unknown paths with 403", async () => {
      const get = await api(s, PATHS.query, undefined, { method: "GET" });
      expect(get.body).toEqual({ status: "ERROR", type: "SYS", code: "100001001", errorData: "System abnormality" });
      expect((await api(s, PATHS.query, { merchantTradeNo: "X1" }, { contentType: "text/plain" })).body.code).toBe(
        "100001001",
      );
      expect((await api(s, PATHS.query, undefined)).body.code).toBe("100001001");
      const unknown = await api(s, "/binancepay/openapi/v9/order", {});
      expect(unknown.status).toBe(403);
      expect(unknown.body).toBeUndefined();
    });

    it("checks bodies against the documented fields and types", async () => {
      const before = s.violations.length;
      const base = orderBody(tradeNo(), rx.url);
      const { description: _d, ...noDescription } = base;
      expect((await api(s, PATHS.create, noDescription)).body.code).toBe("400100");
      expect((await api(s, PATHS.create, { ...base, merchantTradeNo: "with-dash-1" })).body.code).toBe("400103");
      expect((await api(s, PATHS.create, { ...base, merchantTradeNo: "A".repeat(33) })).body.code).toBe("400101");
      expect((await api(s, PATHS.create, { ...base, env: { terminalType: "BROWSER" } })).body.code).toBe("400102");
      expect((await api(s, PATHS.create, { ...base, fiatAmount: "10.123456789" })).body.code).toBe("400102");
      expect((await api(s, PATHS.create, { ...base, fiatCurrency: undefined })).body.code).toBe("400100");
      expect((await api(s, PATHS.create, { ...base, orderExpireTime: String(base.orderExpireTime) })).body.code).toBe(
        "400100",
      );
      const { data } = await create(s, rx.url);
      // prepayId is a string of up to 19 digits: a JSON number is the wrong type (and loses precision).
      const asNumber = await api(s, PATHS.query, undefined, { raw: `{"prepayId":${data.prepayId}}` });
      expect(asNumber.body.code).toBe("400100");
      expect(s.violations.slice(before).every((v) => v.startsWith("POST /binancepay/openapi/"))).toBe(true);
      expect(s.violations.slice(before).some((v) => v.includes("prepayId"))).toBe(true);
      // An unknown field is recorded but, like Binance, not refused.
      const extra = await api(s, PATHS.query, { prepayId: data.prepayId, merchantId: s.merchantId });
      expect(extra.body.status).toBe("SUCCESS");
      expect(s.violations.at(-1)).toContain("unknown field(s) merchantId");
    });

    it("lists the notification certificate for a signed {} or empty body", async () => {
      const list = await certificates(s);
      expect(list).toEqual([{ certSerial: s.certSerial, certPublic: s.certPublic }]);
      expect(list[0].certPublic).toContain("-----BEGIN PUBLIC KEY-----");
      expect(list[0].certSerial).toMatch(/^[0-9a-f]{32}$/);
      expect((await api(s, PATHS.certificates, undefined)).body.data).toEqual(list);
      expect((await api(s, PATHS.certificates, {}, { secretKey: "x" })).body.code).toBe("400002");
    });
  });

  describe("payments and notifications", () => {
    it("pays: a PAY_SUCCESS notification signed over the raw body, bizId written as bare digits", async () => {
      const { no, data } = await create(s, rx.url, { passThroughInfo: "p-1" });
      const at = new Date(Date.now() - 5000);
      const n = rx.got.length;
      await s.pay(no, { at });
      const g = (await rx.waitFor(n + 1))[n];
      expect(g.path).toBe("/api/v1/providers/binance-pay/webhook");
      expect(g.headers["content-type"]).toBe("application/json");
      const [cert] = await certificates(s);
      expect(g.headers["binancepay-certificate-sn"]).toBe(cert.certSerial);
      expect(g.headers["binancepay-nonce"]).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(Math.abs(Number(g.headers["binancepay-timestamp"]) - Date.now())).toBeLessThan(5000);
      expect(verifies(cert.certPublic, g)).toBe(true);
      // The same JSON in other bytes does not verify: verification must use the bytes received. (A
      // parse-and-stringify round trip is not a reliable probe: a 17-digit bizId sometimes survives it.)
      expect(verifies(cert.certPublic, { raw: g.raw.replace(/^\{/, "{ "), headers: g.headers })).toBe(false);

      const digits = /"bizId":(\d+)[,}]/.exec(g.raw)?.[1];
      expect(digits).toBe(data.prepayId);
      expect(digits!.length).toBeGreaterThanOrEqual(17);
      const parsed = JSON.parse(g.raw);
      expect(Number.isSafeInteger(parsed.bizId)).toBe(false);
      expect(parsed).toMatchObject({ bizType: "PAY", bizIdStr: data.prepayId, bizStatus: "PAY_SUCCESS" });
      expect(typeof parsed.data).toBe("string");
      const d = JSON.parse(parsed.data);
      expect(d).toMatchObject({
        merchantTradeNo: no,
        transactTime: at.getTime(),
        tradeType: "WEB",
        totalFee: 5.1,
        currency: "USDT",
        productType: "02",
        passThroughInfo: "p-1",
        commission: 0,
      });
      expect(parsed.data).toContain('"totalFee":5.10000000');
      expect(d.transactionId).toMatch(ID);
      expect(d.paymentInfo.paymentInstructions).toEqual([{ currency: "USDT", amount: "5.10", price: "1" }]);

      const q = await api(s, PATHS.query, { prepayId: data.prepayId });
      expect(q.body.data).toMatchObject({
        status: "PAID",
        transactTime: at.getTime(),
        transactionId: d.transactionId,
        openUserId: d.openUserId,
      });
      expect(s.notifications.at(-1)).toMatchObject({ status: 200, acknowledged: true, attempt: 1, forged: false });
    });

    it("retries a notification that is not acknowledged, up to 6 times, signing each attempt", async () => {
      const flaky = await startReceiver((n) => (n <= 2 ? { status: 500, body: "{}" } : { status: 200, body: ACK }));
      const deaf = await startReceiver(() => ({ status: 200, body: "" }));
      try {
        const a = await create(s, flaky.url);
        await s.pay(a.no);
        expect(flaky.got).toHaveLength(3);
        const [cert] = await certificates(s);
        expect(flaky.got.every((g) => verifies(cert.certPublic, g))).toBe(true);
        expect(new Set(flaky.got.map((g) => g.headers["binancepay-nonce"])).size).toBe(3);
        expect(new Set(flaky.got.map((g) => g.raw)).size).toBe(1);
        const b = await create(s, deaf.url);
        await s.pay(b.no);
        expect(deaf.got).toHaveLength(7);
        expect(s.notifications.filter((x) => x.url === deaf.url).map((x) => x.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      } finally {
        await flaky.close();
        await deaf.close();
      }
    });

    it("drops, duplicates and delays notifications on request; notify() sends one again", async () => {
      s.faults.dropNotifications = true;
      const a = await create(s, rx.url);
      let n = rx.got.length;
      await s.pay(a.no);
      await sleep(50);
      expect(rx.got.length).toBe(n);
      expect(await s.notify(a.no)).toBe(200);
      expect(rx.got.length).toBe(n + 1);
      s.faults.dropNotifications = false;

      s.faults.duplicateNotifications = true;
      const b = await create(s, rx.url);
      n = rx.got.length;
      await s.pay(b.no);
      expect(rx.got.slice(n).map((g) => JSON.parse(g.raw).bizIdStr)).toEqual([b.data.prepayId, b.data.prepayId]);
      s.faults.duplicateNotifications = false;

      s.faults.notificationDelayMs = 200;
      const c = await create(s, rx.url);
      n = rx.got.length;
      const t0 = Date.now();
      await s.pay(c.no);
      expect(rx.got.length).toBe(n);
      await s.idle();
      expect(rx.got.length).toBe(n + 1);
      expect(rx.got[n].at - t0).toBeGreaterThanOrEqual(190);
    });

    it("forges notifications that fail verification against the published certificate", async () => {
      const verifying = await startReceiver();
      try {
        const { no, data } = await create(s, verifying.url);
        const [cert] = await certificates(s);
        for (const how of ["wrong-key", "unsigned", "tampered-body"] as const)
          expect(await s.forgeNotification(no, { how })).toBe(200);
        expect(verifying.got).toHaveLength(3);
        for (const g of verifying.got) {
          expect(JSON.parse(g.raw)).toMatchObject({
            bizType: "PAY",
            bizStatus: "PAY_SUCCESS",
            bizIdStr: data.prepayId,
          });
          expect(verifies(cert.certPublic, g)).toBe(false);
        }
        expect(verifying.got[0].headers["binancepay-certificate-sn"]).toBe(cert.certSerial);
        expect(verifying.got[1].headers["binancepay-signature"]).toBeUndefined();
        expect(JSON.parse(JSON.parse(verifying.got[2].raw).data).totalFee).toBe(51);
        expect(s.orders.get(no)!.status).toBe("INITIAL");
        expect(s.notifications.slice(-3).map((x) => x.forged)).toEqual(["wrong-key", "unsigned", "tampered-body"]);
      } finally {
        await verifying.close();
      }
    });

    it("rotates its certificate: the old serial is no longer listed and new notifications use the new key", async () => {
      const [old] = await certificates(s);
      s.rotateCertificate();
      const [now] = await certificates(s);
      expect(now.certSerial).not.toBe(old.certSerial);
      expect(await certificates(s)).toEqual([now]);
      const { no } = await create(s, rx.url);
      const n = rx.got.length;
      await s.pay(no);
      const g = rx.got[n];
      expect(g.headers["binancepay-certificate-sn"]).toBe(now.certSerial);
      expect(verifies(now.certPublic, g)).toBe(true);
      expect(verifies(old.certPublic, g)).toBe(false);
    });

    it("falls back to the merchant portal's webhook URL when an order has none", async () => {
      s.webhookUrl = rx.url;
      try {
        const { no } = await create(s, undefined);
        const n = rx.got.length;
        await s.pay(no);
        expect(rx.got.length).toBe(n + 1);
      } finally {
        s.webhookUrl = undefined;
      }
    });
  });

  describe("closing", () => {
    it("closes an unpaid order through the API: data true, then PAY_CLOSED; a paid order is 400204", async () => {
      const { no, data } = await create(s, rx.url);
      const n = rx.got.length;
      const r = await api(s, PATHS.close, { merchantTradeNo: no });
      expect(r.body).toEqual({ status: "SUCCESS", code: "000000", data: true, errorMessage: "" });
      await s.idle();
      expect(JSON.parse(rx.got[n].raw)).toMatchObject({ bizStatus: "PAY_CLOSED", bizIdStr: data.prepayId });
      expect((await api(s, PATHS.query, { prepayId: data.prepayId })).body.data.status).toBe("CANCELED");
      await expect(s.pay(no)).rejects.toThrow(/CANCELED/);

      const paid = await create(s, rx.url);
      await s.pay(paid.no);
      expect((await api(s, PATHS.close, { prepayId: paid.data.prepayId })).body.code).toBe("400204");
      expect((await api(s, PATHS.close, { merchantTradeNo: "UNKNOWN1" })).body.code).toBe("400202");
    });

    it("expires an order (the helper, or its orderExpireTime passing) with a PAY_CLOSED notification", async () => {
      const a = await create(s, rx.url);
      let n = rx.got.length;
      await s.close(a.no);
      expect(JSON.parse(rx.got[n].raw).bizStatus).toBe("PAY_CLOSED");
      expect((await api(s, PATHS.query, { merchantTradeNo: a.no })).body.data.status).toBe("EXPIRED");

      const b = await create(s, rx.url, { orderExpireTime: Date.now() + 300 });
      n = rx.got.length;
      expect((await api(s, PATHS.query, { merchantTradeNo: b.no })).body.data.status).toBe("INITIAL");
      await rx.waitFor(n + 1);
      const closed = JSON.parse(rx.got[n].raw);
      expect(closed).toMatchObject({ bizStatus: "PAY_CLOSED", bizIdStr: b.data.prepayId });
      expect((await api(s, PATHS.query, { merchantTradeNo: b.no })).body.data.status).toBe("EXPIRED");
      await expect(s.pay(b.no)).rejects.toThrow(/EXPIRED/);
      expect((await s.pay(b.no, { force: true, notify: false })).status).toBe("PAID");
    });
  });

  describe("refunds", () => {
    async function paidOrder() {
      const o = await create(s, rx.url, { fiatAmount: 50, fiatCurrency: "BRL" }); // 10 USDT
      await s.pay(o.no);
      return o;
    }

    it("refunds once per refundRequestId, refuses going beyond what is left, and answers the refund query", async () => {
      const { no, data } = await paidOrder();
      const req = {
        refundRequestId: `r-${no}`,
        prepayId: data.prepayId,
        refundAmount: 4,
        refundReason: "cliente desistiu",
      };
      const first = await api(s, PATHS.refund, req);
      expect(first.body.data).toMatchObject({
        refundRequestId: req.refundRequestId,
        prepayId: data.prepayId,
        orderAmount: "10.00",
        refundAmount: "4.00",
        refundedAmount: "4.00",
        remainingAttempts: 9,
        duplicateRequest: "N",
      });
      const again = await api(s, PATHS.refund, req);
      expect(again.body.data).toEqual({ ...first.body.data, duplicateRequest: "Y" });
      expect([...s.refunds.values()].filter((r) => r.prepayId === data.prepayId)).toHaveLength(1);
      expect(
        (await api(s, PATHS.refund, { ...req, refundRequestId: `r2-${no}`, refundAmount: "6.01" })).body.code,
      ).toBe("400303");
      const q = await api(s, PATHS.refundQuery, { refundRequestId: req.refundRequestId });
      expect(q.body.data).toMatchObject({ refundStatus: "REFUND_SUCCESS", refundAmount: "4.00", remainingAttempts: 9 });
      expect((await api(s, PATHS.query, { prepayId: data.prepayId })).body.data.status).toBe("REFUNDED");
      expect(
        (await api(s, PATHS.refund, { ...req, refundRequestId: `r3-${no}`, refundAmount: "6" })).body.data
          .refundedAmount,
      ).toBe("10.00");
      expect((await api(s, PATHS.query, { prepayId: data.prepayId })).body.data.status).toBe("FULL_REFUNDED");
      expect((await api(s, PATHS.refundQuery, { refundRequestId: "unknown-refund" })).body.code).toBe("400202");
    });

    it("sends PAY_REFUND notifications signed like the others", async () => {
      const { no, data } = await paidOrder();
      const n = rx.got.length;
      await api(s, PATHS.refund, { refundRequestId: `n-${no}`, prepayId: data.prepayId, refundAmount: 1 });
      await s.idle();
      const g = rx.got[n];
      const [cert] = await certificates(s);
      expect(verifies(cert.certPublic, g)).toBe(true);
      const body = JSON.parse(g.raw);
      expect(body).toMatchObject({ bizType: "PAY_REFUND", bizStatus: "REFUND_SUCCESS", bizIdStr: data.prepayId });
      const notified = JSON.parse(body.data);
      expect(notified.refundInfo).toMatchObject({
        refundRequestId: `n-${no}`,
        prepayId: data.prepayId,
        refundAmount: "1.00",
        duplicateRequest: "N",
      });
      // The refund's id is in refundInfo only, never at the top of data.
      expect(notified.refundRequestId).toBeUndefined();
      expect(notified.merchantTradeNo).toBe(no);

      // The page's other reading: refundInfo as a JSON string inside data.
      s.faults.refundInfoAsString = true;
      try {
        const m = rx.got.length;
        await api(s, PATHS.refund, { refundRequestId: `s-${no}`, prepayId: data.prepayId, refundAmount: 1 });
        await s.idle();
        const info = JSON.parse(JSON.parse(rx.got[m].raw).data).refundInfo;
        expect(typeof info).toBe("string");
        expect(JSON.parse(info)).toMatchObject({ refundRequestId: `s-${no}` });
      } finally {
        s.faults.refundInfoAsString = false;
      }
    });

    it("leaves a refund REFUNDING until settled, and frees the amount of a rejected one", async () => {
      const { no, data } = await paidOrder();
      s.faults.refundOutcome = () => "REFUNDING";
      const id = `p-${no}`;
      await api(s, PATHS.refund, { refundRequestId: id, prepayId: data.prepayId, refundAmount: "10" });
      expect((await api(s, PATHS.refundQuery, { refundRequestId: id })).body.data.refundStatus).toBe("REFUND_PENDING");
      expect((await api(s, PATHS.query, { prepayId: data.prepayId })).body.data.status).toBe("REFUNDING");
      expect(
        (await api(s, PATHS.refund, { refundRequestId: `${id}b`, prepayId: data.prepayId, refundAmount: "0.01" })).body
          .code,
      ).toBe("400303");
      const n = rx.got.length;
      await s.settleRefund(id, "REFUND_REJECTED");
      expect(JSON.parse(rx.got[n].raw)).toMatchObject({ bizType: "PAY_REFUND", bizStatus: "REFUND_REJECTED" });
      expect((await api(s, PATHS.refundQuery, { refundRequestId: id })).body.data.refundStatus).toBe("REFUND_FAIL");
      expect((await api(s, PATHS.query, { prepayId: data.prepayId })).body.data.status).toBe("PAID");
      s.faults.refundOutcome = () => "REFUNDED";
      expect(
        (await api(s, PATHS.refund, { refundRequestId: `${id}c`, prepayId: data.prepayId, refundAmount: "10" })).body
          .status,
      ).toBe("SUCCESS");
    });

    it("refuses refunds of unpaid or unknown orders and a reused refundRequestId with other terms", async () => {
      const unpaid = await create(s, rx.url);
      expect(
        (await api(s, PATHS.refund, { refundRequestId: "u1", prepayId: unpaid.data.prepayId, refundAmount: 1 })).body
          .code,
      ).toBe("400204");
      expect(
        (await api(s, PATHS.refund, { refundRequestId: "u2", prepayId: "1234567890123456789", refundAmount: 1 })).body
          .code,
      ).toBe("400301");
      const { no, data } = await paidOrder();
      await api(s, PATHS.refund, { refundRequestId: `x-${no}`, prepayId: data.prepayId, refundAmount: 1 });
      const before = s.violations.length;
      expect(
        (await api(s, PATHS.refund, { refundRequestId: `x-${no}`, prepayId: data.prepayId, refundAmount: 2 })).body
          .code,
      ).toBe("400102");
      expect(s.violations.length).toBe(before + 1);
    });
  });

  describe("failNext and delayNext", () => {
    it("fails at the gateway (HTML, no work done) and with a Binance FAIL body", async () => {
      s.faults.failNext.push({ path: /\/v3\/order$/, status: 503, count: 1 });
      const no = tradeNo();
      const gw = await api(s, PATHS.create, orderBody(no, rx.url));
      expect(gw.status).toBe(503);
      expect(gw.contentType).toContain("text/html");
      expect(s.orders.has(no)).toBe(false);
      expect((await api(s, PATHS.create, orderBody(no, rx.url))).body.status).toBe("SUCCESS");

      s.faults.failNext.push({ path: /order\/query$/, status: 500, count: 2, code: "400000" });
      expect((await api(s, PATHS.query, { merchantTradeNo: no })).body).toEqual({
        status: "FAIL",
        code: "400000",
        errorMessage: MESSAGE_400000,
      });
      expect((await api(s, PATHS.query, { merchantTradeNo: no })).status).toBe(500);
      expect((await api(s, PATHS.query, { merchantTradeNo: no })).body.status).toBe("SUCCESS");
      expect(s.faults.failNext).toEqual([]);
      expect(s.requests.slice(-3).map((r) => [r.status, r.code])).toEqual([
        [500, "400000"],
        [500, "400000"],
        [200, "000000"],
      ]);
    });

    it("does the work and then fails (afterWork), or answers late", async () => {
      s.faults.failNext.push({ path: /\/v3\/order$/, status: 502, count: 1, afterWork: true });
      const no = tradeNo();
      expect((await api(s, PATHS.create, orderBody(no, rx.url))).status).toBe(502);
      expect(s.orders.get(no)?.status).toBe("INITIAL");

      // The client gives up long before the answer (a wide margin: a loaded machine may take a while to
      // read the request); the work is done all the same, and the late answer is still written.
      const no2 = tradeNo();
      s.faults.delayNext.push({ path: /\/v3\/order$/, ms: 3000, count: 1 });
      await expect(api(s, PATHS.create, orderBody(no2, rx.url), { timeoutMs: 1000 })).rejects.toThrow();
      expect(s.faults.delayNext).toEqual([]);
      await waitFor(
        "the order made",
        async () => s.orders.get(no2)?.status,
        (st) => st === "INITIAL",
      );
      await waitFor(
        "the late answer",
        async () => s.requests.filter((r) => r.path === PATHS.create).at(-1)?.status,
        (st) => st === 200,
      );
    });

    it("loses an answer on demand: the order is made, the connection drops, and a repeat is 400201", async () => {
      s.faults.loseAnswerNext.push({ path: /\/v3\/order$/, count: 1 });
      const no = tradeNo();
      const body = orderBody(no, rx.url);
      await expect(api(s, PATHS.create, body)).rejects.toThrow();
      expect(s.orders.get(no)?.status).toBe("INITIAL");
      expect(s.requests.at(-1)).toMatchObject({ path: PATHS.create, status: 0, code: "000000" });
      expect((await api(s, PATHS.create, body)).body.code).toBe("400201");
      expect(s.faults.loseAnswerNext).toEqual([]);
    });

    it("answers a rate-limited request 429 with Retry-After", async () => {
      s.faults.failNext.push({ path: /order\/query$/, status: 429, count: 1, retryAfter: "2" });
      const limited = await fetch(s.url + PATHS.query, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("2");
    });
  });
});

describe("correct merchant traffic", () => {
  it("records no violation", async () => {
    const s = await startBinancePay();
    const rx = await startReceiver();
    try {
      const { no, data } = await create(s, rx.url);
      await api(s, PATHS.query, { prepayId: data.prepayId });
      await api(s, PATHS.query, { merchantTradeNo: no, prepayId: null });
      await s.pay(no);
      await api(s, PATHS.refund, { refundRequestId: `ok-${no}`, prepayId: data.prepayId, refundAmount: "1.5" });
      await api(s, PATHS.refundQuery, { refundRequestId: `ok-${no}` });
      const other = await create(s, rx.url, {
        orderAmount: "2.5",
        currency: "USDT",
        fiatAmount: undefined,
        fiatCurrency: undefined,
      });
      await api(s, PATHS.close, { prepayId: other.data.prepayId });
      await api(s, PATHS.certificates, {});
      await s.idle();
      expect(s.requests.every((r) => r.code === "000000")).toBe(true);
      expect(s.violations).toEqual([]);
      expect(s.notifications.every((n) => n.acknowledged)).toBe(true);
    } finally {
      await s.stop();
      await rx.close();
    }
  });
});
