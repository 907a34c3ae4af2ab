import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

// Who is calling, for per-address rate limits (docs/api.md#rate-limits). The address is the socket's: a client
// chooses its own X-Forwarded-For, so those entries count only when TRUST_PROXY_HOPS says how many
// proxies in front of us append to it. The server (scripts/start.ts) decides once per request and
// hands the answer to every handler, on the fast path and through Next alike, in an internal header
// whose client-sent copy it deletes first; handlers only ever read that header.

export const CLIENT_ADDRESS_HEADER = "x-payments-client-address";
/** What handlers see when no server stamped the request (tests that do not set the header). */
export const UNKNOWN_ADDRESS = "unknown";

/**
 * The client as the last `hops` trusted proxies report it, counted from the right of
 * X-Forwarded-For, as Express's `trust proxy = N` does: hops 0 is the socket; hops 1 the entry the
 * proxy next to us appended; a list shorter than `hops` gives its left-most entry. An entry that is
 * not an IP address (a trusted proxy never writes one) falls back to the socket.
 */
export function resolveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  hops: number,
): string {
  const socket = normalize(socketAddress ?? "") ?? UNKNOWN_ADDRESS;
  if (hops === 0 || !forwardedFor) return socket;
  const entries = forwardedFor.split(",");
  const entry = entries[Math.max(0, entries.length - hops)];
  return normalize(entry) ?? socket;
}

/**
 * Called by the server for every request before anyone else reads it: sets the internal header
 * (in `headers`, which Next reads, and in `rawHeaders`, which the fast path reads) after removing
 * whatever the client sent under that name.
 */
export function stampClientAddress(req: IncomingMessage, hops: number): string {
  const forwarded = req.headers["x-forwarded-for"];
  const address = resolveClientAddress(
    req.socket.remoteAddress,
    Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
    hops,
  );
  if (req.headers[CLIENT_ADDRESS_HEADER] !== undefined) {
    const raw = req.rawHeaders;
    for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i].toLowerCase() === CLIENT_ADDRESS_HEADER) raw.splice(i, 2);
  }
  req.headers[CLIENT_ADDRESS_HEADER] = address;
  req.rawHeaders.push(CLIENT_ADDRESS_HEADER, address);
  return address;
}

/** The address the server stamped on this request. */
export function clientAddress(headers: { get(name: string): string | null }): string {
  return headers.get(CLIENT_ADDRESS_HEADER) || UNKNOWN_ADDRESS;
}

/**
 * The rate-limit bucket of an address. IPv6 counts per /64: that is what one subscriber is usually
 * given, and a client holding a /64 could otherwise take a fresh bucket per request.
 */
export function addressBucket(address: string): string {
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(":")}::/64`;
}

/** A bare IP address (IPv4-mapped IPv6 as IPv4, ports and brackets removed), or null. */
function normalize(value: string): string | null {
  let v = value.trim();
  if (v.startsWith("[")) v = v.slice(1, v.indexOf("]") === -1 ? undefined : v.indexOf("]"));
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(":"));
  const zone = v.indexOf("%");
  if (zone !== -1) v = v.slice(0, zone);
  const kind = isIP(v);
  if (kind === 0) return null;
  if (kind === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(v);
    if (mapped) return mapped[1];
    return v.toLowerCase();
  }
  return v;
}

/** Eight lower-case hextets, without leading zeros; the input is a valid IPv6 address. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4 not mapped to IPv4, ::1.2.3.4) is two hextets.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    text = text.slice(0, quad.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((h) => parseInt(h, 16).toString(16));
}
