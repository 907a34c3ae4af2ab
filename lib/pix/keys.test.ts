import { describe, it, expect } from "vitest";
import { classifyPixKey, isValidCnpj, isValidCpf, maskPixKey } from "./keys";

// Independent check-digit generators, written from the Receita Federal rules rather than
// shared with the code under test.
function dv(values: number[], weights: number[]): number {
  const sum = values.reduce((acc, v, i) => acc + v * weights[i], 0);
  return sum % 11 < 2 ? 0 : 11 - (sum % 11);
}

function makeCpf(base9: string): string {
  const v = base9.split("").map(Number);
  const d1 = dv(v, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = dv([...v, d1], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return `${base9}${d1}${d2}`;
}

function makeCnpj(base12: string): string {
  const v = base12.split("").map((c) => c.charCodeAt(0) - "0".charCodeAt(0));
  const d1 = dv(v, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = dv([...v, d1], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return `${base12}${d1}${d2}`;
}

// Deterministic so a failure can be reproduced.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomString(next: () => number, alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

function bumpLastDigit(s: string): string {
  const last = Number(s[s.length - 1]);
  return s.slice(0, -1) + String((last + 1) % 10);
}

describe("isValidCpf", () => {
  it("accepts known valid CPFs", () => {
    expect(isValidCpf("52998224725")).toBe(true);
    expect(isValidCpf("12345678909")).toBe(true);
  });

  it("accepts generated CPFs and refuses them with a wrong check digit", () => {
    const next = rng(1);
    for (let i = 0; i < 200; i++) {
      const cpf = makeCpf(randomString(next, "0123456789", 9));
      if (/^(\d)\1{10}$/.test(cpf)) continue;
      expect(isValidCpf(cpf)).toBe(true);
      expect(isValidCpf(bumpLastDigit(cpf))).toBe(false);
      expect(isValidCpf(cpf.slice(0, 9) + String((Number(cpf[9]) + 1) % 10) + cpf[10])).toBe(false);
    }
  });

  it("refuses wrong check digits", () => {
    expect(isValidCpf("52998224724")).toBe(false);
    expect(isValidCpf("52998224735")).toBe(false);
  });

  it("refuses all-same-digit CPFs even though their check digits add up", () => {
    for (let d = 0; d <= 9; d++) {
      const cpf = String(d).repeat(11);
      expect(makeCpf(cpf.slice(0, 9))).toBe(cpf);
      expect(isValidCpf(cpf)).toBe(false);
    }
  });

  it("refuses wrong lengths, punctuation and letters", () => {
    for (const bad of ["", "5299822472", "529982247250", "529.982.247-25", "5299822472a", " 52998224725"]) {
      expect(isValidCpf(bad)).toBe(false);
    }
  });
});

describe("isValidCnpj", () => {
  it("accepts known valid CNPJs, numeric and alphanumeric", () => {
    expect(isValidCnpj("11222333000181")).toBe(true);
    // Receita Federal's published example of the alphanumeric CNPJ.
    expect(isValidCnpj("12ABC34501DE35")).toBe(true);
  });

  it("accepts generated CNPJs and refuses them with a wrong check digit", () => {
    const next = rng(2);
    for (let i = 0; i < 200; i++) {
      const numeric = makeCnpj(randomString(next, "0123456789", 12));
      const alnum = makeCnpj(randomString(next, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 12));
      for (const cnpj of [numeric, alnum]) {
        if (/^(.)\1{13}$/.test(cnpj)) continue;
        expect(isValidCnpj(cnpj)).toBe(true);
        expect(isValidCnpj(bumpLastDigit(cnpj))).toBe(false);
      }
    }
  });

  it("refuses wrong check digits", () => {
    expect(isValidCnpj("11222333000182")).toBe(false);
    expect(isValidCnpj("12ABC34501DE36")).toBe(false);
    expect(isValidCnpj("12ABC34501DF35")).toBe(false);
  });

  it("refuses all-same CNPJs even though their check digits add up", () => {
    expect(makeCnpj("000000000000")).toBe("00000000000000");
    for (let d = 0; d <= 9; d++) expect(isValidCnpj(String(d).repeat(14))).toBe(false);
  });

  it("refuses formatting, lower case, letters in check digits and wrong lengths", () => {
    for (const bad of [
      "11.222.333/0001-81",
      "12abc34501de35",
      "12ABC34501DEA5",
      "1122233300018",
      "112223330001810",
      "",
    ]) {
      expect(isValidCnpj(bad)).toBe(false);
    }
  });
});

describe("classifyPixKey", () => {
  it.each([
    ["52998224725", "cpf", "52998224725"],
    ["529.982.247-25", "cpf", "52998224725"],
    ["11222333000181", "cnpj", "11222333000181"],
    ["11.222.333/0001-81", "cnpj", "11222333000181"],
    ["12ABC34501DE35", "cnpj", "12ABC34501DE35"],
    ["12.ABC.345/01DE-35", "cnpj", "12ABC34501DE35"],
    ["12abc34501de35", "cnpj", "12ABC34501DE35"],
    ["fulano@example.com", "email", "fulano@example.com"],
    ["Fulano.Tal+pix@Example.COM.br", "email", "fulano.tal+pix@example.com.br"],
    ["+5511987654321", "phone", "+5511987654321"],
    ["+551133334444", "phone", "+551133334444"],
    ["+55 (11) 98765-4321", "phone", "+5511987654321"],
    ["+5599987654321", "phone", "+5599987654321"],
    ["123e4567-e89b-12d3-a456-426614174000", "evp", "123e4567-e89b-12d3-a456-426614174000"],
    ["123E4567-E89B-12D3-A456-426614174000", "evp", "123e4567-e89b-12d3-a456-426614174000"],
    ["  fulano@example.com  ", "email", "fulano@example.com"],
  ])("classifies %s as %s", (key, type, normalized) => {
    expect(classifyPixKey(key)).toEqual({ type, normalized });
  });

  it("classifies generated CPFs and CNPJs", () => {
    const next = rng(3);
    for (let i = 0; i < 50; i++) {
      const cpf = makeCpf(randomString(next, "123456789", 9));
      expect(classifyPixKey(cpf)).toEqual({ type: "cpf", normalized: cpf });
      const cnpj = makeCnpj(randomString(next, "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ", 12));
      expect(classifyPixKey(cnpj.toLowerCase())).toEqual({ type: "cnpj", normalized: cnpj });
    }
  });

  it("refuses an 11-digit string that is not a valid CPF instead of taking it for a phone", () => {
    expect(isValidCpf("11987654321")).toBe(false);
    expect(classifyPixKey("11987654321")).toBeNull();
    expect(classifyPixKey("52998224724")).toBeNull();
  });

  it.each([
    ["empty", ""],
    ["whitespace", "   "],
    ["CPF with wrong check digit, formatted", "529.982.247-24"],
    ["all-same CPF", "11111111111"],
    ["CNPJ with wrong check digit", "11222333000182"],
    ["all-same CNPJ", "00000000000000"],
    ["phone without +55", "5511987654321"],
    ["phone without country code", "11987654321x"],
    ["phone from another country", "+14155552671"],
    ["phone with area code starting with 0", "+5501987654321"],
    ["phone with area code 10", "+5510987654321"],
    ["phone too short", "+55119876543"],
    ["phone too long", "+55119876543210"],
    ["phone with letters", "+5511abcdefghi"],
    ["e-mail without @", "fulano.example.com"],
    ["e-mail with two @", "a@b@example.com"],
    ["e-mail without domain dot", "fulano@localhost"],
    ["e-mail with numeric TLD", "fulano@example.123"],
    ["e-mail with space", "ful ano@example.com"],
    ["e-mail with leading dot", ".fulano@example.com"],
    ["e-mail with double dot", "ful..ano@example.com"],
    ["e-mail with hyphen-edged label", "fulano@-example.com"],
    ["e-mail longer than 77 characters", `${"a".repeat(66)}@example.com`],
    ["EVP too short", "123e4567-e89b-12d3-a456-42661417400"],
    ["EVP with non-hex character", "123e4567-e89b-12d3-a456-42661417400g"],
    ["EVP without dashes", "123e4567e89b12d3a456426614174000"],
    ["random text", "hello world"],
  ])("refuses %s", (_label, key) => {
    expect(classifyPixKey(key)).toBeNull();
  });

  it("accepts an e-mail of exactly 77 characters", () => {
    const email = `${"a".repeat(64)}@example1.com`;
    expect(email).toHaveLength(77);
    expect(classifyPixKey(email)?.type).toBe("email");
  });
});

describe("maskPixKey", () => {
  it.each([
    ["52998224725", "***.982.247-**"],
    ["529.982.247-25", "***.982.247-**"],
    ["11222333000181", "**.222.333/****-**"],
    ["12ABC34501DE35", "**.ABC.345/****-**"],
    ["john@example.com", "j***@example.com"],
    ["+5511987654321", "+55 11 *****-4321"],
    ["+551133334321", "+55 11 ****-4321"],
    ["123e4567-e89b-12d3-a456-426614174000", "123e…4000"],
    ["123E4567-E89B-12D3-A456-426614174000", "123e…4000"],
    ["not a key", "***"],
  ])("masks %s as %s", (key, masked) => {
    expect(maskPixKey(key)).toBe(masked);
  });

  it("never contains the full normalized key", () => {
    for (const key of [
      "52998224725",
      "11222333000181",
      "john@example.com",
      "+5511987654321",
      "123e4567-e89b-12d3-a456-426614174000",
    ]) {
      const normalized = classifyPixKey(key)?.normalized ?? "";
      expect(maskPixKey(key)).not.toContain(normalized);
    }
  });
});
