import type { z } from "zod";
import { parseDatabaseUrl } from "@/lib/database-url";
import { envFields } from "./fields";
import { SANDBOX_PIX_RECEIVER_KEY, WRITABLE_TARGETS } from "./values";

// What no single variable can say: settings that contradict each other, or a rail half configured.

type EnvFields = z.infer<typeof envFields>;

export const envSchema = envFields.superRefine((env, ctx) => {
  if (env.METRICS_TOKEN && env.METRICS_TOKEN_FILE) {
    ctx.addIssue({
      code: "custom",
      path: ["METRICS_TOKEN_FILE"],
      message: "set either METRICS_TOKEN or METRICS_TOKEN_FILE, not both",
    });
  }
  if (env.HOT_WALLET_PRIVATE_KEY && env.HOT_WALLET_KEY_FILE) {
    ctx.addIssue({
      code: "custom",
      path: ["HOT_WALLET_KEY_FILE"],
      message: "set either HOT_WALLET_PRIVATE_KEY or HOT_WALLET_KEY_FILE, not both",
    });
  }
  pixProblems(env).forEach((p) => ctx.addIssue({ code: "custom", path: [p.variable], message: p.message }));
  // Otherwise every held payment would be cancelled as soon as it arrives.
  if (env.LND_HOLD_MIN_BLOCKS_LEFT >= env.LND_HOLD_CLTV_EXPIRY) {
    ctx.addIssue({
      code: "custom",
      path: ["LND_HOLD_MIN_BLOCKS_LEFT"],
      message: "must be below LND_HOLD_CLTV_EXPIRY: a payer's HTLC may leave only that many blocks",
    });
  }
  databaseProblems(env).forEach((p) => ctx.addIssue({ code: "custom", path: [p.variable], message: p.message }));
  if (env.PAYMENTS_MODE === "live") {
    if (!env.AUTH_SECRET) ctx.addIssue({ code: "custom", path: ["AUTH_SECRET"], message: "is required in live mode" });
    // The embedded PostgreSQL lives in a local folder: no backups, no replica, gone with the disk.
    if (!env.DATABASE_URL)
      ctx.addIssue({
        code: "custom",
        path: ["DATABASE_URL"],
        message: "is required in live mode (the embedded PostgreSQL is for sandbox only)",
      });
    // Payment links, checkout pages and provider callbacks are built from it; payers and PSPs must reach it over TLS.
    if (!env.PUBLIC_BASE_URL?.startsWith("https://"))
      ctx.addIssue({
        code: "custom",
        path: ["PUBLIC_BASE_URL"],
        message: "is required in live mode and must be an https:// URL",
      });
    // A chain is a rail like the others (docs/configuration.md, "What start-up refuses"): without an
    // EVM_RPC_URL_* nothing derives a deposit address or signs, so neither key is asked for; with one,
    // both are, or deposits would go to the public test xpub and withdrawals could not be signed.
    const anyRpc = env.EVM_RPC_URL_ETH || env.EVM_RPC_URL_BSC || env.EVM_RPC_URL_POLYGON;
    if (anyRpc && !env.DEPOSIT_XPUB) {
      ctx.addIssue({
        code: "custom",
        path: ["DEPOSIT_XPUB"],
        message:
          "is required in live mode once an EVM_RPC_URL_* is set: the account-level xpub deposit addresses derive from",
      });
    }
    if (anyRpc && !env.HOT_WALLET_PRIVATE_KEY && !env.HOT_WALLET_KEY_FILE) {
      ctx.addIssue({
        code: "custom",
        path: ["HOT_WALLET_PRIVATE_KEY"],
        message: "is required in live mode (or HOT_WALLET_KEY_FILE) once an EVM_RPC_URL_* is set",
      });
    }
  }
});

function databaseProblems(env: EnvFields): { variable: string; message: string }[] {
  const out: { variable: string; message: string }[] = [];
  for (const variable of ["DATABASE_URL", "DATABASE_DIRECT_URL"] as const) {
    const url = env[variable];
    const parsed = url ? parseDatabaseUrl(url) : null;
    const tsa = parsed && !("error" in parsed) ? parsed.params.get("target_session_attrs") : null;
    if (tsa && !WRITABLE_TARGETS.includes(tsa)) {
      out.push({
        variable,
        message: `target_session_attrs=${tsa} could settle on a standby: use read-write (the default) or primary`,
      });
    }
  }
  if (env.DB_POOLER === "transaction") {
    if (!env.DATABASE_URL)
      out.push({ variable: "DATABASE_URL", message: "is required once DB_POOLER=transaction: the pooler's URL" });
    if (!env.DATABASE_DIRECT_URL)
      out.push({
        variable: "DATABASE_DIRECT_URL",
        message: "is required once DB_POOLER=transaction: LISTEN, migrations and the job runner need PostgreSQL itself",
      });
  }
  if (env.DATABASE_DIRECT_URL && !env.DATABASE_URL)
    out.push({
      variable: "DATABASE_DIRECT_URL",
      message: "needs DATABASE_URL (the embedded PostgreSQL has no other URL)",
    });
  if (env.DATABASE_REPLICA_URL && !env.DATABASE_URL)
    out.push({
      variable: "DATABASE_REPLICA_URL",
      message: "needs DATABASE_URL (the embedded PostgreSQL has no standby)",
    });
  return out;
}

// A PIX rail is configured all at once or not at all: half a configuration (a URL without its
// certificate) is a mistake to report at start-up, not a rail that fails on the first payment.
function pixProblems(env: EnvFields): { variable: string; message: string }[] {
  const out: { variable: string; message: string }[] = [];
  const credentialsNeeded = env.PIX_API_URL || env.PIX_PAYOUT_PROVIDER;
  const who = env.PIX_API_URL ? "PIX_API_URL" : "PIX_PAYOUT_PROVIDER";
  if (env.PIX_CLIENT_SECRET && env.PIX_CLIENT_SECRET_FILE)
    out.push({
      variable: "PIX_CLIENT_SECRET_FILE",
      message: "set either PIX_CLIENT_SECRET or PIX_CLIENT_SECRET_FILE, not both",
    });
  if (env.PIX_PFX_PASSPHRASE && env.PIX_PFX_PASSPHRASE_FILE)
    out.push({
      variable: "PIX_PFX_PASSPHRASE_FILE",
      message: "set either PIX_PFX_PASSPHRASE or PIX_PFX_PASSPHRASE_FILE, not both",
    });
  if ((env.PIX_CERT_FILE || env.PIX_KEY_FILE) && env.PIX_PFX_FILE)
    out.push({
      variable: "PIX_PFX_FILE",
      message: "set either PIX_CERT_FILE + PIX_KEY_FILE or PIX_PFX_FILE, not both",
    });
  if (Boolean(env.PIX_CERT_FILE) !== Boolean(env.PIX_KEY_FILE))
    out.push({
      variable: env.PIX_CERT_FILE ? "PIX_KEY_FILE" : "PIX_CERT_FILE",
      message: "PIX_CERT_FILE and PIX_KEY_FILE go together",
    });
  if (credentialsNeeded) {
    if (!env.PIX_CLIENT_ID) out.push({ variable: "PIX_CLIENT_ID", message: `is required once ${who} is set` });
    if (!env.PIX_CLIENT_SECRET && !env.PIX_CLIENT_SECRET_FILE)
      out.push({
        variable: "PIX_CLIENT_SECRET",
        message: `is required (or PIX_CLIENT_SECRET_FILE) once ${who} is set`,
      });
    if (!env.PIX_CERT_FILE && !env.PIX_PFX_FILE)
      out.push({
        variable: "PIX_CERT_FILE",
        message: `the PSP's mTLS client certificate is required once ${who} is set: PIX_CERT_FILE + PIX_KEY_FILE, or PIX_PFX_FILE`,
      });
  }
  if (env.BINANCE_PAY_API_KEY && !env.BINANCE_PAY_SECRET_KEY && !env.BINANCE_PAY_SECRET_KEY_FILE)
    out.push({
      variable: "BINANCE_PAY_SECRET_KEY",
      message: "is required (or BINANCE_PAY_SECRET_KEY_FILE) once BINANCE_PAY_API_KEY is set",
    });
  if (env.BINANCE_PAY_SECRET_KEY && env.BINANCE_PAY_SECRET_KEY_FILE)
    out.push({
      variable: "BINANCE_PAY_SECRET_KEY_FILE",
      message: "set either BINANCE_PAY_SECRET_KEY or BINANCE_PAY_SECRET_KEY_FILE, not both",
    });
  if (env.LIGHTNING_BACKEND === "lnd") {
    if (!env.LND_REST_URL) out.push({ variable: "LND_REST_URL", message: "is required once LIGHTNING_BACKEND=lnd" });
    if (!env.LND_MACAROON_HEX && !env.LND_MACAROON_FILE)
      out.push({
        variable: "LND_MACAROON_FILE",
        message: "is required (or LND_MACAROON_HEX) once LIGHTNING_BACKEND=lnd: an invoice macaroon",
      });
    if (!env.LND_TLS_CERT_FILE)
      out.push({
        variable: "LND_TLS_CERT_FILE",
        message: "is required once LIGHTNING_BACKEND=lnd: the node's TLS certificate, pinned",
      });
  }
  if (env.LND_MACAROON_HEX && env.LND_MACAROON_FILE)
    out.push({ variable: "LND_MACAROON_FILE", message: "set either LND_MACAROON_HEX or LND_MACAROON_FILE, not both" });
  if (env.LIGHTNING_BACKEND === "opennode" && !(env.LIGHTNING_API_URL && env.LIGHTNING_API_KEY))
    out.push({
      variable: "LIGHTNING_API_URL",
      message: "LIGHTNING_API_URL and LIGHTNING_API_KEY are required once LIGHTNING_BACKEND=opennode",
    });
  if (env.PIX_REGISTER_WEBHOOK && !env.PIX_WEBHOOK_TOKEN)
    out.push({
      variable: "PIX_WEBHOOK_TOKEN",
      message: "is required once PIX_REGISTER_WEBHOOK=true: it is the secret part of the receiver's URL",
    });
  if (env.PIX_PAYOUT_PROVIDER && !env.PIX_API_URL && !env.PIX_PAYOUT_URL)
    out.push({
      variable: "PIX_PAYOUT_URL",
      message: "is required once PIX_PAYOUT_PROVIDER is set without PIX_API_URL (it defaults to PIX_API_URL's origin)",
    });
  if (env.PIX_PAYOUT_PROVIDER && !env.PIX_PAYOUT_KEY)
    out.push({
      variable: "PIX_PAYOUT_KEY",
      message: "is required once PIX_PAYOUT_PROVIDER is set: the key money leaves from",
    });
  if (env.PAYMENTS_MODE === "live" && env.PIX_API_URL && env.PIX_RECEIVER_KEY === SANDBOX_PIX_RECEIVER_KEY) {
    out.push({
      variable: "PIX_RECEIVER_KEY",
      message: "is still the sandbox default: set the service's own DICT key before taking live PIX",
    });
  }
  return out;
}
