import { describe, expect, it } from "vitest";
import {
  centavosToDecimalString,
  decimalStringToCentavos,
  brlNumberToCentavos,
  centavosForCrypto,
  centavosToBrl,
  cryptoDueFor,
  fromBaseUnits,
  saoPauloDay,
  satoshisFor,
  serviceFeeCentavos,
  toBaseUnits,
  tokensForWithdrawal,
  Decimal,
  formatBrl,
} from "./index";

describe("brlNumberToCentavos", () => {
  it("converts values with up to two decimals exactly", () => {
    expect(brlNumberToCentavos(10)).toBe(1000);
    expect(brlNumberToCentavos(10.05)).toBe(1005);
    expect(brlNumberToCentavos(0.01)).toBe(1);
    expect(brlNumberToCentavos(1234567.89)).toBe(123456789);
    expect(brlNumberToCentavos(19.99)).toBe(1999);
  });
  it("refuses more than two decimals, including binary-float artefacts", () => {
    expect(brlNumberToCentavos(10.001)).toBeNull();
    expect(brlNumberToCentavos(0.1 + 0.2)).toBeNull();
    expect(brlNumberToCentavos(Number.NaN)).toBeNull();
    expect(brlNumberToCentavos(Number.POSITIVE_INFINITY)).toBeNull();
    expect(brlNumberToCentavos(1e-7)).toBeNull();
  });
  it("round-trips through centavosToBrl", () => {
    for (const c of [1, 5, 10, 99, 100, 1005, 123456789, 99999999999]) {
      expect(brlNumberToCentavos(centavosToBrl(c))).toBe(c);
    }
  });
});

describe("conversions never favour the payer", () => {
  it("rounds the crypto due up to 6 decimals", () => {
    expect(cryptoDueFor(1000, "5.40")).toBe("1.851852"); // 1.85185185… ↑
    expect(cryptoDueFor(540, "5.40")).toBe("1");
    expect(new Decimal(cryptoDueFor(1, "5.40")).times("5.40").gte("0.01")).toBe(true);
  });
  it("rounds satoshis up", () => {
    expect(satoshisFor(100, "550000")).toBe(182); // 181.818… ↑
    expect(satoshisFor(55000, "550000")).toBe(100000);
  });
  it("rounds withdrawal tokens down to the token precision", () => {
    expect(tokensForWithdrawal(1000, "5.40", 6)).toBe("1.851851");
    expect(tokensForWithdrawal(540, "5.40", 18)).toBe("1");
  });
  it("credits partial payments rounded down to the centavo", () => {
    expect(centavosForCrypto("0.999999", "5.40")).toBe(539); // 5.3999946
    expect(centavosForCrypto("1", "5.40")).toBe(540);
  });
  it("takes the service fee as 0.5% rounded up", () => {
    expect(serviceFeeCentavos(10000)).toBe(50);
    expect(serviceFeeCentavos(1)).toBe(1);
    expect(serviceFeeCentavos(201)).toBe(2);
  });
});

describe("base units", () => {
  it("converts exactly both ways", () => {
    expect(toBaseUnits("1.5", 6)).toBe(1_500_000n);
    expect(toBaseUnits("0.000000000000000001", 18)).toBe(1n);
    expect(fromBaseUnits(1_500_000n, 6)).toBe("1.5");
    expect(() => toBaseUnits("0.0000001", 6)).toThrow();
  });
});

describe("locale helpers", () => {
  it("formats BRL the Brazilian way", () => {
    expect(formatBrl(123456).replace(/\s/g, " ")).toBe("R$ 1.234,56");
  });
  it("counts limit days in São Paulo", () => {
    expect(saoPauloDay(new Date("2026-11-22T02:30:00Z"))).toBe("2026-11-21");
    expect(saoPauloDay(new Date("2026-11-22T03:30:00Z"))).toBe("2026-11-22");
  });
  it("turns the day at São Paulo midnight to the millisecond, whatever was asked before", () => {
    // The answer is remembered per minute: the last millisecond before midnight and the first after
    // it are in different minutes, and asking again after going back must not reuse the newer day.
    expect(saoPauloDay(new Date("2026-11-22T02:59:59.999Z"))).toBe("2026-11-21");
    expect(saoPauloDay(new Date("2026-11-22T03:00:00.000Z"))).toBe("2026-11-22");
    expect(saoPauloDay(new Date("2026-11-22T02:59:00.000Z"))).toBe("2026-11-21");
    expect(saoPauloDay(new Date("2026-11-22T02:59:59.999Z"))).toBe("2026-11-21");
    expect(saoPauloDay(new Date("2027-01-01T02:59:59.999Z"))).toBe("2026-12-31");
    expect(saoPauloDay(new Date("2027-01-01T03:00:00.000Z"))).toBe("2027-01-01");
  });
});

describe("PSP decimal strings", () => {
  it("writes centavos as API Pix's valor and reads it back exactly", () => {
    expect([0, 1, 10, 99, 100, 1234, 100_000_000].map(centavosToDecimalString)).toEqual([
      "0.00",
      "0.01",
      "0.10",
      "0.99",
      "1.00",
      "12.34",
      "1000000.00",
    ]);
    for (const c of [1, 5, 1005, 123456789]) expect(decimalStringToCentavos(centavosToDecimalString(c))).toBe(c);
    expect(() => centavosToDecimalString(-1)).toThrow(RangeError);
    expect(() => centavosToDecimalString(1.5)).toThrow(RangeError);
  });

  it("refuses anything that is not digits, a point and two decimals", () => {
    for (const bad of ["12", "12.3", "12.345", "-1.00", "1e3", " 1.00", "1,00", "", "0x10.00"])
      expect(decimalStringToCentavos(bad)).toBeNull();
  });
});
