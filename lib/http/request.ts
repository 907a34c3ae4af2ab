// What an /api/v1 handler reads of a request. A Web Request is one (Next and the tests pass those);
// the fast path builds a plain one straight from node:http, because constructing a Request (URL
// parsing, header validation, its AbortSignal) cost ~8% of an API request's CPU under load.

export type ApiRequest = {
  readonly method: string;
  /** Absolute URL, as Request.url. */
  readonly url: string;
  readonly headers: Pick<Headers, "get" | "has">;
  /** Absent on the fast path, whose body bytes travel beside the request (body-cache.ts). */
  readonly body?: ReadableStream<Uint8Array> | null;
};

/** The URL's path, without the cost of a URL object for the usual absolute http(s) URL. */
export function pathOf(url: string): string {
  const match = /^https?:\/\/[^/?#]*(\/[^?#]*)?/i.exec(url);
  return match ? match[1] || "/" : new URL(url).pathname;
}

/** Headers as Headers.get answers them (names case-insensitive, repeated headers joined by ", "), read-only. */
export class PlainHeaders implements Pick<Headers, "get" | "has"> {
  private readonly values = new Map<string, string>();

  /** From node's rawHeaders: [name, value, name, value, …]. */
  constructor(raw: readonly string[], extra?: Record<string, string>) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const value = raw[i + 1].trim();
      const before = this.values.get(name);
      this.values.set(name, before === undefined ? value : `${before}, ${value}`);
    }
    if (extra) for (const [name, value] of Object.entries(extra)) this.values.set(name.toLowerCase(), value);
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }
}
