import { sql } from "drizzle-orm";
import type { Tx } from "@/db";

/**
 * Reserves the hot wallet's next nonce in `scope` (a network, or a network on one chain id: see
 * ChainProvider.nonceScope) inside the caller's transaction. The row lock serialises concurrent
 * sends, and a rolled-back transaction gives its nonce back, so nonces are gap-free and never shared.
 *
 * The count starts from `startAt` (the node's pending nonce, read before the transaction began so no
 * node call waits under the lock; a function only for the rare race where it was not foreseen) the
 * first time a wallet sends in a scope, and again when the hot wallet changes: transactions it sent
 * before we kept count must not be reused, and a count kept for another key means nothing for this one.
 */
export async function reserveNonce(
  tx: Tx,
  scope: string,
  address: string,
  startAt: number | (() => Promise<number>),
): Promise<number> {
  const [current] = await tx.execute<{ address: string }>(
    sql`select address from hot_wallet_nonces where network = ${scope} for update`,
  );
  if (current?.address === address) {
    const [row] = await tx.execute<{ nonce: number }>(sql`
      update hot_wallet_nonces set next_nonce = next_nonce + 1 where network = ${scope} returning next_nonce - 1 as nonce`);
    return Number(row.nonce);
  }
  const start = typeof startAt === "number" ? startAt : await startAt();
  // Two first sends can race past the select above (there was no row to lock); the loser's insert
  // turns into an increment of the winner's row, so they still get consecutive nonces.
  const [row] = await tx.execute<{ nonce: number }>(sql`
    insert into hot_wallet_nonces (network, address, next_nonce) values (${scope}, ${address}, ${start + 1})
    on conflict (network) do update set
      next_nonce = case when hot_wallet_nonces.address = excluded.address then hot_wallet_nonces.next_nonce + 1 else excluded.next_nonce end,
      address = excluded.address
    returning next_nonce - 1 as nonce`);
  return Number(row.nonce);
}
