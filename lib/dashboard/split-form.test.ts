import { describe, expect, it } from "vitest";
import { z } from "zod";
import { takeSplitRows, withSplitRows } from "./split-form";

const R1 = "7d3f0c1e-2b4a-4c5d-8e9f-0a1b2c3d4e5f";
const R2 = "8e4f1d2f-3c5b-4d6e-9f0a-1b2c3d4e5f60";
const body = z.object({ value: z.number(), splits: z.array(z.unknown()).optional() });

describe("the order form's split rows", () => {
  it("become the API's splits, blank rows dropped", () => {
    const parsed = withSplitRows(body).safeParse({
      value: 100,
      "split-0-recipientId": R1,
      "split-0-mode": "value",
      "split-0-amount": "30,50",
      "split-3-recipientId": R2,
      "split-3-mode": "percentage",
      "split-3-amount": "12.5",
      "split-4-mode": "value",
    });
    expect(parsed.success && parsed.data).toEqual({
      value: 100,
      splits: [
        { recipientId: R1, value: 30.5 },
        { recipientId: R2, percentage: 12.5 },
      ],
    });
  });

  it("report each row's mistake on that row's field", () => {
    const parsed = withSplitRows(body).safeParse({
      value: 100,
      "split-0-recipientId": R1,
      "split-0-amount": "10",
      "split-1-recipientId": R1,
      "split-1-amount": "1,234",
      "split-2-amount": "5",
      "split-3-recipientId": R2,
      "split-3-mode": "percentage",
      "split-3-amount": "101",
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error!.issues.map((i) => [i.path[0], i.message]);
    expect(issues).toEqual([
      ["split-1-recipientId", "split.duplicate"],
      ["split-1-amount", "split.amountInvalid"],
      ["split-2-recipientId", "split.pickRequired"],
      ["split-3-amount", "split.percentageRange"],
    ]);
  });

  it("keeps the form's other fields apart", () => {
    expect(takeSplitRows({ value: 1, "split-0-amount": "2" })).toEqual({
      rest: { value: 1 },
      rows: [{ n: 0, amount: "2" }],
    });
  });
});
