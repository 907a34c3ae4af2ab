import { sql } from "drizzle-orm";
import { db } from "@/db";
import type { Network } from "@/lib/chain/tokens";
import { providers } from "@/lib/providers";
import { chainTxsNeedingAttention, recordedNonces } from "./queries";
import { createChainTx, planSend, sendChainTx } from "./transactions";

// Nonce gaps (never a gap: docs/providers.md#chain-evm). A transaction at nonce n mines only after every nonce below
// it has: one missing nonce stalls every later hot-wallet transaction of the scope. Ours are taken in
// the same database transaction that records them, so a gap means something outside the service: a
// restored database, a hot wallet also used elsewhere. This finds them, and fills them with
// zero-value transfers to the hot wallet itself.

export type NonceReport = {
  network: Network;
  scope: string;
  address: string;
  /** Mined on the node (its latest block's count), null where no node is. */
  minedOnNode: number | null;
  pendingOnNode: number | null;
  /** The next nonce this service will take. */
  nextOurs: number | null;
  /** Nonces from what is mined up to our next one that no recorded transaction of ours uses. */
  gaps: number[];
  needsAttention: { id: string; nonce: number; purpose: string; attention: string }[];
};

export async function nonceReport(network: Network): Promise<NonceReport> {
  const chain = providers().chain;
  const scope = chain.nonceScope(network);
  const address = chain.hotWalletAddress(network);
  const minedOnNode = await chain.minedNonce(network);
  const pendingOnNode = minedOnNode === null ? null : await chain.pendingNonce(network);
  const [row] = await db().execute<{ next_nonce: number; address: string }>(
    sql`select next_nonce, address from hot_wallet_nonces where network = ${scope}`,
  );
  const nextOurs = row?.address === address ? Number(row.next_nonce) : null;
  const gaps: number[] = [];
  if (minedOnNode !== null && nextOurs !== null) {
    const recorded = new Set(await recordedNonces(db(), scope, minedOnNode));
    for (let n = minedOnNode; n < nextOurs; n++) if (!recorded.has(n)) gaps.push(n);
  }
  const needsAttention = (await chainTxsNeedingAttention(db()))
    .filter((t) => t.nonceScope === scope)
    .map((t) => ({ id: t.id, nonce: t.nonce, purpose: t.purpose, attention: t.attention! }));
  return { network, scope, address, minedOnNode, pendingOnNode, nextOurs, gaps, needsAttention };
}

/** Operator: fills every gap of the network's scope with a recorded, followed zero-value transaction. */
export async function fillNonceGaps(network: Network): Promise<{ nonce: number; chainTxId: string; hash: string }[]> {
  const report = await nonceReport(network);
  const filled: { nonce: number; chainTxId: string; hash: string }[] = [];
  if (report.gaps.length === 0) return filled;
  const plan = await planSend(network);
  for (const nonce of report.gaps) {
    const { chainTx, hash } = await db().transaction((tx) => createChainTx(tx, plan, { purpose: "filler", nonce }));
    await sendChainTx(chainTx.id);
    filled.push({ nonce, chainTxId: chainTx.id, hash });
  }
  return filled;
}
