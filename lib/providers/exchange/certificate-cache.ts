// The public keys a provider signs its notifications with, by serial, as its certificates endpoint
// lists them (Binance Pay: POST /binancepay/openapi/certificates). The receiver is unauthenticated, so
// the serial in a notification's header is whatever its sender chose: asking the provider again for
// every serial we do not know let anyone make us call it once per forged post. Instead:
//   - a serial the list has is answered from memory;
//   - the list is fetched by one caller at a time (the others wait for that fetch), and for a serial
//     we do not know at most once per `refetchAfterMs`; a serial first seen sooner is refused unasked;
//   - a serial the list did not have is refused unasked for `unknownTtlMs` (at most `maxUnknown` kept);
//   - a fetch that fails is not repeated sooner either: meanwhile unknown serials cannot be checked,
//     which the caller answers with "retry" (CertificatesUnavailable), not with a refusal.
// A real rotation is therefore seen at most `refetchAfterMs` after the provider starts using the new
// serial, or `unknownTtlMs` if someone sent that very serial before the provider listed it.

export type Certificate = { serial: string; publicKey: string };

/** The list could not be read (the provider is down): whether a serial is genuine is not known yet. */
export class CertificatesUnavailable extends Error {}

export type CertificateCacheOptions = {
  /** Reads the provider's current list; throws when it cannot. */
  fetch: () => Promise<Certificate[]>;
  refetchAfterMs?: number;
  unknownTtlMs?: number;
  maxUnknown?: number;
  /** A monotonic clock in ms (tests move it). */
  now?: () => number;
};

export class CertificateCache {
  /** Least time between two fetches caused by unknown serials. */
  readonly refetchAfterMs: number;
  readonly unknownTtlMs: number;
  private readonly maxUnknown: number;
  private readonly fetchList: () => Promise<Certificate[]>;
  now: () => number;
  private keys = new Map<string, string>();
  /** Serials a fetch did not list, with when that fetch began. */
  private readonly unknown = new Map<string, number>();
  private inflight: Promise<void> | null = null;
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private lastFetchFailed = false;

  constructor(opts: CertificateCacheOptions) {
    this.fetchList = opts.fetch;
    this.refetchAfterMs = opts.refetchAfterMs ?? 30_000;
    this.unknownTtlMs = opts.unknownTtlMs ?? 5 * 60_000;
    this.maxUnknown = opts.maxUnknown ?? 10_000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** The public key listed for `serial`; null when the provider does not list it (or was asked too recently to ask again). */
  async publicKey(serial: string): Promise<string | null> {
    const known = this.keys.get(serial);
    if (known !== undefined) return known;
    if (this.inflight) return this.afterFetch(serial, this.inflight);
    const now = this.now();
    const checked = this.unknown.get(serial);
    if (checked !== undefined && now - checked < this.unknownTtlMs) return null;
    if (now - this.lastFetchAt < this.refetchAfterMs) {
      if (this.lastFetchFailed)
        throw new CertificatesUnavailable("the provider's certificates could not be read; not asked again yet");
      return null;
    }
    return this.afterFetch(serial, this.refresh(now));
  }

  private async afterFetch(serial: string, fetching: Promise<void>): Promise<string | null> {
    await fetching;
    const key = this.keys.get(serial);
    if (key !== undefined) return key;
    if (this.lastFetchFailed) throw new CertificatesUnavailable("the provider's certificates could not be read");
    this.rememberUnknown(serial, this.lastFetchAt);
    return null;
  }

  /** One fetch, shared by every caller that arrives while it runs; never rejects (the outcome is in lastFetchFailed). */
  private refresh(now: number): Promise<void> {
    this.lastFetchAt = now;
    const run = this.fetchList().then(
      (list) => {
        // The provider's list is the truth: a key it no longer lists is no longer trusted.
        this.keys = new Map(list.map((c) => [c.serial, c.publicKey]));
        for (const c of list) this.unknown.delete(c.serial);
        this.lastFetchFailed = false;
      },
      () => {
        this.lastFetchFailed = true;
      },
    );
    this.inflight = run.finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private rememberUnknown(serial: string, at: number): void {
    this.unknown.delete(serial);
    if (this.unknown.size >= this.maxUnknown) this.unknown.delete(this.unknown.keys().next().value!);
    this.unknown.set(serial, at);
  }
}
