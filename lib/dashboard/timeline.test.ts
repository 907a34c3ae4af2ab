import { describe, expect, it } from "vitest";
import { en } from "@/lib/i18n/en";
import { timelineLine } from "./timeline";

describe("timelineLine", () => {
  it("says what happened to the money, in the merchant's words", () => {
    expect(timelineLine({ type: "order.status_changed", status: "COMPLETED", valueCentavos: null })).toEqual({
      key: "timeline.paid",
      tone: "good",
    });
    expect(timelineLine({ type: "order.status_changed", status: "CANCELLED", valueCentavos: null }).key).toBe(
      "timeline.expired",
    );
    expect(
      timelineLine({ type: "onchain.deposit.status_changed", status: "PARTIAL_ORDER", valueCentavos: null }).key,
    ).toBe("timeline.partial");
    expect(timelineLine({ type: "crypto_pix.status_changed", status: "REFUNDED", valueCentavos: null }).key).toBe(
      "timeline.cryptoPixClosedRefunded",
    );
  });

  it("tells accepted unapplied funds from returned ones, and a refused return", () => {
    const line = (status: string) =>
      timelineLine({ type: "onchain.deposit.unapplied.status_changed", status, valueCentavos: null });
    expect(line("accept:COMPLETED")).toEqual({ key: "timeline.unappliedAccepted", tone: "good" });
    expect(line("return:PENDING").key).toBe("timeline.unappliedReturning");
    expect(line("return:COMPLETED").key).toBe("timeline.unappliedReturned");
    expect(line("return:FAILED")).toEqual({ key: "timeline.unappliedReturnFailed", tone: "bad" });
    // A return that waits for a new address, and one cancelled while it waited (lib/events/queries.ts).
    expect(line("return:PENDING:waiting").key).toBe("timeline.unappliedWaiting");
    expect(line("return:FAILED:cancelled")).toEqual({ key: "timeline.unappliedReturnCancelled", tone: "neutral" });
  });

  it("carries a refund's amount", () => {
    expect(timelineLine({ type: "refund.status_changed", status: "COMPLETED", valueCentavos: 3000 })).toEqual({
      key: "timeline.refundDone",
      tone: "neutral",
      amount: 3000,
    });
    expect(en["timeline.refundDone"]).toContain("{amount}");
  });

  it("never shows an event type: unknown changes read as an update", () => {
    expect(timelineLine({ type: "order.something_new", status: "X", valueCentavos: null }).key).toBe(
      "timeline.updated",
    );
    expect(timelineLine({ type: "crypto_pix.funds_unapplied", status: null, valueCentavos: null }).key).toBe(
      "timeline.unapplied",
    );
  });
});
