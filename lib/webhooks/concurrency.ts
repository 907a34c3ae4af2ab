// How many deliveries each endpoint may have in flight in this process. An endpoint that answers
// quickly and successfully while using all its slots gets one more, up to MAX_PER_ENDPOINT; one that
// fails or times out is halved. So a burst to a healthy receiver flows as fast as it answers, and a
// slow or failing receiver keeps only a few slots of the process's total.

export const INITIAL_PER_ENDPOINT = 4;
export const MAX_PER_ENDPOINT = 32;
/** A success slower than this earns no extra slot: the receiver is not keeping up. */
export const FAST_ANSWER_MS = 1000;

export class EndpointConcurrency {
  private readonly limits = new Map<string, number>();

  constructor(
    private readonly initial = INITIAL_PER_ENDPOINT,
    private readonly max = MAX_PER_ENDPOINT,
  ) {}

  limit(endpointId: string): number {
    return this.limits.get(endpointId) ?? this.initial;
  }

  /** The endpoints whose limit differs from the initial one, with that limit. */
  learned(): IterableIterator<[string, number]> {
    return this.limits.entries();
  }

  /** `busy`: the endpoint's deliveries in flight when this one finished, itself included. */
  record(endpointId: string, result: { ok: boolean; durationMs: number; busy: number }): void {
    const current = this.limit(endpointId);
    let next = current;
    if (!result.ok) next = Math.max(1, Math.floor(current / 2));
    else if (result.durationMs < FAST_ANSWER_MS && result.busy >= current) next = Math.min(this.max, current + 1);
    if (next === this.initial) this.limits.delete(endpointId);
    else if (next !== current) this.limits.set(endpointId, next);
  }
}
