import { describe, it, expect } from "vitest";
import { encodeTlv, parseTlv } from "./emv";
import { BrCodeError } from "./errors";

describe("encodeTlv", () => {
  it("writes id, 2-digit length and value", () => {
    expect(encodeTlv("00", "01")).toBe("000201");
    expect(encodeTlv("59", "Fulano de Tal")).toBe("5913Fulano de Tal");
    expect(encodeTlv("05", "***")).toBe("0503***");
  });

  it("counts characters, not UTF-16 units or bytes", () => {
    expect(encodeTlv("02", "ção")).toBe("0203ção");
    expect(encodeTlv("02", "a😀")).toBe("0202a😀");
  });

  it("accepts 99 characters and refuses 100", () => {
    expect(encodeTlv("26", "x".repeat(99))).toBe(`2699${"x".repeat(99)}`);
    expect(() => encodeTlv("26", "x".repeat(100))).toThrow(BrCodeError);
  });

  it("refuses empty values and malformed ids", () => {
    expect(() => encodeTlv("26", "")).toThrow(BrCodeError);
    expect(() => encodeTlv("6", "a")).toThrow(BrCodeError);
    expect(() => encodeTlv("ab", "a")).toThrow(BrCodeError);
  });
});

describe("parseTlv", () => {
  it("returns [] for an empty string", () => {
    expect(parseTlv("")).toEqual([]);
  });

  it("round-trips what encodeTlv writes, nested templates included", () => {
    const inner = encodeTlv("00", "br.gov.bcb.pix") + encodeTlv("01", "ção@exemplo.com");
    const s = encodeTlv("00", "01") + encodeTlv("26", inner) + encodeTlv("59", "São 😀");
    expect(parseTlv(s)).toEqual([
      { id: "00", value: "01" },
      { id: "26", value: inner },
      { id: "59", value: "São 😀" },
    ]);
    expect(parseTlv(inner)).toEqual([
      { id: "00", value: "br.gov.bcb.pix" },
      { id: "01", value: "ção@exemplo.com" },
    ]);
  });

  it.each([
    ["value shorter than its length", "0005abc"],
    ["header cut after the id", "000201" + "59"],
    ["header cut inside the length", "0002015"],
    ["non-numeric length", "00AB01"],
    ["non-numeric id", "A00201"],
    ["zero length", "0000"],
    ["trailing garbage", "000201x"],
  ])("throws BrCodeError on %s", (_label, input) => {
    expect(() => parseTlv(input)).toThrow(BrCodeError);
  });
});
