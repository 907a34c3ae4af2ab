import "server-only";
import { and, desc, eq, ilike, inArray, or, sql } from "drizzle-orm";
import { db } from "@/db";
import { orderSplits, recipientPayoutSkips, recipientPayouts, recipients } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { keyHolds } from "@/lib/recipients/key-hold";
import type { PayoutSkipView, RecipientPayoutView, RecipientView, StatementView } from "@/lib/recipients/schemas";
import { getRecipient, listRecipients, recipientStatement } from "@/lib/recipients/service";
import { payoutSkipView, recipientPayoutView, recipientView } from "@/lib/recipients/views";
import { orderNames, type StatementLine } from "./statement";

// The dashboard's recipients: the API's own views (lib/recipients), the list paged as
// GET /api/v1/recipients pages it or searched by name, document or reference; one recipient with its
// statement and its latest payouts.

/**
 * What a statement entry is about, for the page to say in the reader's language (the API's
 * `description` stays the service's English text): the order a split part came from or was taken back
 * for, or the automatic payout's slot.
 */
export type RecipientEntrySource = { order?: Extract<StatementLine["source"], { type: "order" }>; slot?: string };

export type RecipientDetail = {
  recipient: RecipientView;
  statement: StatementView;
  /** By entry id. */
  sources: Record<string, RecipientEntrySource>;
  payouts: RecipientPayoutView[];
  /** The schedule's latest slots that paid nothing, and why (lib/recipients/auto-payouts.ts). */
  skips: PayoutSkipView[];
  holdHours: number;
};

const SEARCH_LIMIT = 50;

export function dashboardRecipientsQuery(raw: Record<string, string | undefined>) {
  const q = raw.q?.trim().slice(0, 100) || undefined;
  const cursor = raw.cursor && raw.cursor.length <= 200 ? raw.cursor : undefined;
  return { q, cursor, limit: 20 };
}

/** `%` and `_` typed by the merchant are searched for as themselves. */
const likeText = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The merchant's recipients whose name or reference contains `q`, or whose CPF/CNPJ starts with its
 * digits; newest first, at most SEARCH_LIMIT (a search is read, not paged).
 */
async function searchRecipients(merchantId: string, q: string): Promise<RecipientView[]> {
  const digits = q.replace(/[.\-/\s]/g, "");
  const rows = await db()
    .select()
    .from(recipients)
    .where(
      and(
        eq(recipients.merchantId, merchantId),
        or(
          ilike(recipients.name, likeText(q)),
          ilike(recipients.reference, likeText(q)),
          /^\d{3,14}$/.test(digits) ? sql`${recipients.document} like ${`${digits}%`}` : undefined,
        ),
      ),
    )
    .orderBy(desc(recipients.createdAt), desc(recipients.id))
    .limit(SEARCH_LIMIT);
  const holds = await keyHolds(
    db(),
    merchantId,
    rows.map((r) => r.pixKey),
  );
  return rows.map((r) => recipientView(r, holds.get(r.pixKey) ?? null));
}

export async function listDashboardRecipients(
  merchantId: string,
  q: ReturnType<typeof dashboardRecipientsQuery>,
): Promise<{ recipients: RecipientView[]; nextCursor: string | null }> {
  if (q.q) return { recipients: await searchRecipients(merchantId, q.q), nextCursor: null };
  try {
    return await listRecipients(merchantId, { limit: q.limit, cursor: q.cursor });
  } catch {
    // A cursor that is not one of ours: the first page.
    return listRecipients(merchantId, { limit: q.limit });
  }
}

/** Every recipient of the merchant that a split may name (for the order form's picker), by name. */
export async function splitChoices(merchantId: string): Promise<{ id: string; name: string }[]> {
  return db()
    .select({ id: recipients.id, name: recipients.name })
    .from(recipients)
    .where(and(eq(recipients.merchantId, merchantId), eq(recipients.status, "ACTIVE")))
    .orderBy(recipients.name)
    .limit(500);
}

/** The split part an entry is keyed by: the order_splits row itself, or "<refund or devolução>/<part>". */
function partOf(e: { refType: string; refId: string }): string | null {
  const id = e.refType === "order_split" ? e.refId : e.refId.slice(e.refId.lastIndexOf("/") + 1);
  return isUuid(id) ? id : null;
}

/** Each entry's order (through its split part) or payout slot: one read of parts, one of orders, one of payouts. */
async function entrySources(
  merchantId: string,
  entries: StatementView["entries"],
): Promise<Record<string, RecipientEntrySource>> {
  const partIds = [...new Set(entries.map(partOf).filter((id): id is string => id !== null))];
  const payoutIds = entries.filter((e) => e.refType === "recipient_payout" && isUuid(e.refId)).map((e) => e.refId);
  const [parts, payouts] = await Promise.all([
    partIds.length === 0
      ? []
      : db()
          .select({ id: orderSplits.id, orderId: orderSplits.orderId, onchainOrderId: orderSplits.onchainOrderId })
          .from(orderSplits)
          .where(and(eq(orderSplits.merchantId, merchantId), inArray(orderSplits.id, partIds))),
    payoutIds.length === 0
      ? []
      : db()
          .select({ id: recipientPayouts.id, slot: recipientPayouts.scheduleSlot })
          .from(recipientPayouts)
          .where(and(eq(recipientPayouts.merchantId, merchantId), inArray(recipientPayouts.id, payoutIds))),
  ]);
  const orderOf = new Map(parts.map((p) => [p.id, (p.orderId ?? p.onchainOrderId)!]));
  const names = await orderNames(merchantId, [...orderOf.values()]);
  const slotOf = new Map(payouts.map((p) => [p.id, p.slot]));
  const sources: Record<string, RecipientEntrySource> = {};
  for (const e of entries) {
    const part = e.refType === "recipient_payout" ? null : partOf(e);
    const orderId = part ? orderOf.get(part) : undefined;
    const slot = e.refType === "recipient_payout" ? slotOf.get(e.refId) : null;
    sources[e.id] = {
      ...(orderId ? { order: { type: "order", id: orderId, ...names.get(orderId) } } : {}),
      ...(slot ? { slot } : {}),
    };
  }
  return sources;
}

/** One of the merchant's recipients with its statement, or null (another merchant's id answers like an unknown one). */
export async function getRecipientDetail(merchantId: string, id: string): Promise<RecipientDetail | null> {
  try {
    const [recipient, statement] = await Promise.all([
      getRecipient(merchantId, id),
      recipientStatement(merchantId, id, { limit: 50 }),
    ]);
    const [payouts, skips] = await Promise.all([
      db()
        .select()
        .from(recipientPayouts)
        .where(and(eq(recipientPayouts.merchantId, merchantId), eq(recipientPayouts.recipientId, recipient.id)))
        .orderBy(desc(recipientPayouts.createdAt), desc(recipientPayouts.id))
        .limit(10),
      db()
        .select()
        .from(recipientPayoutSkips)
        .where(and(eq(recipientPayoutSkips.merchantId, merchantId), eq(recipientPayoutSkips.recipientId, recipient.id)))
        .orderBy(desc(recipientPayoutSkips.scheduleSlot), desc(recipientPayoutSkips.createdAt))
        .limit(10),
    ]);
    return {
      recipient,
      statement,
      sources: await entrySources(merchantId, statement.entries),
      payouts: payouts.map(recipientPayoutView),
      skips: skips.map(payoutSkipView),
      holdHours: env().DESTINATION_HOLD_HOURS,
    };
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}
