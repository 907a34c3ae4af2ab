import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import type { HeldHtlcs } from "@/lib/providers/lightning/types";

// How many blocks a held payment has left (docs/providers.md, "Crypto-PIX over Lightning"). lnd
// cancels a hold invoice once the chain is invoices.holdexpirydelta blocks from its earliest held
// HTLC's expiry, and the payer's sats go back: a PIX started too close to that could be paid after
// they went. So its PIX starts only while that expiry is LND_HOLD_MIN_BLOCKS_LEFT blocks away or more.
//
// The height is the node's (ChainKit GetBestBlock: the merchant's invoice macaroon may call it, but
// not GetInfo). A node that cannot answer it (built without chainrpc, or down a moment) is judged
// from the HTLC itself: the height lnd accepted it at, plus one block for every minute since (ten
// times Bitcoin's average rate), so a payment seen late is refused rather than trusted.

const MINUTE_MS = 60_000;

/** `blocksLeft` null: the node told neither the HTLC's expiry nor a height to count from. */
export type HtlcRoom = {
  blocksLeft: number | null;
  needed: number;
  height: number | null;
  heightFrom: "node" | "htlc" | null;
};

async function currentHeight(
  held: Partial<HeldHtlcs>,
  acceptedAt: Date,
): Promise<{ height: number; from: HtlcRoom["heightFrom"] } | null> {
  try {
    const height = await providers().lightning.bestBlockHeight!();
    // Never below the height lnd accepted the HTLC at.
    return { height: Math.max(height, held.acceptHeight ?? 0), from: "node" };
  } catch (err) {
    if (!held.acceptHeight) return null;
    log.warn("Lightning node did not tell its block height; it is estimated from the held HTLC", { err });
    const minutes = Math.max(0, Date.now() - acceptedAt.getTime()) / MINUTE_MS;
    return { height: held.acceptHeight + 1 + Math.floor(minutes), from: "htlc" };
  }
}

/**
 * The room a held payment leaves for its PIX, or null on a node without a chain (the sandbox's, whose
 * invoices never expire by height).
 */
export async function htlcRoom(held: Partial<HeldHtlcs>, acceptedAt: Date): Promise<HtlcRoom | null> {
  if (!providers().lightning.bestBlockHeight) return null;
  const needed = env().LND_HOLD_MIN_BLOCKS_LEFT;
  const now = held.htlcExpiryHeight ? await currentHeight(held, acceptedAt) : null;
  if (!held.htlcExpiryHeight || !now)
    return { blocksLeft: null, needed, height: now?.height ?? null, heightFrom: now?.from ?? null };
  return { blocksLeft: held.htlcExpiryHeight - now.height, needed, height: now.height, heightFrom: now.from };
}

/** Not knowing counts as no room. */
export const enoughRoom = (room: HtlcRoom | null) =>
  room === null || (room.blocksLeft !== null && room.blocksLeft >= room.needed);

/** Why a held payment was refused, for the merchant (the payment's failureReason). */
export function noRoomReason(room: HtlcRoom): string {
  const why =
    room.blocksLeft === null
      ? "the node did not say when its HTLC expires"
      : `its HTLC expires in ${Math.max(0, room.blocksLeft)} blocks, fewer than the ${room.needed} a PIX needs`;
  return `Lightning payment refused: ${why}; the invoice is cancelled and the payer's sats go back (no PIX was made)`;
}
