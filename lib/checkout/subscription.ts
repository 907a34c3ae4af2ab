import { eq } from "drizzle-orm";
import { db } from "@/db";
import { subscriptions, type Subscription } from "@/db/schema";
import { paymentLink } from "@/lib/links";
import { recipientNameOf } from "./payment";
import { merchantById } from "@/lib/merchants/queries";
import { centavosToBrl } from "@/lib/money";
import { cyclesOf } from "@/lib/subscriptions/queries";
import { dueDateOf } from "@/lib/subscriptions/schedule";
import { amountView } from "@/lib/subscriptions/views";

// What a payer may see of a subscription, by its payer page's id (/pay/{paymentLinkId}): what is
// charged and when, the code to authorise it while it waits for them, and a receipt per paid cycle.
// Nothing private to the merchant (no ids, references or metadata); the payer's own name only.

export type PublicSubscription = {
  merchantName: string;
  status: Subscription["status"];
  journey: Subscription["journey"];
  cancelledBy: Subscription["cancelledBy"];
  description: string;
  payerName: string;
  amount: { type: "FIXED" | "VARIABLE"; value: number; minimum: number | null };
  periodicity: Subscription["periodicity"];
  firstDate: string;
  lastDate: string | null;
  retryPolicy: Subscription["retryPolicy"];
  /** The copy-and-paste code, only while the payer has not authorised it. */
  brcode: string | null;
  /** Who the bank app names as the recipient (the service), while the page names the shop. */
  recipientName: string | null;
  /** The next due dates (at most 3), while cycles are still to come. */
  upcoming: string[];
  /** Paid cycles, newest first, each with its receipt page. */
  paid: { cycle: number; dueDate: string; value: number; paidAt: string | null; receipt: string }[];
};

const LIVE = ["AWAITING_AUTHORISATION", "ACTIVE"];

export async function publicSubscription(paymentLinkId: string): Promise<PublicSubscription | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(paymentLinkId)) return null;
  const [s] = await db().select().from(subscriptions).where(eq(subscriptions.paymentLinkId, paymentLinkId));
  if (!s) return null;
  const [merchant, cycles] = await Promise.all([merchantById(db(), s.merchantId), cyclesOf(db(), s.id)]);
  const upcoming: string[] = [];
  if (LIVE.includes(s.status) && s.nextDueDate) {
    for (let n = s.nextCycle; upcoming.length < 3; n++) {
      const day = dueDateOf(s.firstDate, s.periodicity, n);
      if (s.lastDate && day > s.lastDate) break;
      upcoming.push(day);
    }
  }
  return {
    merchantName: merchant?.companyName ?? "",
    status: s.status,
    journey: s.journey,
    cancelledBy: s.cancelledBy,
    description: s.description,
    payerName: s.payerName,
    amount: amountView(s),
    periodicity: s.periodicity,
    firstDate: s.firstDate,
    lastDate: s.lastDate,
    retryPolicy: s.retryPolicy,
    brcode: s.status === "AWAITING_AUTHORISATION" ? s.brcode : null,
    recipientName: s.status === "AWAITING_AUTHORISATION" ? recipientNameOf(s.brcode) : null,
    upcoming,
    paid: cycles
      .filter((c) => c.cycle.status === "PAID")
      .reverse()
      .map((c) => ({
        cycle: c.cycle.cycle,
        dueDate: c.cycle.dueDate,
        value: centavosToBrl(c.cycle.valueCentavos),
        paidAt: c.cycle.payment?.paidAt ?? null,
        // Journey 3's first payment shares this page's id: its receipt is the order's own page.
        receipt:
          c.order.paymentLinkId === paymentLinkId
            ? `${paymentLink(c.order.paymentLinkId)}?receipt=1`
            : paymentLink(c.order.paymentLinkId),
      })),
  };
}
