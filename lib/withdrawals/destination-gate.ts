import type { Tx } from "@/db";
import type { Merchant } from "@/db/schema";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import type { Locale } from "@/lib/i18n";
import type { Actor } from "@/lib/identity/audit";
import { createSecurityLink } from "@/lib/identity/links";
import { payoutKeyHeldUntil } from "@/lib/identity/payout-hold";
import {
  insertDestination,
  isHolding,
  lockDestination,
  touchDestination,
  touchDestinationByValue,
  type Destination,
  type DestinationRef,
} from "./destinations";

// Whether a withdrawal may go where it asks, decided under the merchant's row lock in the
// transaction that debits it (./service.ts), so two requests to one new destination are decided
// one after the other: the first records it held, the second finds it held (docs/security.md
// "Withdrawal destinations").
//
//  - The registered payout key keeps its own hold (lib/identity/payout-hold.ts) and nothing else.
//  - Dashboard: a destination never used before is recorded, held for DESTINATION_HOLD_HOURS and
//    announced to the owners with a link that confirms it; a held one is refused until an owner
//    confirms it or the hold ends. Someone who took over a session gets a day's delay and the owners
//    a warning, not the money.
//  - API, allow-list off (the default: the spec takes any valid key, and marketplaces pay many
//    sellers): goes as it always did; the destination is recorded (not held: it has been used) or
//    touched. Allow-list on: only destinations an owner confirmed.

/** Who asked: the API (a key) or a dashboard user, whose mail about a new destination is in their language. */
export type WithdrawalOrigin =
  { channel: "api" } | { channel: "dashboard"; actor: Actor & { merchantId: string }; locale: Locale };

/** A destination this request recorded, with the token of the link that confirms it (for the owners' mail). */
export type NewDestination = { destination: Destination; token: string };

export type Gate =
  { go: true; added: NewDestination | null } | { go: false; held: Destination; added: NewDestination | null };

/** The request field that names the destination, as each endpoint calls it. */
const FIELD = { pix_key: "pixKey", chain_address: "toAddress" } as const;

/** The refusal for a held destination: until when, and how to release it. */
export function destinationHeldError(held: Destination): InvalidInput {
  return new InvalidInput(
    `Withdrawal destination ${held.value} is new: withdrawals to it wait until ${held.holdUntil!.toISOString()} unless an owner confirms it ` +
      "(Withdrawals → Destinations in the dashboard, or the link mailed to the owners)",
    { code: "destination.held", values: { destination: held.value, until: held.holdUntil! } },
  );
}

/** `locked`: the merchant's row as read under its lock (lib/withdrawals/limits.ts). */
export async function gateDestination(
  tx: Tx,
  locked: Merchant,
  ref: DestinationRef,
  origin: WithdrawalOrigin,
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
    return { go: true, added: null };
  }
  const row = await lockDestination(tx, locked.id, ref);
  if (origin.channel === "api") {
    if (locked.apiDestinationAllowlist) {
      if (row?.status !== "confirmed") {
        throw new InvalidInput(
          `${FIELD[ref.kind]} ${ref.value} is not a confirmed withdrawal destination: the API allow-list is on, so API withdrawals go only to ` +
            "destinations an owner has confirmed in the dashboard (Withdrawals → Destinations) and to the registered payout key",
        );
      }
      await touchDestination(tx, row.id);
    } else if (row) {
      await touchDestination(tx, row.id);
    } else {
      await insertDestination(tx, { merchantId: locked.id, ref, createdBy: null, holdHours: 0, used: true });
    }
    return { go: true, added: null };
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
  return hours > 0 ? { go: false, held: inserted, added } : { go: true, added };
}

async function decide(tx: Tx, row: Destination): Promise<Gate> {
  if (isHolding(row)) return { go: false, held: row, added: null };
  await touchDestination(tx, row.id);
  return { go: true, added: null };
}
