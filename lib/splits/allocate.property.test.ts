import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allocate, refundProRata, validateSplits, type SplitSpec } from "./allocate";

const spec = fc.oneof(
  fc.record({ recipientId: fc.uuid(), valueCentavos: fc.integer({ min: 1, max: 5_000_000 }) }),
  fc.record({ recipientId: fc.uuid(), percentageBasisPoints: fc.integer({ min: 1, max: 10_000 }) }),
);
const order = fc.integer({ min: 1, max: 100_000_000_00 });

describe("splits allocation", () => {
  it("parts + merchant remainder sum exactly to the credited amount (10,000 mixes)", () => {
    fc.assert(
      fc.property(
        fc.array(spec, { maxLength: 8 }),
        order,
        fc.double({ min: 0, max: 2, noNaN: true }),
        (specs: SplitSpec[], value, ratio) => {
          const credited = Math.floor(value * ratio);
          const a = allocate(specs, value, credited);
          const sum = a.parts.reduce((s, p) => s + p.centavos, 0) + a.merchantCentavos;
          expect(sum).toBe(credited);
          for (const p of a.parts) expect(Number.isInteger(p.centavos) && p.centavos >= 0).toBe(true);
          if (validateSplits(specs, value) === null) expect(a.merchantCentavos).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it("a refund takes back pro rata and sums exactly to the refunded amount", () => {
    fc.assert(
      fc.property(
        fc.array(spec, { maxLength: 8 }),
        order,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (specs, value, r) => {
          if (validateSplits(specs, value) !== null) return;
          const a = allocate(specs, value, value);
          const refund = Math.floor(value * r);
          const b = refundProRata(a.parts, value, refund);
          expect(b.parts.reduce((s, p) => s + p.centavos, 0) + b.merchantCentavos).toBe(refund);
          b.parts.forEach((p, i) => expect(p.centavos).toBeLessThanOrEqual(a.parts[i].centavos));
          expect(b.merchantCentavos).toBeGreaterThanOrEqual(0);
          expect(b.merchantCentavos).toBeLessThanOrEqual(a.merchantCentavos + b.parts.length);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("refuses duplicates, out-of-range percentages and sums above the value", () => {
    expect(
      validateSplits(
        [
          { recipientId: "a", valueCentavos: 1 },
          { recipientId: "a", valueCentavos: 1 },
        ],
        10,
      )?.code,
    ).toBe("SPLIT_DUPLICATE_RECIPIENT");
    expect(validateSplits([{ recipientId: "a", percentageBasisPoints: 0 }], 10)?.code).toBe(
      "SPLIT_PERCENTAGE_OUT_OF_RANGE",
    );
    expect(validateSplits([{ recipientId: "a", percentageBasisPoints: 10_001 }], 10)?.code).toBe(
      "SPLIT_PERCENTAGE_OUT_OF_RANGE",
    );
    expect(validateSplits([{ recipientId: "a", valueCentavos: 11 }], 10)?.code).toBe("SPLIT_SUM_ABOVE_VALUE");
    expect(validateSplits([{ recipientId: "a", percentageBasisPoints: 10_000 }], 10)).toBeNull();
    expect(allocate([{ recipientId: "a", percentageBasisPoints: 3333 }], 100, 100)).toEqual({
      parts: [{ recipientId: "a", centavos: 33 }],
      merchantCentavos: 67,
    });
  });
});
