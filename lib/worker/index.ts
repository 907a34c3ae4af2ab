import type { PgBoss } from "pg-boss";
import { chainWatchJobs } from "@/lib/chain-watcher/jobs";
import type { TransferReceiver } from "@/lib/chain-watcher/receiver";
import { watchNetwork, type WatchPass } from "@/lib/chain-watcher/watcher";
import { liveNetworks } from "@/lib/chain/config";
import type { Network } from "@/lib/chain/tokens";
import { cryptoPixReceiver } from "@/lib/crypto-pix/chain-receiver";
import { sendDecidedRefunds } from "@/lib/crypto-pix/refunds";
import { deliverQueuedMail } from "@/lib/mail/mailer";
import { releaseWaitingReturns } from "@/lib/onchain/unapplied";
import { releaseWaitingWithdrawals } from "@/lib/withdrawals/release";
import {
  invoiceActionQueue,
  onStreamedHoldInvoice,
  reconcileHoldInvoices,
  runInvoiceActions,
} from "@/lib/crypto-pix/lightning";
import { expireCryptoPixPayments, settleFullyPaidPayments } from "@/lib/crypto-pix/service";
import { env } from "@/lib/env";
import { followBatches } from "@/lib/invoices/batches";
import { expireInvoices } from "@/lib/invoices/service";
import { runSubscriptionEngine } from "@/lib/subscriptions/engine";
import { confirmSubscriptionNotice, subscriptionNoticeQueue } from "@/lib/subscriptions/receiver";
import { purgeExpiredIdempotencyKeys } from "@/lib/http/idempotency";
import { purgeOldRateLimitWindows } from "@/lib/http/rate-limit";
import { isRunning as jobsRunning, jobQueue, startJobs, stopJobs, worker } from "@/lib/jobs/queue";
import { runSweepSteps, untilNone, type SweepStep } from "@/lib/jobs/sweep";
import { log } from "@/lib/log";
import { foldBalances } from "@/lib/ledger/ledger";
import { db } from "@/db";
import { pendingChainTxIds } from "@/lib/hot-wallet/queries";
import { advanceChainTx } from "@/lib/hot-wallet/tracker";
import { chainTxQueue } from "@/lib/hot-wallet/transactions";
import { advancePayout, followLeasedPayouts, payoutQueue } from "@/lib/pix-payouts/machine";
import { openPayoutIds, payoutById } from "@/lib/pix-payouts/queries";
import { depositReceiver } from "@/lib/onchain/chain-receiver";
import { expireDeposits } from "@/lib/onchain/service";
import { expireOrders } from "@/lib/orders/service";
import { confirmNotifiedPix, pixConfirmQueue } from "@/lib/pix-collection/confirm";
import { pixReconcileQueue, reconcileReceivedPix } from "@/lib/pix-collection/reconcile";
import { reconcile, reconcileQueue, RECONCILE_TICK_SECONDS } from "@/lib/reconciliation/daily";
import {
  INFRACTION_SYNC_SECONDS,
  infractionSyncQueue,
  infractionsSupported,
  infractionSyncTick,
} from "@/lib/med/infractions";
import { railEnabled } from "@/lib/providers/rails";
import { purgeSpentAccountRows } from "@/lib/identity/purge";
import { lightningReconcileQueue, reconcileLightning } from "@/lib/lightning/reconcile";
import { startInvoiceStream, stopInvoiceStream } from "@/lib/lightning/stream";
import { followOpenHoldInvoices, stopFollowingHoldInvoices } from "@/lib/crypto-pix/hold-invoice-streams";
import { exchangeReconcileQueue, reconcileExchange } from "@/lib/exchange-wallet/reconcile";
import { advanceRefund, refundQueue } from "@/lib/refunds/machine";
import { heldChainTxs } from "@/lib/hot-wallet/float";
import { checkFloat, floatCheckQueue, floatNetworks, type FloatReading } from "@/lib/treasury/float";
import { solvencyQueue, solvencyTick } from "@/lib/treasury/solvency";
import { AUTO_PAYOUT_TICK_SECONDS, autoPayoutQueue, runAutoPayouts } from "@/lib/recipients/auto-payouts";
import { sweepDepositsQueue, sweepNetworks, sweepTick } from "@/lib/treasury/sweep";
import { checkDepositKey, depositKeySource } from "@/lib/chain/deposit-keys";
import { openRefundIds } from "@/lib/refunds/queries";
import { startWebhookDispatcher, stopWebhookDispatcher, webhookDispatcherRunning } from "@/lib/webhooks/dispatcher";
import { CHAIN_TX_OWNERS, PAYOUT_GUARDS, PAYOUT_OWNERS } from "./owners";

// The composition root of background work: which queues exist and who works them, what the sweep
// does, which objects the deposit watcher feeds. Domains declare their queues and steps; only this
// module puts them together, so no domain imports the job runner's wiring, nor it theirs.

/**
 * Hold invoices (Crypto-PIX over Lightning) live at a node that holds them: LND in live mode, the
 * sandbox's node. Elsewhere there are none to follow, settle or cancel, so nothing is started for them.
 */
function holdsInvoices(): boolean {
  return env().PAYMENTS_MODE === "sandbox" || env().LIGHTNING_BACKEND === "lnd";
}

/** Moves each one forward once, on its own: one that throws is logged and the others go on. */
async function each(ids: string[], step: (id: string) => Promise<boolean>, what: string): Promise<number> {
  let final = 0;
  for (const id of ids) {
    try {
      if (await step(id)) final++;
    } catch (err) {
      log.error(`${what} failed in the sweep; the next sweep tries again`, { id, err });
    }
  }
  return final;
}

// In this order: what expiry decides (a refund) is sent, and what was sent is followed, in one sweep.
const SWEEP_STEPS: SweepStep[] = [
  { name: "orders", run: () => untilNone(() => expireOrders()) },
  { name: "deposits", run: () => untilNone(() => expireDeposits()) },
  { name: "cryptoPix", run: () => untilNone(() => expireCryptoPixPayments()) },
  { name: "invoices", run: () => untilNone(() => expireInvoices()) },
  { name: "invoiceBatches", run: () => followBatches() },
  // Pix Automático: authorisations read back, each cycle's charge sent in its window, outcomes read back.
  { name: "subscriptions", run: () => runSubscriptionEngine() },
  { name: "settled", run: () => settleFullyPaidPayments() },
  {
    name: "payouts",
    run: async () =>
      each(await openPayoutIds(db(), 200), (id) => advancePayout(id, PAYOUT_OWNERS, PAYOUT_GUARDS), "payout"),
  },
  { name: "leasedPayouts", run: () => followLeasedPayouts() },
  { name: "refundsSent", run: async () => (await sendDecidedRefunds()).length },
  // Withdrawals and returns that waited for a new destination whose hold is over (a confirmation releases its own at once).
  { name: "waitingWithdrawals", run: () => releaseWaitingWithdrawals() },
  { name: "waitingReturns", run: () => releaseWaitingReturns() },
  // Mail queued in a transaction that a crash kept from being sent after its commit.
  { name: "queuedMail", run: () => deliverQueuedMail() },
  {
    name: "holdInvoices",
    run: async () => {
      if (!holdsInvoices()) return 0;
      await followOpenHoldInvoices();
      return runInvoiceActions();
    },
  },
  { name: "orderRefunds", run: async () => each(await openRefundIds(db(), 200), advanceRefund, "order refund") },
  {
    name: "chainTxs",
    run: async () =>
      each(await pendingChainTxIds(db(), 200), (id) => advanceChainTx(id, CHAIN_TX_OWNERS), "chain transaction"),
  },
  // Credits wait in unfolded_credits until a debit or this folds them: it keeps balance reads short.
  { name: "balances", run: () => foldBalances() },
  { name: "idempotencyKeys", run: purgeExpiredIdempotencyKeys },
  { name: "rateLimitWindows", run: () => purgeOldRateLimitWindows().then(() => 0) },
  { name: "spentAccountRows", run: purgeSpentAccountRows },
];

const TRANSFER_RECEIVERS: readonly TransferReceiver[] = [depositReceiver, cryptoPixReceiver];

// "stately": at most one sweep queued and one running. ("singleton" only bounds the running one,
// so ticks would queue up without limit behind a sweep slower than EXPIRY_SWEEP_SECONDS.)
const sweepQueue = jobQueue<object>("sweep", { policy: "stately", retryLimit: 0, expireInSeconds: 300 });

/** One sweep, now (tests, the CLI); the job runner runs it on its schedule. */
export function runSweep(): Promise<Record<string, number>> {
  return runSweepSteps(SWEEP_STEPS);
}

/**
 * One hot-wallet float check, now (tests; the job runs it every HOT_WALLET_FLOAT_CHECK_SECONDS): the
 * balances read and stored (a crossing below a minimum mails the operator once), then every held
 * transaction tried again in nonce order, so a top-up releases the withdrawals and refunds that waited.
 */
export async function checkHotWalletFloat(): Promise<{ readings: FloatReading[]; stillHeld: number }> {
  const readings = await checkFloat();
  const held = await heldChainTxs();
  await each(
    held.map((h) => h.id),
    (id) => advanceChainTx(id, CHAIN_TX_OWNERS),
    "held chain transaction",
  );
  return { readings, stillHeld: held.length === 0 ? 0 : (await heldChainTxs()).length };
}

/** One deposit-watcher pass over a network. */
export function watchDeposits(network: Network, opts: { maxRanges?: number } = {}): Promise<WatchPass | null> {
  return watchNetwork(network, TRANSFER_RECEIVERS, opts);
}

/** Starts the job runner and the webhook dispatcher; a second call returns the running queue. */
export async function startWorker(): Promise<PgBoss> {
  const chain = chainWatchJobs(TRANSFER_RECEIVERS);
  // Sandbox PIX has no PSP to read; live PIX is reconciled by reading the PSP's list.
  const pixPolled = env().PAYMENTS_MODE === "live" && railEnabled("pix");
  const lightningPolled = env().PAYMENTS_MODE === "live" && railEnabled("lightning");
  const exchangePolled = env().PAYMENTS_MODE === "live" && railEnabled("exchange");
  const live = env().PAYMENTS_MODE === "live";
  // Live mode works only the rails it has (docs/providers.md): no PSP reads without PIX collection,
  // no hot-wallet transactions without a node, no hold invoices without LND. Sandbox has them all.
  const pixConfirmed = railEnabled("pix");
  const hotWallet = env().PAYMENTS_MODE === "sandbox" || liveNetworks().length > 0;
  const holdInvoices = holdsInvoices();
  const floatWatched = floatNetworks().length > 0;
  // Only the worker given the deposit private key sweeps; one given a key that is not DEPOSIT_XPUB's
  // refuses to start rather than sign for addresses that are not ours.
  if (env().DEPOSIT_XPRV_FILE) checkDepositKey();
  const sweeping = env().DEPOSIT_XPRV_FILE !== undefined && depositKeySource() !== null && sweepNetworks().length > 0;
  // MED infractions where the payout PSP lists them (Efí): the merchant defends them from the dashboard.
  const infractionsSynced = live && railEnabled("pix_out") && infractionsSupported();
  const payoutsSent = railEnabled("pix_out");
  const boss = await startJobs({
    workers: [
      worker(sweepQueue, { pollingIntervalSeconds: 1 }, async () => {
        const counts = await runSweep();
        if (Object.values(counts).some((n) => n > 0)) log.info("sweep", counts);
      }),
      // Not final yet (awaiting confirmations, a provider still processing): throwing hands the job
      // back for a retry with backoff; the sweep also moves every open one forward. Payouts are
      // worked by several batches at once: one batch at a time, due jobs waited for the slowest
      // of the batch before them (pix-outs completed 38-66 s after their request under load).
      worker(payoutQueue, { pollingIntervalSeconds: 0.5, batchSize: 10, concurrency: 4 }, async ({ id }) => {
        if (!(await advancePayout(id, PAYOUT_OWNERS, PAYOUT_GUARDS))) throw new Error(`payout ${id} not final yet`);
        // A Crypto-PIX payout not made decided a refund: send it now rather than at the next sweep.
        const payout = await payoutById(db(), id);
        if (payout?.purpose === "crypto_pix") {
          await sendDecidedRefunds(payout.ownerId);
          // Over Lightning: the hold invoice is settled (PIX made) or cancelled (not made) now.
          if (holdInvoices) await runInvoiceActions();
        }
      }),
      worker(refundQueue, { pollingIntervalSeconds: 1, batchSize: 20 }, async ({ id }) => {
        if (!(await advanceRefund(id))) throw new Error(`order refund ${id} not final yet`);
      }),
      ...(hotWallet
        ? [
            worker(chainTxQueue, { pollingIntervalSeconds: 1, batchSize: 5 }, async ({ id }) => {
              if (!(await advanceChainTx(id, CHAIN_TX_OWNERS)))
                throw new Error(`chain transaction ${id} not decided yet`);
            }),
          ]
        : []),
      // A notified PIX is read back from the PSP; a read that fails is retried with backoff.
      ...(pixConfirmed
        ? [
            worker(pixConfirmQueue, { pollingIntervalSeconds: 0.5, batchSize: 10 }, async ({ endToEndId, returns }) => {
              await confirmNotifiedPix(endToEndId, { returns });
            }),
          ]
        : []),
      // A Pix Automático notice: the recurrence or charge it names is read back from the PSP.
      ...(pixConfirmed
        ? [
            worker(subscriptionNoticeQueue, { pollingIntervalSeconds: 0.5, batchSize: 10 }, async (notice) => {
              await confirmSubscriptionNotice(notice);
            }),
          ]
        : []),
      ...(pixPolled
        ? [worker(pixReconcileQueue, { pollingIntervalSeconds: 1 }, async () => void (await reconcileReceivedPix()))]
        : []),
      ...(holdInvoices
        ? [worker(invoiceActionQueue, { pollingIntervalSeconds: 1 }, async () => void (await runInvoiceActions()))]
        : []),
      ...(lightningPolled
        ? [
            worker(lightningReconcileQueue, { pollingIntervalSeconds: 1 }, async () => {
              await reconcileLightning();
              await reconcileHoldInvoices();
            }),
          ]
        : []),
      ...(exchangePolled
        ? [worker(exchangeReconcileQueue, { pollingIntervalSeconds: 1 }, async () => void (await reconcileExchange()))]
        : []),
      // Yesterday against every provider's own records (lib/reconciliation); a no-op once done.
      ...(live ? [worker(reconcileQueue, { pollingIntervalSeconds: 5 }, async () => void (await reconcile()))] : []),
      ...(floatWatched
        ? [worker(floatCheckQueue, { pollingIntervalSeconds: 1 }, async () => void (await checkHotWalletFloat()))]
        : []),
      ...(infractionsSynced
        ? [worker(infractionSyncQueue, { pollingIntervalSeconds: 5 }, async () => void (await infractionSyncTick()))]
        : []),
      ...(sweeping
        ? [
            // Every SWEEP_INTERVAL_SECONDS (the minute's tick in between only finishes decided sweeps).
            worker(sweepDepositsQueue, { pollingIntervalSeconds: 5 }, async () => {
              const run = await sweepTick();
              const swept = run?.items.filter((i) => i.action === "sweep").length ?? 0;
              if (run && (swept > 0 || run.finished.length > 0))
                log.info("deposit sweep", { swept, finished: run.finished.length });
            }),
          ]
        : []),
      // Hourly (SOLVENCY_REPORT_SECONDS): the minute's tick does nothing until the last report is that old.
      worker(solvencyQueue, { pollingIntervalSeconds: 5 }, async () => void (await solvencyTick())),
      // Recipients' automatic payouts (lib/recipients/auto-payouts.ts): each due slot paid once.
      ...(payoutsSent
        ? [
            worker(autoPayoutQueue, { pollingIntervalSeconds: 5 }, async () => {
              const run = await runAutoPayouts();
              if (run.paid > 0) log.info("automatic recipient payouts", run);
            }),
          ]
        : []),
      ...chain.workers,
    ],
    recurring: [
      { queue: sweepQueue, tickSeconds: env().EXPIRY_SWEEP_SECONDS },
      ...(pixPolled ? [{ queue: pixReconcileQueue, tickSeconds: env().PIX_POLL_SECONDS }] : []),
      ...(lightningPolled ? [{ queue: lightningReconcileQueue, tickSeconds: env().PROVIDER_POLL_SECONDS }] : []),
      ...(exchangePolled ? [{ queue: exchangeReconcileQueue, tickSeconds: env().PROVIDER_POLL_SECONDS }] : []),
      ...(live ? [{ queue: reconcileQueue, tickSeconds: RECONCILE_TICK_SECONDS }] : []),
      ...(floatWatched ? [{ queue: floatCheckQueue, tickSeconds: env().HOT_WALLET_FLOAT_CHECK_SECONDS }] : []),
      ...(infractionsSynced ? [{ queue: infractionSyncQueue, tickSeconds: INFRACTION_SYNC_SECONDS }] : []),
      ...(sweeping ? [{ queue: sweepDepositsQueue, tickSeconds: env().SWEEP_INTERVAL_SECONDS }] : []),
      { queue: solvencyQueue, tickSeconds: env().SOLVENCY_REPORT_SECONDS },
      ...(payoutsSent ? [{ queue: autoPayoutQueue, tickSeconds: AUTO_PAYOUT_TICK_SECONDS }] : []),
      ...chain.recurring,
    ],
  });
  await startWebhookDispatcher();
  // A node that streams its invoices (LND) is followed live; the poll above is its backstop.
  if (lightningPolled) startInvoiceStream([onStreamedHoldInvoice]);
  return boss;
}

/** Whether this process's job runner and webhook dispatcher are running (readiness, lib/ops). */
export function workerRunning(): boolean {
  return jobsRunning() && webhookDispatcherRunning();
}

/**
 * Stops taking new work and lets what runs finish: the invoice stream first (it only feeds work), then
 * the dispatcher (attempts in flight end within WEBHOOK_TIMEOUT_MS) and the job runner (running jobs
 * get `timeoutMs`) together.
 */
export async function stopWorker(timeoutMs?: number): Promise<void> {
  await stopInvoiceStream();
  stopFollowingHoldInvoices();
  await Promise.all([stopWebhookDispatcher(), stopJobs(timeoutMs)]);
}
