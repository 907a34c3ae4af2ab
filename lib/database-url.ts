// PostgreSQL connection URLs as libpq and postgres.js read them, including a list of hosts
// (postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write): the driver tries them in turn
// and keeps the first that matches target_session_attrs, so the app follows a promoted server
// without a proxy or a DNS change. WHATWG's URL parser refuses such a host list, so the hosts are
// split off first and the rest is parsed as an ordinary URL.

export type DatabaseUrl = {
  hosts: { host: string; port: number }[];
  database: string;
  user: string;
  params: URLSearchParams;
};

/** Values the driver (postgres.js) accepts. */
export const TARGET_SESSION_ATTRS = ["read-write", "read-only", "primary", "standby", "prefer-standby"] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

const HOST = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/?#@,]+)(?::(\d{1,5}))?$/;

/** The URL's parts, or an error message saying what is wrong (never the password). */
export function parseDatabaseUrl(url: string): DatabaseUrl | { error: string } {
  const scheme = /^(postgres|postgresql):\/\//.exec(url);
  if (!scheme) return { error: "must be a postgres:// or postgresql:// URL" };
  const rest = url.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf("@");
  const userinfo = at === -1 ? "" : authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  const hosts: DatabaseUrl["hosts"] = [];
  // No host (postgres:///db): the driver's default, PGHOST or localhost.
  for (const entry of hostList ? hostList.split(",") : []) {
    const m = HOST.exec(entry);
    if (!m) return { error: `has an invalid host "${entry}"` };
    const port = m[2] === undefined ? 5432 : Number(m[2]);
    if (port < 1 || port > 65535) return { error: `has an invalid port in "${entry}"` };
    hosts.push({ host: m[1], port });
  }
  let parsed: URL;
  try {
    const first = hosts.length > 0 ? `${hosts[0].host}:${hosts[0].port}` : "";
    parsed = new URL(`${scheme[1]}://${userinfo}${first}${authorityEnd === -1 ? "" : rest.slice(authorityEnd)}`);
  } catch {
    return { error: "is not a valid URL" };
  }
  const tsa = parsed.searchParams.get("target_session_attrs");
  if (tsa !== null && !(TARGET_SESSION_ATTRS as readonly string[]).includes(tsa)) {
    return { error: `target_session_attrs=${tsa} is not supported (one of ${TARGET_SESSION_ATTRS.join(", ")})` };
  }
  return {
    hosts,
    database: decodeURIComponent(parsed.pathname.slice(1)),
    user: decodeURIComponent(parsed.username),
    params: parsed.searchParams,
  };
}

/** target_session_attrs as the URL sets it, or null. */
export function targetSessionAttrs(url: string): TargetSessionAttrs | null {
  const parsed = parseDatabaseUrl(url);
  return "error" in parsed ? null : (parsed.params.get("target_session_attrs") as TargetSessionAttrs | null);
}

/** The URL with its password replaced, for logs and messages. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
}
