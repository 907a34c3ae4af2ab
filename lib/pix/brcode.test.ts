import { describe, it, expect } from "vitest";
import { createDynamicPix, createStaticPix, hasError, isDynamicPix, isStaticPix, parsePix } from "pix-utils";
import { BrCodeError, encodeStaticBrCode, parseBrCode, type StaticBrCodeInput } from "./brcode";
import { crc16Ccitt } from "./crc16";
import { encodeTlv } from "./emv";

// Deterministic so a failure can be reproduced.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function randomString(next: () => number, alphabet: string, min: number, max: number): string {
  const length = min + Math.floor(next() * (max - min + 1));
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const KEYS = [
  "52998224725",
  "11222333000181",
  "12ABC34501DE35",
  "fulano@example.com",
  "+5511987654321",
  "123e4567-e89b-12d3-a456-426614174000",
] as const;

// Appends a correct field 63, so refusal tests reach the check they target instead of the CRC.
function withCrc(body: string): string {
  const payload = `${body}6304`;
  return payload + crc16Ccitt(payload);
}

const PIX_MAI = encodeTlv("26", encodeTlv("00", "br.gov.bcb.pix") + encodeTlv("01", "fulano@example.com"));

function body(overrides: Partial<Record<string, string | null>> = {}): string {
  const fields: [string, string | null][] = [
    ["00", "01"],
    ["01", null],
    ["26", null],
    ["52", "0000"],
    ["53", "986"],
    ["54", null],
    ["58", "BR"],
    ["59", "Fulano de Tal"],
    ["60", "BRASILIA"],
    ["62", encodeTlv("05", "***")],
  ];
  let out = "";
  for (const [id, dflt] of fields) {
    const value = id in overrides ? overrides[id] : dflt;
    if (id === "26" && !("26" in overrides)) {
      out += PIX_MAI;
      continue;
    }
    if (value !== null && value !== undefined) out += encodeTlv(id, value);
  }
  return out;
}

function refusal(input: string): string {
  try {
    parseBrCode(input);
  } catch (e) {
    expect(e).toBeInstanceOf(BrCodeError);
    return (e as BrCodeError).message;
  }
  throw new Error(`expected parseBrCode to refuse ${JSON.stringify(input)}`);
}

describe("encodeStaticBrCode", () => {
  it("produces the exact layout of the manual, CRC included", () => {
    const code = encodeStaticBrCode({
      pixKey: "123e4567-e12b-12d1-a456-426655440000",
      merchantName: "Fulano de Tal",
      merchantCity: "BRASILIA",
    });
    // The example BR Code from the Banco Central's "Manual de Padrões para Iniciação do Pix".
    expect(code).toBe(
      "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D",
    );
  });

  it("writes the amount as reais with two decimals, txid and description", () => {
    const code = encodeStaticBrCode({
      pixKey: "52998224725",
      merchantName: "Loja",
      merchantCity: "Recife",
      amountCentavos: 12345,
      txid: "ORDER42",
      description: "Pedido 42",
    });
    expect(code).toContain("0014br.gov.bcb.pix011152998224725" + "0209Pedido 42");
    expect(code).toContain("5406123.45");
    expect(code).toContain("62110507ORDER42");
    expect(code.slice(-8, -4)).toBe("6304");
  });

  it.each([
    [1, "0.01"],
    [10, "0.10"],
    [100, "1.00"],
    [999_999_999_999, "9999999999.99"],
  ])("formats %i centavos as %s", (centavos, text) => {
    const code = encodeStaticBrCode({
      pixKey: "52998224725",
      merchantName: "A",
      merchantCity: "B",
      amountCentavos: centavos,
    });
    expect(code).toContain(encodeTlv("54", text));
    expect(parseBrCode(code).amountCentavos).toBe(centavos);
  });

  it("strips accents and truncates name (25) and city (15)", () => {
    const code = encodeStaticBrCode({
      pixKey: "52998224725",
      merchantName: "  José da Conceição Comércio de Alimentos  ",
      merchantCity: "São José dos Campos",
      description: "Pedido nº 5 – café",
    });
    const parsed = parseBrCode(code);
    expect(parsed.merchantName).toBe("Jose da Conceicao Comerci");
    expect(parsed.merchantCity).toBe("Sao Jose dos Ca");
    expect(parsed.description).toBe("Pedido no 5 cafe");
    expect(code).toMatch(/^[\x20-\x7e]+$/);
  });

  it("writes the normalized key", () => {
    expect(
      parseBrCode(encodeStaticBrCode({ pixKey: "529.982.247-25", merchantName: "A", merchantCity: "B" })).pixKey,
    ).toBe("52998224725");
    expect(
      parseBrCode(encodeStaticBrCode({ pixKey: "Fulano@Example.com", merchantName: "A", merchantCity: "B" })).pixKey,
    ).toBe("fulano@example.com");
    expect(
      parseBrCode(
        encodeStaticBrCode({ pixKey: "123E4567-E89B-12D3-A456-426614174000", merchantName: "A", merchantCity: "B" }),
      ).pixKey,
    ).toBe("123e4567-e89b-12d3-a456-426614174000");
  });

  const valid: StaticBrCodeInput = { pixKey: "52998224725", merchantName: "Loja", merchantCity: "Recife" };
  it.each<[string, Partial<StaticBrCodeInput>]>([
    ["an invalid key", { pixKey: "52998224724" }],
    ["a phone key without +55", { pixKey: "11987654321" }],
    ["an empty name", { merchantName: "   " }],
    ["a name with no representable character", { merchantName: "日本" }],
    ["an empty city", { merchantCity: "" }],
    ["a zero amount", { amountCentavos: 0 }],
    ["a negative amount", { amountCentavos: -100 }],
    ["a fractional amount", { amountCentavos: 1.5 }],
    ["a NaN amount", { amountCentavos: Number.NaN }],
    ["an amount over 13 characters", { amountCentavos: 1_000_000_000_000 }],
    ["a txid with punctuation", { txid: "ORDER-42" }],
    ["a txid of 26 characters", { txid: "A".repeat(26) }],
    ["an empty txid", { txid: "" }],
    ["the *** txid placeholder", { txid: "***" }],
    [
      "a description that does not fit next to the key",
      { pixKey: `${"a".repeat(60)}@example.com`, description: "Pedido 42" },
    ],
  ])("refuses %s", (_label, patch) => {
    expect(() => encodeStaticBrCode({ ...valid, ...patch })).toThrow(BrCodeError);
  });

  it("accepts a 25-character txid", () => {
    const txid = "A1".repeat(12) + "Z";
    expect(parseBrCode(encodeStaticBrCode({ ...valid, txid })).txid).toBe(txid);
  });
});

describe("encodeStaticBrCode checked by pix-utils", () => {
  it("pix-utils reads back key, amount, name, city, txid and description of every code", () => {
    const next = rng(42);
    for (let i = 0; i < 300; i++) {
      const withAmount = next() < 0.7;
      const withTxid = next() < 0.7;
      const withDescription = next() < 0.5;
      const input: StaticBrCodeInput = {
        pixKey: pick(next, KEYS),
        merchantName: randomString(next, ALNUM + " ", 1, 25).trim() || "X",
        merchantCity: randomString(next, ALNUM, 1, 15),
        ...(withAmount ? { amountCentavos: 1 + Math.floor(next() * 10_000_000) } : {}),
        ...(withTxid ? { txid: randomString(next, ALNUM, 1, 25) } : {}),
        ...(withDescription ? { description: randomString(next, ALNUM, 1, 20) } : {}),
      };
      const code = encodeStaticBrCode(input);
      const theirs = parsePix(code);
      if (hasError(theirs)) throw new Error(`pix-utils refused ${code}: ${theirs.message}`);
      expect(isStaticPix(theirs)).toBe(true);
      if (!isStaticPix(theirs)) continue;
      expect(theirs.pixKey).toBe(input.pixKey);
      expect(theirs.merchantName).toBe(input.merchantName.replace(/\s+/g, " "));
      expect(theirs.merchantCity).toBe(input.merchantCity);
      expect(Math.round((theirs.transactionAmount ?? 0) * 100)).toBe(input.amountCentavos ?? 0);
      expect(theirs.txid).toBe(input.txid ?? "***");
      expect(theirs.infoAdicional).toBe(input.description);
      expect(theirs.transactionCurrency).toBe("986");
      expect(theirs.countryCode).toBe("BR");

      const ours = parseBrCode(code);
      expect(ours).toEqual({
        kind: "static",
        pixKey: input.pixKey,
        url: null,
        amountCentavos: input.amountCentavos ?? null,
        merchantName: theirs.merchantName,
        merchantCity: input.merchantCity,
        txid: input.txid ?? null,
        description: input.description ?? null,
        reusable: true,
      });
    }
  });
});

describe("parseBrCode on codes made by pix-utils", () => {
  it("reads the README's static code", () => {
    expect(
      parseBrCode(
        "00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069",
      ),
    ).toEqual({
      kind: "static",
      pixKey: "nubank@thalesog.com",
      url: null,
      amountCentavos: 100,
      merchantName: "Thales Ogliari",
      merchantCity: "Sao Paulo",
      txid: null,
      description: "Gerado por Pix-Utils",
      reusable: true,
    });
  });

  it("reads static codes with and without amount", () => {
    const next = rng(7);
    for (let i = 0; i < 300; i++) {
      const centavos = next() < 0.3 ? 0 : 1 + Math.floor(next() * 100_000_000);
      const txid = next() < 0.5 ? randomString(next, ALNUM, 1, 25) : undefined;
      const description = next() < 0.5 ? randomString(next, ALNUM + " ", 1, 30).trim() || "x" : undefined;
      const params = {
        merchantName: randomString(next, ALNUM, 1, 25),
        merchantCity: randomString(next, ALNUM, 1, 15),
        pixKey: pick(next, KEYS),
        transactionAmount: centavos / 100,
        ...(txid === undefined ? {} : { txid }),
        ...(description === undefined ? {} : { infoAdicional: description }),
      };
      const pix = createStaticPix(params);
      if (hasError(pix)) throw new Error(pix.message);
      const code = pix.toBRCode();
      expect(parseBrCode(code)).toEqual({
        kind: "static",
        pixKey: params.pixKey,
        url: null,
        amountCentavos: centavos === 0 ? null : centavos,
        merchantName: params.merchantName.toUpperCase(),
        merchantCity: params.merchantCity.toUpperCase(),
        txid: txid ?? null,
        description: description ?? null,
        reusable: true,
      });
    }
  });

  it("reads dynamic codes, reusable and single-use", () => {
    const next = rng(9);
    for (let i = 0; i < 100; i++) {
      const oneTime = next() < 0.5;
      const params = {
        merchantName: randomString(next, ALNUM, 1, 25),
        merchantCity: randomString(next, ALNUM, 1, 15),
        url: `pix.example.com/qr/v2/${randomString(next, ALNUM, 10, 40)}`,
        oneTime,
      };
      const pix = createDynamicPix(params);
      if (hasError(pix)) throw new Error(pix.message);
      expect(isDynamicPix(pix)).toBe(true);
      expect(parseBrCode(pix.toBRCode())).toEqual({
        kind: "dynamic",
        pixKey: null,
        url: params.url,
        amountCentavos: null,
        merchantName: params.merchantName.toUpperCase(),
        merchantCity: params.merchantCity.toUpperCase(),
        txid: null,
        description: null,
        reusable: !oneTime,
      });
    }
  });
});

describe("parseBrCode acceptance details", () => {
  const good = withCrc(body());

  it("trims surrounding whitespace", () => {
    expect(parseBrCode(`  \n${good}\t `).pixKey).toBe("fulano@example.com");
  });

  it("compares the CRC case-insensitively", () => {
    const lower = good.slice(0, -4) + good.slice(-4).toLowerCase();
    expect(parseBrCode(lower).merchantName).toBe("Fulano de Tal");
  });

  it("compares the GUI case-insensitively and finds it anywhere in 26-51", () => {
    const upperGui = encodeTlv("00", "BR.GOV.BCB.PIX") + encodeTlv("01", "fulano@example.com");
    expect(parseBrCode(withCrc(body({ "26": upperGui }))).pixKey).toBe("fulano@example.com");
    const other = encodeTlv("26", encodeTlv("00", "com.example.other") + encodeTlv("01", "x"));
    const code = withCrc(body().replace(PIX_MAI, other + PIX_MAI.replace(/^26/, "51")));
    expect(parseBrCode(code).pixKey).toBe("fulano@example.com");
  });

  it("reads point of initiation 11 as reusable and 12 as single use", () => {
    expect(parseBrCode(withCrc(body({ "01": "11" }))).reusable).toBe(true);
    expect(parseBrCode(withCrc(body({ "01": "12" }))).reusable).toBe(false);
  });

  it.each([
    ["1", 100],
    ["1.5", 150],
    ["0.01", 1],
    ["10.10", 1010],
    ["0.29", 29],
    ["1.13", 113],
    ["4.35", 435],
    ["9999999999.99", 999_999_999_999],
    ["0001.00", 100],
  ])("reads amount %s as %i centavos exactly", (text, centavos) => {
    expect(parseBrCode(withCrc(body({ "54": text }))).amountCentavos).toBe(centavos);
  });

  it("treats a missing field 62 or the *** placeholder as no txid", () => {
    expect(parseBrCode(withCrc(body({ "62": null }))).txid).toBeNull();
    expect(parseBrCode(good).txid).toBeNull();
    expect(parseBrCode(withCrc(body({ "62": encodeTlv("05", "abc123") }))).txid).toBe("abc123");
  });
});

describe("parseBrCode refusals", () => {
  const good = withCrc(body());

  it("accepts the baseline used below", () => {
    expect(parseBrCode(good).kind).toBe("static");
  });

  it("refuses a code with one character changed (CRC)", () => {
    const i = good.indexOf("Fulano de Tal");
    expect(refusal(good.slice(0, i) + "X" + good.slice(i + 1))).toMatch(/checksum \(CRC\) does not match/);
  });

  it("refuses every single-character substitution", () => {
    for (let i = 6; i < good.length; i++) {
      const replacement = good[i] === "7" ? "8" : "7";
      refusal(good.slice(0, i) + replacement + good.slice(i + 1));
    }
  });

  it("refuses a code with a wrong CRC value", () => {
    const crc = good.slice(-4);
    const wrong = crc === "0000" ? "0001" : "0000";
    expect(refusal(good.slice(0, -4) + wrong)).toMatch(/checksum \(CRC\) does not match/);
  });

  it("refuses a code without CRC", () => {
    expect(refusal(good.slice(0, -8))).toMatch(/no checksum/);
    expect(refusal(good.slice(0, -4))).toMatch(/no checksum/);
    expect(refusal(good.slice(0, -4) + "ZZZZ")).toMatch(/no checksum/);
    expect(refusal(good + "00")).toMatch(/no checksum/);
  });

  it("refuses a code whose CRC-looking tail is inside another field", () => {
    const prefix = body({ "62": null }).replace("5913Fulano de Tal6008BRASILIA", "6008BRASILIA5921Fulano de Tal6304");
    expect(refusal(prefix + crc16Ccitt(prefix))).toMatch(/no checksum/);
  });

  it("refuses a wrong or missing payload format indicator", () => {
    expect(refusal(withCrc(body({ "00": "02" })))).toMatch(/payload format indicator/);
    expect(refusal(withCrc(body({ "00": null })))).toMatch(/payload format indicator/);
  });

  it("refuses bad TLV structure", () => {
    expect(refusal(withCrc(body() + "5999abc"))).toMatch(/truncated/);
    expect(refusal(withCrc(body() + "59AAabc"))).toMatch(/malformed/);
  });

  it("refuses a repeated field", () => {
    expect(refusal(withCrc(body() + encodeTlv("59", "Outro")))).toMatch(/field 59 more than once/);
  });

  it("refuses an invalid point of initiation method", () => {
    expect(refusal(withCrc(body({ "01": "13" })))).toMatch(/point of initiation/);
  });

  it("refuses a wrong GUI", () => {
    const mai = encodeTlv("00", "br.gov.bcb.pox") + encodeTlv("01", "fulano@example.com");
    expect(refusal(withCrc(body({ "26": mai })))).toMatch(/no merchant account information for "br.gov.bcb.pix"/);
  });

  it("refuses a PIX template outside ids 26-51", () => {
    const code = withCrc(body().replace(PIX_MAI, PIX_MAI.replace(/^26/, "80")));
    expect(refusal(code)).toMatch(/no merchant account information/);
  });

  it("refuses a malformed merchant account template", () => {
    expect(refusal(withCrc(body({ "26": "0014br.gov.bcb.pix01" })))).toMatch(
      /merchant account information \(field 26\) is malformed/,
    );
  });

  it("refuses two PIX templates", () => {
    const code = withCrc(body().replace(PIX_MAI, PIX_MAI + PIX_MAI.replace(/^26/, "27")));
    expect(refusal(code)).toMatch(/more than one PIX merchant account/);
  });

  it("refuses a template with neither key nor URL, or with both", () => {
    expect(refusal(withCrc(body({ "26": encodeTlv("00", "br.gov.bcb.pix") + encodeTlv("02", "desc") })))).toMatch(
      /neither a PIX key nor a payment URL/,
    );
    const both =
      encodeTlv("00", "br.gov.bcb.pix") +
      encodeTlv("01", "fulano@example.com") +
      encodeTlv("25", "pix.example.com/v2/abc");
    expect(refusal(withCrc(body({ "26": both })))).toMatch(/both a PIX key and a payment URL/);
  });

  it("refuses a missing or invalid merchant category code", () => {
    expect(refusal(withCrc(body({ "52": null })))).toMatch(/merchant category code/);
    expect(refusal(withCrc(body({ "52": "00A0" })))).toMatch(/merchant category code/);
  });

  it("refuses a currency other than 986", () => {
    expect(refusal(withCrc(body({ "53": "840" })))).toMatch(/currency must be Brazilian real/);
    expect(refusal(withCrc(body({ "53": null })))).toMatch(/currency must be Brazilian real/);
  });

  it.each([
    "1.234",
    "0.00",
    "0",
    "-1.00",
    "1,00",
    "abc",
    "1e3",
    ".50",
    "1.",
    "1.2.3",
    " 1.00",
    "+1.00",
    "10000000000.00",
    "Infinity",
  ])("refuses amount %s", (amount) => {
    expect(refusal(withCrc(body({ "54": amount })))).toMatch(/amount/);
  });

  it("refuses a country other than BR", () => {
    expect(refusal(withCrc(body({ "58": "US" })))).toMatch(/country code must be "BR"/);
    expect(refusal(withCrc(body({ "58": null })))).toMatch(/country code must be "BR"/);
  });

  it("refuses a missing or blank name or city", () => {
    expect(refusal(withCrc(body({ "59": null })))).toMatch(/no merchant name/);
    expect(refusal(withCrc(body({ "59": "   " })))).toMatch(/no merchant name/);
    expect(refusal(withCrc(body({ "60": null })))).toMatch(/no merchant city/);
  });

  it("refuses a malformed additional data template", () => {
    expect(refusal(withCrc(body({ "62": "05***" })))).toMatch(/additional data \(field 62\) is malformed/);
  });

  it("refuses empty input", () => {
    expect(refusal("")).toMatch(/empty/);
    expect(refusal("  \n\t ")).toMatch(/empty/);
  });

  it("refuses overly long input", () => {
    expect(refusal("000201" + "9".repeat(600))).toMatch(/too long/);
    expect(refusal(withCrc(body() + encodeTlv("99", "x".repeat(99)).repeat(4)))).toMatch(/too long/);
  });

  it.each([
    "hello",
    "not a pix code",
    "https://example.com/pay",
    "000201",
    "0002016304",
    "00020163041D3D",
    "\u0000\u0001\u0002",
    "😀😀😀😀",
    "00020126",
  ])("refuses garbage %j", (input) => {
    refusal(input);
  });

  it("refuses non-string input from untyped callers", () => {
    expect(() => parseBrCode(undefined as unknown as string)).toThrow(BrCodeError);
    expect(() => parseBrCode(12 as unknown as string)).toThrow(BrCodeError);
  });

  it("refuses random noise without throwing anything but BrCodeError", () => {
    const next = rng(123);
    const alphabet = "0123456789ABCDEFabcdef.@*- ";
    for (let i = 0; i < 500; i++) {
      const noise = "000201" + randomString(next, alphabet, 0, 200);
      refusal(withCrc(noise));
    }
  });
});
