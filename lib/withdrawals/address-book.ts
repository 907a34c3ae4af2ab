import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { db } from "@/db";
import { merchants, payoutDestinations, securityLinks, type Merchant } from "@/db/schema";
import { forgetMerchant } from "@/lib/identity/api-keys/key-cache";
import { env } from "@/lib/env";
import { InvalidInput, NotFound } from "@/lib/errors";
import type { Locale } from "@/lib/i18n";
import { mailInBackground } from "@/lib/mail/background";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { alertAdmins } from "@/lib/identity/alerts";
import { audit, type Actor } from "@/lib/identity/audit";
import { OWNERS_LINK_ACTOR } from "@/lib/identity/audit-text";
import { consumeSecurityLink, createSecurityLink } from "@/lib/identity/links";
import { hashLinkToken, isLinkToken } from "@/lib/identity/tokens";
import { announceDestination } from "./destination-mail";
import {
  deleteDestination,
  somethingWaitsFor,
  insertDestination,
  markConfirmed,
  normaliseDestination,
  type Destination,
  type DestinationKind,
} from "./destinations";

// The address book a dashboard user manages (Withdrawals → Destinations): adding a destination holds
// it and mails the owners exactly as its first use would (./destination-gate.ts), an owner confirms
// it (in the dashboard with a fresh second factor, or through the mailed link), anyone who may
// withdraw removes one. Each change is audited. Errors are catalog keys: only the dashboard calls
// these. docs/security.md "Withdrawal destinations".

type MerchantActor = Actor & { merchantId: string };

/** Adds a destination, held for DESTINATION_HOLD_HOURS, and mails the owners the link that confirms it. */
export async function addDestination(
  actor: MerchantActor & { userId: string },
  locale: Locale,
  merchant: Pick<Merchant, "id" | "pixKey">,
  input: { kind: DestinationKind; value: string; label?: string },
): Promise<Destination> {
  const value = normaliseDestination(input.kind, input.value);
  // The form checked it with the same rules; this guards other callers.
  if (!value) throw InvalidInput.of(input.kind === "pix_key" ? "pixKey.invalid" : "destinations.incomplete");
  if (input.kind === "pix_key" && value === merchant.pixKey) throw InvalidInput.of("destinations.isPayoutKey");
  const added = await db().transaction(async (tx) => {
    const row = await insertDestination(tx, {
      merchantId: merchant.id,
      ref: { kind: input.kind, value },
      label: input.label?.trim() || null,
      createdBy: actor.userId,
      holdHours: env().DESTINATION_HOLD_HOURS,
      used: false,
    });
    if (!row) throw InvalidInput.of("destinations.exists");
    await audit(actor, "destination.added", row.id, { kind: row.kind, value: row.value, label: row.label ?? "" }, tx);
    const added = { destination: row, token: await createSecurityLink(merchant.id, "destination", row.id, tx) };
    await announceDestination(tx, { actor, locale }, added);
    return added;
  });
  deliverQueuedSoon();
  return added.destination;
}

/** An owner vouches for a destination (the page checked the role and a fresh second factor). */
export async function confirmDestination(actor: MerchantActor & { userId: string }, id: string): Promise<Destination> {
  return db().transaction(async (tx) => {
    const row = await markConfirmed(tx, actor.merchantId, id, actor.userId);
    if (!row) throw NotFound.of("destinations.gone");
    await audit(actor, "destination.confirmed", row.id, { kind: row.kind, value: row.value }, tx);
    return row;
  });
}

export async function removeDestination(actor: MerchantActor, id: string): Promise<Destination> {
  return db().transaction(async (tx) => {
    // What waits for it would otherwise wait for nothing: the merchant cancels it first.
    if (await somethingWaitsFor(tx, actor.merchantId, id)) throw InvalidInput.of("destinations.inUse");
    const row = await deleteDestination(tx, actor.merchantId, id);
    if (!row) throw NotFound.of("destinations.gone");
    await audit(actor, "destination.removed", row.id, { kind: row.kind, value: row.value, status: row.status }, tx);
    return row;
  });
}

/** What a live confirmation link would confirm, for the page it opens; null when it is not one. Reading spends nothing. */
export async function destinationOfLink(token: unknown): Promise<{ company: string; destination: Destination } | null> {
  if (!isLinkToken(token)) return null;
  const [row] = await db()
    .select({ company: merchants.companyName, destination: payoutDestinations })
    .from(securityLinks)
    .innerJoin(
      payoutDestinations,
      and(
        eq(payoutDestinations.id, securityLinks.subjectId),
        eq(payoutDestinations.merchantId, securityLinks.merchantId),
      ),
    )
    .innerJoin(merchants, eq(merchants.id, securityLinks.merchantId))
    .where(
      and(
        eq(securityLinks.tokenHash, hashLinkToken(token)),
        eq(securityLinks.kind, "destination"),
        isNull(securityLinks.usedAt),
        gt(securityLinks.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** The link a link confirms with, refused (and not spent) when it is any other kind of link. */
class NotADestinationLink extends InvalidInput {}

/**
 * Spends a mailed link and confirms its destination in one transaction: once, whoever follows it
 * (it went to the owners' mailboxes). Null when the link is unknown, used, expired or not a
 * destination's, or the destination was removed since.
 */
export async function confirmDestinationByLink(token: unknown, ip: string): Promise<Destination | null> {
  try {
    return await db().transaction(async (tx) => {
      const link = await consumeSecurityLink(token, tx);
      if (!link) return null;
      // Another kind of link (a factor change's) is not spent here.
      if (link.kind !== "destination") throw NotADestinationLink.of("destinations.linkInvalid");
      const row = await markConfirmed(tx, link.merchantId, link.subjectId, null);
      if (!row) return null;
      await audit(
        { merchantId: link.merchantId, userId: null, email: OWNERS_LINK_ACTOR, ip },
        "destination.confirmed",
        row.id,
        { kind: row.kind, value: row.value },
        tx,
      );
      return row;
    });
  } catch (err) {
    if (err instanceof NotADestinationLink) return null;
    throw err;
  }
}

/**
 * Turns the API allow-list on or off (an owner, with a fresh second factor: the page checks both).
 * Withdrawals read it from the merchant's row under its lock, so none is decided on the old value
 * after this commits. Audited and mailed to the owners and admins.
 */
export async function setApiAllowlist(actor: MerchantActor, locale: Locale, enabled: boolean): Promise<boolean> {
  const [row] = await db()
    .update(merchants)
    .set({ apiDestinationAllowlist: enabled })
    .where(
      and(eq(merchants.id, actor.merchantId), sql`${merchants.apiDestinationAllowlist} is distinct from ${enabled}`),
    )
    .returning({ id: merchants.id });
  if (!row) return false;
  forgetMerchant(actor.merchantId);
  await audit(actor, "destination.allowlistChanged", actor.merchantId, { enabled });
  mailInBackground("API allow-list switched", () =>
    alertAdmins(actor, enabled ? "allowlistOn" : "allowlistOff", "", locale),
  );
  return true;
}
