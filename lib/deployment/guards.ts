import { eq, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { deploymentMarks } from "@/db/schema";
import { chainId, liveNetworks } from "@/lib/chain/config";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";

// Start-up checks that need the database or a node (the environment's own rules are in lib/env/checks.ts
// and lib/chain/config.ts). Each refusal names what is wrong and how to fix it: docs/configuration.md#what-start-up-refuses.

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
      log.warn("EVM node not reachable at start-up: its chain id was not checked", {
        network,
        err: (err as Error).message,
      });
      continue;
    }
    const wanted = chainId(network);
    if (served !== wanted) {
      const N = network.toUpperCase();
      throw new DeploymentRefused(
        `EVM_RPC_URL_${N} serves chain id ${served}, but ${network} signs for ${wanted}: fix the URL, or EVM_CHAIN_ID_${N} for a test chain`,
      );
    }
  }
}

/** What the server's settings say about commits a failover can lose (docs/operations.md, "Failover"). */
export type Durability = {
  synchronousCommit: string;
  synchronousStandbyNames: string;
  /** A commit is acknowledged only once a synchronous standby (or a quorum of them) has it. */
  waitsForStandby: boolean;
};

/** As this session sees them: synchronous_commit may be set per role or database. */
export async function readDurability(ex: Executor = db()): Promise<Durability> {
  const [commit] = await ex.execute<{ synchronous_commit: string }>(sql`show synchronous_commit`);
  const [names] = await ex.execute<{ synchronous_standby_names: string }>(sql`show synchronous_standby_names`);
  const synchronousCommit = commit.synchronous_commit;
  const synchronousStandbyNames = names.synchronous_standby_names.trim();
  // "local" and "off" never wait for a standby; the others do once standbys are named.
  const waitsForStandby =
    synchronousStandbyNames !== "" && ["on", "remote_write", "remote_apply"].includes(synchronousCommit);
  return { synchronousCommit, synchronousStandbyNames, waitsForStandby };
}

/**
 * Live mode: a commit acknowledged to a client must survive a failover. With asynchronous
 * replication the promoted standby lacks whatever it had not received (measured: 371 orders, 296
 * payments and 334 withdrawals acknowledged in a 15 s lag, and retries then ran their keys again, a
 * double payout with a real provider). Refused rather than warned: a warning in a start-up log is
 * read after the failover. DB_REQUIRE_SYNC_STANDBY=false is for durability that PostgreSQL's
 * settings cannot show (a managed service replicating its storage synchronously); it still warns.
 * synchronous_commit=off is refused either way: the server's own crash loses acknowledged commits.
 */
export async function checkFailoverDurability(
  mode: Mode,
  requireSyncStandby: boolean,
  ex: Executor = db(),
): Promise<Durability> {
  const d = await readDurability(ex);
  if (mode !== "live") return d;
  if (d.synchronousCommit === "off") {
    throw new DeploymentRefused(
      "the database's synchronous_commit is off: a crash of the server alone loses commits already acknowledged; set it to on (e.g. ALTER ROLE … SET synchronous_commit = on)",
    );
  }
  if (!d.waitsForStandby) {
    const what = `commits do not wait for a synchronous standby (synchronous_commit=${d.synchronousCommit}, synchronous_standby_names='${d.synchronousStandbyNames}'): a failover would lose the payments acknowledged within the replication lag`;
    if (requireSyncStandby) {
      throw new DeploymentRefused(
        `${what}. Name synchronous standbys on the primary (e.g. synchronous_standby_names = 'ANY 1 (s1, s2)') with synchronous_commit = on, or set DB_REQUIRE_SYNC_STANDBY=false if the database is made durable otherwise (docs/operations.md, "Failover")`,
      );
    }
    log.warn(`live mode with DB_REQUIRE_SYNC_STANDBY=false: ${what}`, { ...d });
  }
  return d;
}

/**
 * Behind a pooler in transaction mode the app sends no session settings, so statement_timeout and
 * lock_timeout are whatever the role or database sets: without them a stuck statement has no end.
 */
export async function checkPooledDeadlines(
  ex: Executor = db(),
): Promise<{ statementTimeout: string; lockTimeout: string }> {
  const [st] = await ex.execute<{ statement_timeout: string }>(sql`show statement_timeout`);
  const [lt] = await ex.execute<{ lock_timeout: string }>(sql`show lock_timeout`);
  const found = { statementTimeout: st.statement_timeout, lockTimeout: lt.lock_timeout };
  if (found.statementTimeout === "0" || found.lockTimeout === "0") {
    log.warn(
      "DB_POOLER=transaction: the pooler's sessions have no statement_timeout or lock_timeout; set them on the role or database (ALTER ROLE … SET statement_timeout = '30s', lock_timeout = '5s')",
      found,
    );
  }
  return found;
}

/** What `npm start` checks once the database is migrated and before anything is served. */
export async function checkDeployment(): Promise<void> {
  const e = env();
  await claimDatabaseMode(e.PAYMENTS_MODE);
  await checkFailoverDurability(e.PAYMENTS_MODE, e.DB_REQUIRE_SYNC_STANDBY);
  if (e.DB_POOLER === "transaction") await checkPooledDeadlines();
  await checkNodes();
}
