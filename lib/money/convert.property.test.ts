import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  brlNumberToCentavos,
  centavosForCrypto,
  centavosToBrl,
  cryptoDueFor,
  Decimal,
  satoshisFor,
  serviceFeeCentavos,
  tokensForWithdrawal,
} from "./index";

// Rounding never favours the payer (lib/money/convert.ts): what a payer must send rounds up, what we
// send out rounds down, what we credit rounds down — and each rounding is by less than one unit.
// Seeded so a failure reproduces; fast-check prints the seed and the shrunk counterexample.

const RUNS = { numRuns: 2000, seed: 20261122 };

/** Up to 10^12 centavos (10 billion BRL), far past MAX_ORDER_VALUE_BRL. */
const centavos = fc.integer({ min: 1, max: 1_000_000_000_000 });

/** A positive rate as the providers give it: up to 8 decimals, from 10^-8 to 10^8 BRL per unit. */
const rate = fc
  .tuple(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 0, max: 99_999_999 }))
  .filter(([i, f]) => i > 0 || f > 0)
  .map(([i, f]) => `${i}.${String(f).padStart(8, "0")}`.replace(/\.?0+$/, ""));

/** BTC in BRL: from 1 BRL up, with satoshi counts that stay exact JavaScript integers. */
const btcRate = rate.filter((r) => new Decimal(r).gte(1));

const brl = (c: number) => new Decimal(c).div(100);

describe("conversions never favour the payer (property)", () => {
  it("cryptoDueFor × rate ≥ value, and one unit (10^-6) less would not be", () => {
    fc.assert(
      fc.property(centavos, rate, (c, r) => {
        const due = new Decimal(cryptoDueFor(c, r));
        expect(due.times(r).gte(brl(c))).toBe(true);
        expect(due.decimalPlaces()).toBeLessThanOrEqual(6);
        expect(due.minus("0.000001").times(r).lt(brl(c))).toBe(true);
      }),
      RUNS,
    );
  });

  it("satoshis × BTC rate / 10^8 ≥ value, and one satoshi less would not be", () => {
    fc.assert(
      // At most all the bitcoin there will ever be (2.1 × 10^15 satoshis).
      fc.property(
        fc.tuple(centavos, btcRate).filter(([c, btc]) => brl(c).div(btc).times(1e8).lte(2.1e15)),
        ([c, btc]) => {
          const sats = satoshisFor(c, btc);
          expect(Number.isSafeInteger(sats)).toBe(true);
          expect(new Decimal(sats).times(btc).div(1e8).gte(brl(c))).toBe(true);
          expect(new Decimal(sats - 1).times(btc).div(1e8).lt(brl(c))).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it("tokensForWithdrawal × rate ≤ value, and one unit of the token more would exceed it", () => {
    fc.assert(
      fc.property(centavos, rate, fc.constantFrom(6, 8, 18), (c, r, decimals) => {
        const tokens = new Decimal(tokensForWithdrawal(c, r, decimals));
        expect(tokens.times(r).lte(brl(c))).toBe(true);
        expect(tokens.decimalPlaces()).toBeLessThanOrEqual(decimals);
        expect(tokens.plus(new Decimal(10).pow(-decimals)).times(r).gt(brl(c))).toBe(true);
      }),
      RUNS,
    );
  });

  it("centavosForCrypto(x) ≤ x × rate, within one centavo", () => {
    const amount = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }))
      .map(([i, f]) => `${i}.${f.toString().padStart(18, "0")}`);
    // Credits are at most an order's value; past 2^53 centavos a JS number could not hold the result.
    const inDomain = ([x, r]: [string, string]) => new Decimal(x).times(r).times(100).lte(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.tuple(amount, rate).filter(inDomain), ([x, r]) => {
        const credited = centavosForCrypto(x, r);
        const exact = new Decimal(x).times(r).times(100);
        expect(Number.isInteger(credited)).toBe(true);
        expect(new Decimal(credited).lte(exact)).toBe(true);
        expect(new Decimal(credited + 1).gt(exact)).toBe(true);
      }),
      RUNS,
    );
  });

  it("the service fee is at least 0.5% of the value, by less than a centavo", () => {
    fc.assert(
      fc.property(centavos, (c) => {
        const fee = serviceFeeCentavos(c);
        const exact = new Decimal(c).times("0.005");
        expect(new Decimal(fee).gte(exact)).toBe(true);
        expect(new Decimal(fee - 1).lt(exact)).toBe(true);
      }),
      RUNS,
    );
  });

  it("BRL JSON numbers round-trip through centavos exactly", () => {
    // Up to 10^15 centavos: 15 significant digits, all a double is guaranteed to carry.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000_000_000 }), (c) => {
        expect(brlNumberToCentavos(centavosToBrl(c))).toBe(c);
      }),
      RUNS,
    );
  });

  it("centavos → BRL gives the same double as the decimal it stands for, and BRL → centavos agrees with exact decimal arithmetic", () => {
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (c) => {
        expect(centavosToBrl(c)).toBe(Number(new Decimal(c).div(100).toFixed(2)));
      }),
      RUNS,
    );
    // Doubles of every kind, and ones with exactly 0–3 decimals, which are the interesting boundary.
    const decimals = fc
      .tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 3 }))
      .map(([n, d]) => n / 10 ** d);
    fc.assert(
      fc.property(fc.oneof(fc.double(), decimals), (v) => {
        const d = new Decimal(String(v));
        const exact =
          Number.isFinite(v) && d.decimalPlaces() <= 2 && Number.isSafeInteger(d.times(100).toNumber())
            ? d.times(100).toNumber()
            : null;
        expect(brlNumberToCentavos(v)).toBe(exact === 0 ? 0 : exact);
      }),
      RUNS,
    );
  });

  it("a double with more than 2 decimals is refused, never rounded", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: false, noDefaultInfinity: false }), (v) => {
        const c = brlNumberToCentavos(v);
        if (c === null) return;
        // Accepted only if the shortest decimal form of v is exactly c / 100.
        expect(new Decimal(String(v)).eq(brl(c))).toBe(true);
      }),
      RUNS,
    );
  });
});
