import { getPool } from "@/db";
import { listen } from "@/db/notifications";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import { claimDue, msUntilNextDue } from "./claims";
import { EndpointConcurrency } from "./concurrency";
import { deliverClaimed, type ClaimedDelivery } from "./deliver";
import { DISPATCH_CHANNEL } from "./fanout";
import { observeAttempt } from "./metrics";
import { sealPlainSecrets } from "./secrets";

// The dispatcher: claims due deliveries (./claims.ts) and sends them, in every jobs-enabled process.
//
// Why a loop over the deliveries table rather than a pg-boss queue: the table already is a durable
// Postgres queue (one row per delivery, its schedule in next_attempt_at), and what pg-boss would add
// costs latency. Its workers poll no faster than every 0.5 s, and a job cannot be enqueued from inside
// recordEvent's transaction (it would exist before, or without, the commit). Instead the fan-out
// issues pg_notify in the event's own transaction (delivered at commit, never for a rollback) and each
// dispatcher LISTENs: a delivery is claimed milliseconds after the commit. Each finished attempt wakes
// the loop too, so a backlog drains as fast as the receivers answer (./concurrency.ts). A claim that
// finds nothing reads when the next pending delivery falls due (a retry, the lease of a dispatcher that
// died) and the loop sleeps until then, at most 30 s; a re-LISTEN after a lost connection claims at
// once (notifications may have been missed). (A 250 ms poll was four claims a second on an idle
// instance.)

const MAX_IN_FLIGHT = 64;
const SAFETY_POLL_MS = 30_000;
/** After an unexpected error (database restarting…), wait before claiming again. */
const ERROR_BACKOFF_MS = 1000;

class Dispatcher {
  private running = true;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly concurrency = new EndpointConcurrency();
  /** Set when work may be waiting (a notification, a freed slot) so the loop skips its sleep. */
  private poked = false;
  private wake: (() => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private loop: Promise<void> = Promise.resolve();

  async start(): Promise<void> {
    try {
      const sub = await listen(getPool(), DISPATCH_CHANNEL, {
        notify: () => this.poke(),
        // Also called after a reconnect: notifications may have been missed meanwhile.
        listening: () => this.poke(),
      });
      this.unlisten = sub.unlisten;
    } catch (err) {
      log.warn("webhook dispatcher could not LISTEN; polling only", { err });
    }
    this.loop = this.run();
  }

  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.poked) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.poked = false;
      const free = MAX_IN_FLIGHT - this.inFlight.size;
      let sleepMs = SAFETY_POLL_MS;
      try {
        const claimed = await claimDue(free, this.freeSlots());
        for (const c of claimed) this.launch(c);
        // Nothing due: sleep until something is (a finished attempt or a NOTIFY wakes the loop sooner).
        // A due row not claimed (held back behind an earlier event in flight) waits for that attempt's end.
        if (claimed.length === 0 && !this.poked) {
          const ms = await msUntilNextDue();
          if (ms !== null) sleepMs = ms > 0 ? ms + 10 : this.inFlight.size > 0 ? SAFETY_POLL_MS : ERROR_BACKOFF_MS;
        }
      } catch (err) {
        if (!this.running) break;
        log.error("webhook claim failed", { err });
        // Claimed again after the backoff, not after the long sleep: what failed may be due now.
        await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
        continue;
      }
      if (!this.running) break;
      await this.sleep(Math.min(sleepMs, SAFETY_POLL_MS));
    }
  }

  /**
   * The slots each endpoint may still fill: its learned limit (kept between bursts) less what it has in
   * flight; an endpoint in neither map gets the initial limit.
   */
  private freeSlots(): Map<string, number> {
    const free = new Map(this.concurrency.learned());
    for (const [id, busy] of this.perEndpoint) free.set(id, this.concurrency.limit(id) - busy);
    return free;
  }

  private launch(c: ClaimedDelivery): void {
    this.perEndpoint.set(c.endpointId, (this.perEndpoint.get(c.endpointId) ?? 0) + 1);
    const startedAt = performance.now();
    const task = deliverClaimed(c)
      .then((outcome) => {
        const durationMs = performance.now() - startedAt;
        this.concurrency.record(c.endpointId, {
          ok: outcome === "succeeded",
          durationMs,
          busy: this.perEndpoint.get(c.endpointId) ?? 1,
        });
        observeAttempt(outcome, durationMs / 1000, c.event, c.redelivery);
        log.debug("webhook attempt", { deliveryId: c.id, eventId: c.event.id, attempt: c.attempts + 1, outcome });
      })
      .catch((err: unknown) => log.error("webhook delivery failed; retried after its lease", { deliveryId: c.id, err }))
      .finally(() => {
        this.inFlight.delete(task);
        const n = (this.perEndpoint.get(c.endpointId) ?? 1) - 1;
        if (n > 0) this.perEndpoint.set(c.endpointId, n);
        else this.perEndpoint.delete(c.endpointId);
        // A slot is free, and the next event of this subject may now go.
        this.poke();
      });
    this.inFlight.add(task);
  }

  /** Stops claiming, then waits for the attempts in flight (each bounded by WEBHOOK_TIMEOUT_MS). */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loop;
    await this.unlisten?.().catch(() => {});
    await Promise.allSettled([...this.inFlight]);
  }
}

// One per process, like the job runner: the server's own copy of lib/ starts it.
const running = processSlot<Dispatcher>("webhook-dispatcher");

export async function startWebhookDispatcher(): Promise<void> {
  if (running.value) return;
  const d = new Dispatcher();
  running.value = d;
  // Secrets stored before they were sealed are sealed once, here; a failure leaves them to be sealed
  // when a delivery first reads them (deliver.ts), and never keeps deliveries from starting.
  await sealPlainSecrets().catch((err: unknown) =>
    log.warn("webhook secrets not sealed at start-up; each is sealed on its next delivery", { err }),
  );
  await d.start();
}

export function webhookDispatcherRunning(): boolean {
  return running.value !== undefined;
}

export async function stopWebhookDispatcher(): Promise<void> {
  const d = running.value;
  running.value = undefined;
  if (d) await d.stop();
}
