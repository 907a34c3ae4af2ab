import { describe, it, expect } from "vitest";
import { computeCRC } from "pix-utils/dist/main/crc";
import { crc16Ccitt } from "./crc16";

describe("crc16Ccitt", () => {
  it("matches the CRC-16/CCITT-FALSE check value", () => {
    expect(crc16Ccitt("123456789")).toBe("29B1");
  });

  it("returns the init value for an empty payload", () => {
    expect(crc16Ccitt("")).toBe("FFFF");
  });

  it("always returns 4 upper-case hex characters, zero padded", () => {
    for (let i = 0; i < 300; i++) {
      expect(crc16Ccitt(`payload-${i}`)).toMatch(/^[0-9A-F]{4}$/);
    }
  });

  it("hashes the UTF-8 bytes, not UTF-16 code units", () => {
    // Independent byte-wise reference: "é" must hash as C3 A9, not as the single unit E9.
    const crcOfBytes = (bytes: number[]): string => {
      let crc = 0xffff;
      for (const b of bytes) {
        for (let i = 7; i >= 0; i--) {
          const top = ((crc >> 15) & 1) ^ ((b >> i) & 1);
          crc = ((crc << 1) & 0xffff) ^ (top ? 0x1021 : 0);
        }
      }
      return crc.toString(16).toUpperCase().padStart(4, "0");
    };
    expect(crc16Ccitt("é")).toBe(crcOfBytes([0xc3, 0xa9]));
    expect(crc16Ccitt("é")).not.toBe(crcOfBytes([0xe9]));
    expect(crc16Ccitt("123456789")).toBe(crcOfBytes([...Buffer.from("123456789")]));
  });

  it("agrees with pix-utils on ASCII and non-ASCII payloads", () => {
    const samples = [
      "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304",
      "São Paulo – pão de queijo",
      "emoji 😀 payload",
      "A",
    ];
    for (const s of samples) expect(crc16Ccitt(s)).toBe(computeCRC(s));
  });
});
