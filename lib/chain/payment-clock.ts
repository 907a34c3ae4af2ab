import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { liveNetworks } from "./config";

// Expiry is judged by payment time (docs/api.md#states-expiry-and-money): a chain transfer's payment time is its block's
// timestamp. On a network with a node, an order may close at its expiry only once the watcher has
// applied every block up to a time past it (chain_cursors.block_time), so money mined in time but
// confirmed late still counts. Elsewhere (the sandbox's simulated transfers) the clock is now().

/** SQL for the time up to which every payment on the row's network is known. */
export function paymentsKnownUntil(network: SQLWrapper): SQL {
  const nodes = liveNetworks();
  if (nodes.length === 0) return sql`now()`;
  return sql`(case when ${network} in (${sql.join(
    nodes.map((n) => sql`${n}`),
    sql`, `,
  )}) then (select c.block_time from chain_cursors c where c.network = ${network}) else now() end)`;
}
