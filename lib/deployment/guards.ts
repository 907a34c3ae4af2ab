import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { deploymentMarks } from "@/db/schema";
import { chainId, liveNetworks } from "@/lib/chain/config";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";

// Start-up checks that need the database or a node (the environment's own rules are in lib/env.ts
// and lib/chain/config.ts). Each refusal names what is wrong and how to fix it: CONTRACT §10.

export class DeploymentRefused extends Error {}

type Mode = "sandbox" | "live";
const MARK: Record<Mode, string> = { sandbox: "sandbox_used", live: "live_used" };

/**
 * Records which mode writes to this database and refuses to mix them: sandbox rows (test keys, fake
 * balances, orders paid by helpers) must never sit beside real money, in either direction. The mark
 * is taken under a lock, so two processes starting together in different modes cannot both pass.
 */
export async function claimDatabaseMode(mode: Mode): Promise<void> {
  const other: Mode = mode === "live" ? "sandbox" : "live";
  await db().transaction(async (tx) => {
    await tx.execute(sql`lock table ${deploymentMarks} in share row exclusive mode`);
    const [found] = await tx.select().from(deploymentMarks).where(eq(deploymentMarks.name, MARK[other]));
    if (found) {
      throw new DeploymentRefused(
        `this database was written by ${other} mode (${found.value}, ${found.createdAt.toISOString()}); ${mode} mode needs a database of its own: point DATABASE_URL at another one`,
      );
    }
    await tx
      .insert(deploymentMarks)
      .values({ name: MARK[mode], value: `first started in ${mode} mode` })
      .onConflictDoNothing();
  });
}

/**
 * Every network routed to a node must be the chain we sign for: a polygon URL pointing at an
 * Ethereum node would watch the wrong chain and have every withdrawal refused. A node that does
 * not answer is only a warning (a node restarting must not keep the API down); it is checked again
 * at the next start.
 */
export async function checkNodes(): Promise<void> {
  const chain = providers().chain;
  for (const network of liveNetworks()) {
    const reader = chain.reader(network);
    if (!reader) continue;
    let served: number;
    try {
      served = await reader.chainId();
    } catch (err) {
      log.warn("EVM node not reachable at start-up: its chain id was not checked", { network, err: (err as Error).message });
      continue;
    }
    const wanted = chainId(network);
    if (served !== wanted) {
      const N = network.toUpperCase();
      throw new DeploymentRefused(`EVM_RPC_URL_${N} serves chain id ${served}, but ${network} signs for ${wanted}: fix the URL, or EVM_CHAIN_ID_${N} for a test chain`);
    }
  }
}

/** What `npm start` checks once the database is migrated and before anything is served. */
export async function checkDeployment(): Promise<void> {
  await claimDatabaseMode(env().PAYMENTS_MODE);
  await checkNodes();
}
