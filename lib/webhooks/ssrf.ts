import dns from "node:dns";
import net from "node:net";

// SSRF guard for webhook URLs. A merchant chooses where we POST, so without this a URL could make the
// service call its own database, a cloud metadata endpoint or anything else on our private network.
// The address is checked twice: when the URL is registered (a clear 400), and again when we connect,
// because DNS can change between the two. At connection time the check runs inside the socket's
// `lookup`, so the address we checked is the address we connect to.
//
// The classification below is pure (strings in, a class out) so every range has a unit test.

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "unique-local"
  | "unspecified"
  | "multicast"
  | "metadata"
  | "reserved"
  | "invalid";

/** IPv4 ranges as [first octets' value, prefix length, class], checked in order (most specific first). */
const V4_RANGES: [string, number, AddressClass][] = [
  ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack…
  ["0.0.0.0", 8, "unspecified"], // "this network"; 0.0.0.0 reaches localhost on Linux
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"], // also Alibaba's metadata 100.100.100.200
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // documentation
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // documentation
  ["203.0.113.0", 24, "reserved"], // documentation
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"], // future use, and 255.255.255.255 broadcast
];

function v4ToInt(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

function inV4Range(n: number, base: string, prefix: number): boolean {
  const b = v4ToInt(base)!;
  const size = 2 ** (32 - prefix);
  return Math.floor(n / size) === Math.floor(b / size);
}

export function classifyIPv4(ip: string): AddressClass {
  const n = v4ToInt(ip);
  if (n === null) return "invalid";
  for (const [base, prefix, cls] of V4_RANGES) if (inV4Range(n, base, prefix)) return cls;
  return "public";
}

/** Parses an IPv6 address (compressed, with an optional dotted IPv4 tail or zone id) into 8 groups. */
export function parseIPv6(input: string): number[] | null {
  let ip = input.replace(/^\[|\]$/g, "");
  const zone = ip.indexOf("%");
  if (zone >= 0) ip = ip.slice(0, zone);
  // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two groups.
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (tail) {
    const n = v4ToInt(tail[2]);
    if (n === null) return null;
    ip = `${tail[1]}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = ip.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":"));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const out: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    out.push(parseInt(g, 16));
  }
  return out;
}

const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

export function classifyIPv6(ip: string): AddressClass {
  const g = parseIPv6(ip);
  if (!g) return "invalid";
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // Forms that carry an IPv4 address and reach it: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
  // (::a.b.c.d, deprecated), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::). They are judged
  // by the IPv4 address inside.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIPv4(v4FromGroups(g[6], g[7]));
  if (zeroUpTo(6)) return classifyIPv4(v4FromGroups(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return classifyIPv4(v4FromGroups(g[6], g[7]));
  if (g[0] === 0x2002) return classifyIPv4(v4FromGroups(g[1], g[2]));
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return "metadata"; // AWS IMDS over IPv6
  if ((g[0] & 0xfe00) === 0xfc00) return "unique-local"; // fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if ((g[0] & 0xffc0) === 0xfec0) return "private"; // fec0::/10, deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return "multicast"; // ff00::/8
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "reserved"; // local-use NAT64 64:ff9b:1::/48
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved"; // documentation
  if (g[0] === 0x2001 && g[1] === 0) return "reserved"; // Teredo: tunnels to an IPv4 address we cannot see
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "reserved"; // discard-only 100::/64
  if (zeroUpTo(1)) return "reserved"; // the rest of ::/16 is unassigned
  return "public";
}

/** The class of any IP address string (IPv4, IPv6, bracketed IPv6). */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[|\]$/g, "");
  if (net.isIPv4(bare)) return classifyIPv4(bare);
  if (bare.includes(":")) return classifyIPv6(bare);
  return "invalid";
}

/** Thrown (or passed to a socket's lookup callback) when a webhook target is not a public address. */
export class ForbiddenAddressError extends Error {
  readonly code = "EWEBHOOKFORBIDDEN";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    const kind = `${/^([aeio]|unsp)/.test(addressClass) ? "an" : "a"} ${addressClass} address`;
    super(
      host === address
        ? `${address} is ${kind}; webhooks must reach a public address`
        : `${host} resolves to ${address}, ${kind}; webhooks must reach a public address`,
    );
  }
}

/** The first non-public address among `addresses`, as an error; null when all are public. */
export function refuseNonPublic(host: string, addresses: string[]): ForbiddenAddressError | null {
  for (const a of addresses) {
    const cls = classifyAddress(a);
    if (cls !== "public") return new ForbiddenAddressError(host, a, cls);
  }
  return null;
}

/**
 * A `lookup` for net/http/https that resolves as usual and refuses the connection when any address
 * is not public. Refusing on any (rather than connecting to the public ones) keeps registration and
 * delivery consistent: a name that also points inside our network is not a webhook target.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      if (!allowPrivate) {
        const refused = refuseNonPublic(
          hostname,
          addresses.map((a) => a.address),
        );
        if (refused) return callback(refused, "", 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

/** Every address a host name resolves to (an IP literal resolves to itself). */
export async function resolveHost(hostname: string, timeoutMs = 5000): Promise<string[]> {
  const bare = hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(bare)) return [bare];
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      dns.promises.lookup(bare, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error(`DNS lookup of ${bare} timed out`), { code: "ETIMEOUT" })),
          timeoutMs,
        );
      }),
    ]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}
