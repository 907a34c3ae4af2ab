import { db, type Tx } from "@/db";
import type { Recipient } from "@/db/schema";
import { Conflict, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { isUuid } from "@/lib/ids";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { centavosToBrl } from "@/lib/money";
import { keysetPage } from "@/lib/paging";
import { isHolding } from "@/lib/withdrawals/destinations";
import { keyHolds, recipientKeyLabel, recordRecipientKey, type RecipientOrigin } from "./key-hold";
import { recipientOf } from "./ledger";
import { now } from "@/lib/clock";
import { sameSchedule, scheduleColumns } from "./schedule";
import { insertRecipient, lockRecipient, recipientsPage, statementPage, updateRecipientRow } from "./queries";
import type {
  CreateRecipientInput,
  ListRecipientsQuery,
  RecipientView,
  StatementQuery,
  StatementView,
  UpdateRecipientInput,
} from "./schemas";
import { recipientView, statementEntryView } from "./views";

// Recipients ("recebedores"), the merchant's side (docs/api.md#recipients): made, read, listed,
// edited, disabled, and their statements. Each change is one transaction with its outbox event; a
// changed payout key is held as a new withdrawal destination (./key-hold.ts). Payouts: ./payouts.ts.
// The API and the dashboard call these alike, with the merchant's id and what was asked.

export type { RecipientOrigin } from "./key-hold";

export const recipientNotFound = () => new NotFound("Recipient not found");

async function emit(tx: Tx, type: "recipient.created" | "recipient.updated", r: Recipient, view: RecipientView) {
  await recordEvent(tx, { merchantId: r.merchantId, type, subjectType: "recipient", subjectId: r.id, data: view });
}

/** The view of a recipient as it stands, with its key's hold read from the address book. */
async function viewOf(r: Recipient): Promise<RecipientView> {
  const holds = await keyHolds(db(), r.merchantId, [r.pixKey]);
  return recipientView(r, holds.get(r.pixKey) ?? null);
}

/**
 * A new recipient, its payout key recorded as a destination of the merchant's (not held: see
 * ./key-hold.ts), its event and the request's Idempotency-Key, together. A second recipient with
 * the same document is a 409.
 */
export async function createRecipient(
  merchantId: string,
  input: CreateRecipientInput,
  origin: RecipientOrigin,
): Promise<RecipientView> {
  const made = await db().transaction(async (tx) => {
    const r = await insertRecipient(tx, {
      merchantId,
      name: input.name,
      document: input.document,
      pixKey: input.pixKey.value,
      pixKeyType: input.pixKey.type,
      email: input.email ?? null,
      reference: input.reference ?? null,
      ...scheduleColumns(input.payoutSchedule ?? null, now()),
    });
    if (!r) {
      throw new Conflict("A recipient with this document already exists", { code: "recipient.documentTaken" });
    }
    const key = await recordRecipientKey(tx, origin, merchantId, r.pixKey, recipientKeyLabel(r), false);
    const view = recipientView(r, isHolding(key) ? key.holdUntil : null);
    await emit(tx, "recipient.created", r, view);
    await bindIdempotencyKey(tx, { type: "recipient", id: r.id });
    return view;
  });
  deliverQueuedSoon();
  return made;
}

/** The merchant's recipient; an unknown id or another merchant's is the same 404. */
export async function findRecipient(merchantId: string, id: string): Promise<Recipient> {
  if (!isUuid(id)) throw recipientNotFound();
  const r = await recipientOf(db(), merchantId, id.toLowerCase());
  if (!r) throw recipientNotFound();
  return r;
}

export async function getRecipient(merchantId: string, id: string): Promise<RecipientView> {
  return viewOf(await findRecipient(merchantId, id));
}

/** Newest first, keyset-paginated like every list (lib/paging.ts). */
export async function listRecipients(
  merchantId: string,
  q: ListRecipientsQuery,
): Promise<{ recipients: RecipientView[]; nextCursor: string | null }> {
  const rows = await recipientsPage(db(), merchantId, q);
  const { page, nextCursor } = keysetPage(rows, q.limit, (r) => ({ at: r.createdAt, id: r.id }));
  const holds = await keyHolds(
    db(),
    merchantId,
    page.map((r) => r.pixKey),
  );
  return { recipients: page.map((r) => recipientView(r, holds.get(r.pixKey) ?? null)), nextCursor };
}

/**
 * The fields sent change under the recipient's lock, with the event. A new pixKey is recorded as a
 * held destination (the owners mailed a link that confirms it) in the same transaction: payouts to
 * it are refused until an owner confirms it or DESTINATION_HOLD_HOURS have passed.
 */
export async function updateRecipient(
  merchantId: string,
  id: string,
  input: UpdateRecipientInput,
  origin: RecipientOrigin,
): Promise<RecipientView> {
  const { id: recipientId } = await findRecipient(merchantId, id);
  const updated = await db().transaction(async (tx) => {
    const current = await lockRecipient(tx, merchantId, recipientId);
    if (!current) throw recipientNotFound();
    const keyChanged = input.pixKey !== undefined && input.pixKey.value !== current.pixKey;
    // A schedule sent anew starts anew (its first slot the first to begin after now); the same one keeps its start.
    const schedule = input.payoutSchedule !== undefined ? scheduleColumns(input.payoutSchedule, now()) : undefined;
    const scheduleChanged = schedule !== undefined && !sameSchedule(schedule, current);
    const change = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.reference !== undefined ? { reference: input.reference } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(keyChanged ? { pixKey: input.pixKey!.value, pixKeyType: input.pixKey!.type } : {}),
      ...(scheduleChanged ? schedule : {}),
    };
    if (Object.keys(change).length === 0) return current;
    const r = await updateRecipientRow(tx, recipientId, change);
    if (keyChanged) await recordRecipientKey(tx, origin, merchantId, r.pixKey, recipientKeyLabel(r), true);
    const holds = await keyHolds(tx, merchantId, [r.pixKey]);
    await emit(tx, "recipient.updated", r, recipientView(r, holds.get(r.pixKey) ?? null));
    return r;
  });
  deliverQueuedSoon();
  return viewOf(updated);
}

/** The recipient's ledger entries, newest first, each with the balance after it; the balance is their sum. */
export async function recipientStatement(merchantId: string, id: string, q: StatementQuery): Promise<StatementView> {
  const r = await findRecipient(merchantId, id);
  const { entries, balance } = await statementPage(db(), merchantId, r.id, q);
  const { page, nextCursor } = keysetPage(entries, q.limit, (e) => ({ at: e.createdAt, id: e.id }));
  return {
    recipientId: r.id,
    balance: centavosToBrl(balance),
    entries: page.map(statementEntryView),
    nextCursor,
  };
}
