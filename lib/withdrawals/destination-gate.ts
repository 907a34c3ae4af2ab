import type { Tx } from "@/db";
import { eq, sql } from "drizzle-orm";
import { merchants, type Merchant } from "@/db/schema";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n";
import type { Actor } from "@/lib/identity/audit";
import { createSecurityLink } from "@/lib/identity/links";
import { payoutKeyHeldUntil } from "@/lib/identity/payout-hold";
import { announceDestination } from "./destination-mail";
import {
  insertDestination,
  isHolding,
  lockDestination,
  touchDestination,
  touchDestinationByValue,
  type Destination,
  type DestinationRef,
} from "./destinations";

// The one destination rule for money that leaves to a place the merchant chose: withdrawals (PIX
// and on-chain, API and dashboard), returns of unapplied on-chain funds (lib/onchain/unapplied.ts)
// and Crypto-PIX refunds to a pasted address. Decided under the merchant's row lock in the
// transaction that records the money's move, so two requests to one new destination are decided one
// after the other: the first records it held, the second finds it held (docs/security.md
// "Withdrawal destinations").
//
//  - The registered payout key keeps its own hold (lib/identity/payout-hold.ts) and nothing else.
//  - Dashboard: a destination never used before is recorded, held for DESTINATION_HOLD_HOURS and
//    announced to the owners (in this transaction) with a link that confirms it. A request to a held
//    destination is accepted and waits: recorded with its money reserved, sent by ./release.ts when
//    an owner confirms the destination or the hold ends, cancellable meanwhile. Someone who took over
//    a session gets a day's delay and the owners a warning and the time to cancel, not the money.
//  - API, allow-list off (the default: the spec takes any valid key, and marketplaces pay many
//    sellers): goes as it always did; the destination is recorded (not held: it has been used) or
//    touched. Allow-list on: only destinations an owner confirmed; anything else is refused.
//  - API, a key created in the dashboard within DESTINATION_HOLD_HOURS: only destinations already
//    known (used before and not held, or confirmed) and the payout key; anything else is refused, so
//    a taken-over session cannot mint a key and pay a new destination through the API at once.
//  - A return to the address the money came from is no new destination: its callers skip the gate.

type MerchantActor = Actor & { merchantId: string };

/** Who asked: the API (a key) or a dashboard user, whose mails are in their language. */
export type WithdrawalOrigin =
  | { channel: "api"; actor: MerchantActor; keyId: string }
  | { channel: "dashboard"; actor: MerchantActor; locale: Locale };

/** A destination this request recorded, with the token of the link that confirms it (for the owners' mail). */
export type NewDestination = { destination: Destination; token: string };

/** `held`: the destination the request must wait for (null: it goes now); `added`: recorded by this request. */
export type Gate = { held: Destination | null; added: NewDestination | null };

/** The language a request's mails are written in: the dashboard user's, else the service's default. */
export const originLocale = (origin: WithdrawalOrigin): Locale =>
  origin.channel === "dashboard" ? origin.locale : DEFAULT_LOCALE;

/** What a request waiting for `held` says while it waits (GET /withdrawals/{id} `waitingReason`). */
export function waitingReasonFor(held: Pick<Destination, "value" | "holdUntil">): string {
  return (
    `waiting for destination ${held.value}: it is new, so it is sent once an owner confirms it ` +
    `or at ${held.holdUntil!.toISOString()} when its hold ends; it can be cancelled until then`
  );
}

/** The request field that names the destination, as each endpoint calls it. */
const FIELD = { pix_key: "pixKey", chain_address: "toAddress" } as const;

/** `locked`: the merchant's row as read under its lock (lib/withdrawals/limits.ts). */
export async function gateDestination(
  tx: Tx,
  locked: Merchant,
  ref: DestinationRef,
  origin: WithdrawalOrigin,
  field: string = FIELD[ref.kind],
): Promise<Gate> {
  if (ref.kind === "pix_key" && locked.pixKey === ref.value) {
    const heldUntil = payoutKeyHeldUntil(locked);
    if (heldUntil) {
      throw new InvalidInput(
        `The registered PIX key was changed recently: withdrawals to it wait until ${heldUntil.toISOString()} unless an owner confirms the change in the dashboard`,
        { code: "payoutKey.held", values: { until: heldUntil } },
      );
    }
    await touchDestinationByValue(tx, locked.id, ref);
    return { held: null, added: null };
  }
  const row = await lockDestination(tx, locked.id, ref);
  if (origin.channel === "api") {
    if (locked.apiDestinationAllowlist) {
      if (row?.status !== "confirmed") {
        throw new InvalidInput(
          `${field} ${ref.value} is not a confirmed withdrawal destination: the API allow-list is on, so API withdrawals go only to ` +
            "destinations an owner has confirmed in the dashboard (Withdrawals → Destinations) and to the registered payout key",
        );
      }
      await touchDestination(tx, row.id);
    } else if (await isNewDashboardKey(tx, locked.id, origin.keyId)) {
      if (!row || isHolding(row)) {
        throw new InvalidInput(
          `${field} ${ref.value} is not a known withdrawal destination: this API key was created in the dashboard less than ` +
            `${env().DESTINATION_HOLD_HOURS} h ago, and until then it pays only destinations used before or confirmed by an owner ` +
            "(Withdrawals → Destinations) and the registered payout key",
        );
      }
      await touchDestination(tx, row.id);
    } else if (row) {
      await touchDestination(tx, row.id);
    } else {
      await insertDestination(tx, { merchantId: locked.id, ref, createdBy: null, holdHours: 0, used: true });
    }
    return { held: null, added: null };
  }
  if (row) return decide(tx, row);
  const hours = env().DESTINATION_HOLD_HOURS;
  const inserted = await insertDestination(tx, {
    merchantId: locked.id,
    ref,
    createdBy: origin.actor.userId,
    holdHours: hours,
    used: hours === 0,
  });
  // Added from the address book meanwhile (it does not take the merchant's lock): decided as it stands.
  if (!inserted) return decide(tx, (await lockDestination(tx, locked.id, ref))!);
  const added = { destination: inserted, token: await createSecurityLink(locked.id, "destination", inserted.id, tx) };
  await announceDestination(tx, origin, added);
  return { held: hours > 0 ? inserted : null, added };
}

/**
 * The rule for money that is not the merchant's balance (a return of unapplied funds): the merchant's
 * row locked first, since nothing before took it, so two returns to one new address are decided one
 * after the other as withdrawals are.
 */
export async function gateDestinationOf(
  tx: Tx,
  merchantId: string,
  ref: DestinationRef,
  origin: WithdrawalOrigin,
  field?: string,
): Promise<Gate> {
  const [locked] = await tx.select().from(merchants).where(eq(merchants.id, merchantId)).for("update");
  return gateDestination(tx, locked, ref, origin, field);
}

/** Whether the key was created in the dashboard (its audit row names a user) within the destination hold. */
async function isNewDashboardKey(tx: Tx, merchantId: string, keyId: string): Promise<boolean> {
  const hours = env().DESTINATION_HOLD_HOURS;
  if (hours === 0) return false;
  const rows = await tx.execute(sql`
    select 1 from audit_events
    where merchant_id = ${merchantId} and action = 'apiKey.created' and target = ${keyId} and user_id is not null
      and created_at > now() - make_interval(hours => ${hours})
    limit 1`);
  return rows.length > 0;
}

async function decide(tx: Tx, row: Destination): Promise<Gate> {
  if (isHolding(row)) return { held: row, added: null };
  await touchDestination(tx, row.id);
  return { held: null, added: null };
}
