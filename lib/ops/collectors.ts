import type { Gauge } from "prom-client";
import { openPool } from "@/db";
import { env } from "@/lib/env";
import { queueDepths } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { gauge, METRIC_PREFIX } from "@/lib/metrics/registry";
import { deliveryBacklog, type DeliveryBacklog } from "@/lib/webhooks/queries";
import { ATTENTION_KINDS, attentionCounts, type AttentionKind } from "@/lib/attention/attention";
import { openMismatchCounts } from "@/lib/reconciliation/mismatches";
import { RECON_MISMATCH_KINDS, RECON_SOURCES } from "@/db/schema";
import { storedFloat } from "@/lib/treasury/float";
import { latestSolvencyReport } from "@/lib/treasury/solvency";
import { withDeadline } from "./deadline";

// Figures read when /metrics is scraped rather than kept up to date on every change: the pool's
// connections, the job queues and the webhook backlog. Each reading has a deadline and fails alone:
// a collector that cannot read reports nothing (the series goes absent) and the others still answer.

const READ_TIMEOUT_MS = 2000;

// PostgreSQL's names for a backend's state, so every state has a series even at zero.
const CONNECTION_STATES = ["active", "idle", "idle in transaction", "idle in transaction (aborted)"] as const;

async function read<T>(what: string, g: Gauge<string>, work: () => Promise<T>, set: (value: T) => void): Promise<void> {
  g.reset();
  try {
    set(await withDeadline(work(), READ_TIMEOUT_MS, what));
  } catch (err) {
    log.warn("metrics: reading failed; its series are left out of this scrape", { metric: what, err });
  }
}

/** Registers the scrape-time collectors (once: a metric is created by name only the first time). */
export function registerCollectors(): void {
  gauge({
    name: `${METRIC_PREFIX}db_pool_max_connections`,
    help: "Connections this process's database pool may open (DB_POOL_SIZE)",
    collect() {
      this.set(env().DB_POOL_SIZE);
    },
  });

  gauge({
    name: `${METRIC_PREFIX}db_pool_connections`,
    help: "This process's open database connections by state (active: running a query), as pg_stat_activity shows them; the pool plus its LISTEN connection",
    labelNames: ["state"] as const,
    async collect() {
      const pool = openPool();
      await read(
        "db_pool_connections",
        this,
        () => pool.sql<{ state: string; n: number }[]>`
          select state, count(*)::int as n from pg_stat_activity
          where application_name = ${pool.applicationName} and pid <> pg_backend_pid() group by state`,
        (rows) => {
          for (const s of CONNECTION_STATES) this.labels(s).set(0);
          for (const r of rows) if (r.state) this.labels(r.state).set(r.n);
        },
      );
    },
  });

  gauge({
    name: `${METRIC_PREFIX}job_queue_jobs`,
    help: "Jobs per pg-boss queue and state (ready: waiting for a worker; deferred: scheduled later; active: running; failed: retained failures), as pg-boss's monitor last counted them (every 60 s). Shared by every instance; reported by those running jobs",
    labelNames: ["queue", "state"] as const,
    async collect() {
      await read("job_queue_jobs", this, queueDepths, (queues) => {
        for (const q of queues ?? []) {
          this.labels(q.name, "ready").set(q.ready);
          this.labels(q.name, "deferred").set(q.deferred);
          this.labels(q.name, "active").set(q.active);
          this.labels(q.name, "failed").set(q.failed);
        }
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}webhook_backlog_deliveries`,
    help: "Webhook deliveries not yet decided (shared by every instance): due (waiting for a dispatcher) or scheduled (waiting out a retry's backoff, or being sent)",
    labelNames: ["state"] as const,
    async collect() {
      await read("webhook_backlog_deliveries", this, backlogOfThisScrape, (b) => {
        this.labels("due").set(b.due);
        this.labels("scheduled").set(b.scheduled);
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}money_out_attention`,
    help: "Payouts, refunds, hold invoices and hot-wallet transactions waiting for an operator (npm run cli -- attention): an outcome unknown for too long, sends the provider keeps refusing, a settle that keeps failing",
    labelNames: ["kind"] as const,
    async collect() {
      await read(
        "money_out_attention",
        this,
        () => attentionCounts(openPool().db),
        (counts) => {
          for (const kind of Object.keys(ATTENTION_KINDS) as AttentionKind[]) this.labels(kind).set(counts[kind] ?? 0);
        },
      );
    },
  });

  gauge({
    name: `${METRIC_PREFIX}reconciliation_mismatches`,
    help: "Disagreements between a provider's records and ours that no operator has resolved yet (npm run cli -- recon mismatches), by provider source and kind",
    labelNames: ["source", "kind"] as const,
    async collect() {
      await read(
        "reconciliation_mismatches",
        this,
        () => openMismatchCounts(openPool().db),
        (rows) => {
          for (const source of RECON_SOURCES) for (const kind of RECON_MISMATCH_KINDS) this.labels(source, kind).set(0);
          for (const r of rows) this.labels(r.source, r.kind).set(r.n);
        },
      );
    },
  });

  gauge({
    name: `${METRIC_PREFIX}hot_wallet_balance`,
    help: "The hot wallet's balance per network and asset (a token, or gas: the native coin) in whole units, as the last float check read it from the node (HOT_WALLET_FLOAT_<NET>)",
    labelNames: ["network", "asset"] as const,
    async collect() {
      await read("hot_wallet_balance", this, floatOfThisScrape, (rows) => {
        for (const r of rows) this.labels(r.network, r.asset).set(Number(r.balance));
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}hot_wallet_below_minimum`,
    help: "1 while the hot wallet's balance of an asset is below its configured minimum on a network (the operator was mailed at the crossing; sends it cannot pay wait), else 0",
    labelNames: ["network", "asset"] as const,
    async collect() {
      await read("hot_wallet_below_minimum", this, floatOfThisScrape, (rows) => {
        for (const r of rows) this.labels(r.network, r.asset).set(r.belowMinimum ? 1 : 0);
      });
    },
  });

  // The latest stored solvency report: every instance reports the same one, whichever took it.
  gauge({
    name: `${METRIC_PREFIX}solvency_liabilities_brl_centavos`,
    help: "What the latest solvency report found we owe, in BRL centavos: merchants' positive balances, money decided to leave that has not, unapplied funds (npm run cli -- treasury solvency)",
    async collect() {
      await read("solvency_liabilities_brl_centavos", this, solvencyOfThisScrape, (r) => {
        if (r) this.set(r.liabilitiesCentavos);
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}solvency_assets_brl_centavos`,
    help: "What the latest solvency report found we hold, in BRL centavos: the PSP account, hot wallet and deposit addresses, exchange wallet, Lightning (a source not read counts as zero)",
    async collect() {
      await read("solvency_assets_brl_centavos", this, solvencyOfThisScrape, (r) => {
        if (r) this.set(r.assetsCentavos);
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}solvency_shortfall`,
    help: "1 while the latest solvency report has assets short of liabilities by more than the tolerance (SOLVENCY_TOLERANCE_*; the operator was mailed at the crossing), else 0",
    async collect() {
      await read("solvency_shortfall", this, solvencyOfThisScrape, (r) => {
        if (r) this.set(r.short ? 1 : 0);
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}solvency_report_timestamp_seconds`,
    help: "When the latest solvency report was taken (Unix seconds): a report older than two SOLVENCY_REPORT_SECONDS means the job is not running",
    async collect() {
      await read("solvency_report_timestamp_seconds", this, solvencyOfThisScrape, (r) => {
        if (r) this.set(r.takenAt.getTime() / 1000);
      });
    },
  });

  gauge({
    name: `${METRIC_PREFIX}webhook_backlog_oldest_due_seconds`,
    help: "How long the longest-waiting due webhook delivery has been due (0 when none is)",
    async collect() {
      await read("webhook_backlog_oldest_due_seconds", this, backlogOfThisScrape, (b) => this.set(b.oldestDueSeconds));
    },
  });
}

// Both backlog gauges come from one query: a scrape collects every metric at once, so the second
// collector finds the first one's reading still in flight and shares it.
let backlogReading: Promise<DeliveryBacklog> | null = null;
function backlogOfThisScrape(): Promise<DeliveryBacklog> {
  backlogReading ??= deliveryBacklog(openPool().db).finally(() => (backlogReading = null));
  return backlogReading;
}

let floatReading: ReturnType<typeof storedFloat> | null = null;
function floatOfThisScrape(): ReturnType<typeof storedFloat> {
  floatReading ??= storedFloat(openPool().db).finally(() => (floatReading = null));
  return floatReading;
}

let solvencyReading: ReturnType<typeof latestSolvencyReport> | null = null;
function solvencyOfThisScrape(): ReturnType<typeof latestSolvencyReport> {
  solvencyReading ??= latestSolvencyReport(openPool().db).finally(() => (solvencyReading = null));
  return solvencyReading;
}
