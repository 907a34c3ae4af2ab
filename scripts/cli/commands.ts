import net from "node:net";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { closeDb } from "@/db";
import { ensureDatabase } from "@/db/bootstrap";
import type { EmbeddedHandle } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { describeZodError } from "@/lib/http/validation";
import { ConfigError, env } from "@/lib/env";
import { DomainError } from "@/lib/errors";
import { createMerchantBody, updateMerchantBody } from "@/lib/merchants/schemas";
import { API_SCOPES, isApiScope, type ApiScope } from "@/lib/identity/api-keys/scopes";
import {
  createApiKey,
  createMerchant,
  listApiKeys,
  listMerchants,
  revokeApiKey,
  updateMerchant,
} from "@/lib/merchants/service";
import { isNetwork, NETWORKS, type Network } from "@/lib/chain/tokens";
import { retryRefund } from "@/lib/crypto-pix/refunds";
import { fillNonceGaps, nonceReport } from "@/lib/hot-wallet/gaps";
import { cancelChainTx } from "@/lib/hot-wallet/tracker";
import { decodeCryptoPixId } from "@/lib/ids";
import { attentionList } from "@/lib/attention/attention";
import { resendMoneyOut, resolveMoneyOut } from "@/lib/worker/operator";
import { RECON_SOURCES } from "@/db/schema";
import { reconcile } from "@/lib/reconciliation/daily";
import { listMismatches, resolveMismatch } from "@/lib/reconciliation/mismatches";
import { isCalendarDay } from "@/lib/day-range";
import { floatStatus } from "@/lib/treasury/float";
import { moveExcess } from "@/lib/treasury/excess";
import { latestSolvencyReport, takeSolvencyReport } from "@/lib/treasury/solvency";
import { sweepCosts, sweepDeposits } from "@/lib/treasury/sweep";
import { checkDepositKey } from "@/lib/chain/deposit-keys";

// Operator CLI: the admin API's operations for someone at a shell (docs/configuration.md), and what an
// operator does with money that needs one (docs/operations.md). Results go to stdout as JSON so they
// can be piped; errors go to stderr with exit code 1. scripts/cli.ts is the process; this module is the
// CLI as a function, so tests drive it without starting one.

const USAGE = `Usage: npm run cli -- <command>

  merchants create --company <name> [--pix-key K] [--account-type standard|verified|business]
                   [--email E --password P] [--opening-balance CENTAVOS]
  merchants update <id> [--account-type T] [--company N] [--pix-key K]
  merchants list
  keys create <merchantId> [--name N] [--scopes read,payments,refunds,withdrawals]
                                             a key with those scopes (default: all four); at most
                                             MAX_API_KEYS_PER_MERCHANT active keys per merchant
  keys list <merchantId>
  keys revoke <merchantId> <keyId>
  chain status [--network eth|bsc|polygon]   the hot wallet's nonces on the node and here, gaps,
                                             and transactions an operator must look at
  chain fill-gaps --network N                 fills nonce gaps with zero-value self-transfers
  chain cancel <chainTxId>                    replaces a pending transaction, at its nonce, with a
                                             zero-value self-transfer paying more (its owner fails
                                             and is credited back if the cancellation is mined)
  treasury status [--network N]              the hot wallet's balance of each token and of gas
                                             against its minimum and target (read from the node
                                             now), and the sends waiting for a top-up, and why
  treasury move-excess [--network N] [--dry-run]
                                             sends each token's balance above its target to
                                             HOT_WALLET_COLD_ADDRESS (a tracked hot-wallet
                                             transaction); a second run moves nothing
  treasury sweep [--network N] [--dry-run]    sweeps deposit addresses above SWEEP_THRESHOLDS_<NET> into
                                             the hot wallet (or SWEEP_TO), gas sent first where needed;
                                             --dry-run lists what it would do. Needs DEPOSIT_XPRV_FILE
  treasury sweep-costs                        what sweeping moved and the gas it cost the service
  treasury solvency [--last]                  what we owe against what we hold, in BRL: takes a
                                             report now (stored; a shortfall beyond the tolerance
                                             mails the operator once), or shows the last one
  refunds retry <payCryptoPixId|paymentId>    sends again a Crypto-PIX refund the chain refused
  attention                                   payouts, refunds, hold invoices and hot-wallet
                                             transactions waiting for an operator, and why
  payouts resend <payoutId> --note N          after checking with the PSP: send a stopped PIX
                                             payout once more (same id, never paid twice)
  payouts resolve <payoutId> --made|--not-made --note N
                                             record what the PSP told you; --not-made gives the
                                             money back (withdrawal credited, Crypto-PIX refunded)
  order-refunds resend <refundId> --note N    the same for a PIX or exchange-wallet order's refund
  order-refunds resolve <refundId> --made|--not-made --note N
  recon run [--day YYYY-MM-DD] [--source pix_received|pix_sent|exchange|lightning|chain] [--again]
                                             reconciles a São Paulo day (default yesterday) against
                                             each provider's own records; --again re-reads a done day
  recon mismatches [--all]                    disagreements found, oldest first (--all: resolved too)
  recon resolve <mismatchId> --note N         records what was done about one (audited)
  help

Uses DATABASE_URL, or else the embedded PostgreSQL under DATA_DIR (joining it when the app is
already running it).`;

class UsageError extends Error {}

const OPTIONS = {
  company: { type: "string" },
  "pix-key": { type: "string" },
  "account-type": { type: "string" },
  email: { type: "string" },
  password: { type: "string" },
  "opening-balance": { type: "string" },
  name: { type: "string" },
  scopes: { type: "string" },
  network: { type: "string" },
  note: { type: "string" },
  made: { type: "boolean" },
  "not-made": { type: "boolean" },
  day: { type: "string" },
  source: { type: "string" },
  again: { type: "boolean" },
  all: { type: "boolean" },
  "dry-run": { type: "boolean" },
  last: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

function networkOption(value: string | undefined): Network {
  if (!isNetwork(value)) throw new UsageError(`--network must be one of ${NETWORKS.join(", ")}`);
  return value;
}

/** Digits become a number; anything else is passed through so the schema names the problem. */
function centavos(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^-?\d+$/.test(value.trim()) ? Number(value) : value;
}

/** Why an operator decided: kept on the merchant's audit trail. */
function noteOption(value: string | undefined): string {
  const note = value?.trim();
  if (!note) throw new UsageError("--note is required: say what the provider told you");
  return note.slice(0, 500);
}

/** "read,payments": each a known scope, at least one. */
function scopesOption(value: string | undefined): ApiScope[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isApiScope(n));
  if (names.length === 0 || unknown.length > 0)
    throw new UsageError(`--scopes must list one or more of ${API_SCOPES.join(", ")}, separated by commas`);
  return names as ApiScope[];
}

function positional(args: string[], index: number, what: string): string {
  const value = args[index];
  if (value === undefined) throw new UsageError(`missing <${what}>`);
  return value;
}

/** Refuses options and extra arguments the command does not take, rather than silently ignoring them. */
function expectArgs(command: string, values: Values, allowed: (keyof typeof OPTIONS)[], args: string[], count: number) {
  if (args.length > count) throw new UsageError(`unexpected argument "${args[count]}"`);
  const extra = Object.keys(values).filter((k) => k !== "help" && !allowed.includes(k as keyof typeof OPTIONS));
  if (extra.length > 0) throw new UsageError(`${command} does not take ${extra.map((k) => `--${k}`).join(", ")}`);
}

function isPortOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * The app may already be running the embedded PostgreSQL on the same data directory; a second
 * server there cannot start, so when the start fails and something listens on the port, join it.
 */
async function connectDatabase(): Promise<EmbeddedHandle | null> {
  try {
    const { embedded } = await ensureDatabase();
    return embedded;
  } catch (err) {
    const port = env().EMBEDDED_PG_PORT;
    if (env().DATABASE_URL || !(await isPortOpen(port)))
      throw err ?? new Error("could not start the embedded PostgreSQL");
    const url = `postgres://postgres:postgres@127.0.0.1:${port}/payments`;
    await runMigrations(url);
    process.env.DATABASE_URL = url;
    return null;
  }
}

/** Where a command's database comes from: its own connection (the CLI process), or the process's pool as is. */
type DatabaseUse = "own" | "current";

async function run(argv: string[], database: DatabaseUse): Promise<unknown> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [group, action, ...rest] = positionals;
  if (values.help || group === undefined || group === "help") {
    return USAGE;
  }
  const command = `${group} ${action ?? ""}`.trim();

  // Validate before touching the database, so a typo does not start PostgreSQL.
  let task: () => Promise<unknown>;
  switch (command) {
    case "merchants create": {
      expectArgs(
        command,
        values,
        ["company", "pix-key", "account-type", "email", "password", "opening-balance"],
        rest,
        0,
      );
      const input = createMerchantBody.parse({
        companyName: values.company,
        pixKey: values["pix-key"],
        accountType: values["account-type"],
        email: values.email,
        password: values.password,
        openingBalance: centavos(values["opening-balance"]),
      });
      task = () => createMerchant(input, { mode: env().PAYMENTS_MODE });
      break;
    }
    case "merchants update": {
      expectArgs(command, values, ["company", "pix-key", "account-type"], rest, 1);
      const id = positional(rest, 0, "id");
      const patch = updateMerchantBody.parse({
        accountType: values["account-type"],
        companyName: values.company,
        pixKey: values["pix-key"],
      });
      task = async () => ({ merchant: await updateMerchant(id, patch) });
      break;
    }
    case "merchants list":
      expectArgs(command, values, [], rest, 0);
      task = async () => ({ merchants: await listMerchants() });
      break;
    case "keys create": {
      expectArgs(command, values, ["name", "scopes"], rest, 1);
      const merchantId = positional(rest, 0, "merchantId");
      const scopes = scopesOption(values.scopes);
      task = async () => ({ apiKey: await createApiKey(merchantId, values.name ?? "default", { scopes }) });
      break;
    }
    case "keys list": {
      expectArgs(command, values, [], rest, 1);
      const merchantId = positional(rest, 0, "merchantId");
      task = async () => ({ apiKeys: await listApiKeys(merchantId) });
      break;
    }
    case "keys revoke": {
      expectArgs(command, values, [], rest, 2);
      const merchantId = positional(rest, 0, "merchantId");
      const keyId = positional(rest, 1, "keyId");
      task = async () => ({ apiKey: await revokeApiKey(merchantId, keyId) });
      break;
    }
    case "chain status": {
      expectArgs(command, values, ["network"], rest, 0);
      const networks = values.network ? [networkOption(values.network)] : NETWORKS;
      task = async () => ({ networks: await Promise.all(networks.map((n) => nonceReport(n))) });
      break;
    }
    case "chain fill-gaps": {
      expectArgs(command, values, ["network"], rest, 0);
      const network = networkOption(values.network);
      task = async () => ({ filled: await fillNonceGaps(network) });
      break;
    }
    case "chain cancel": {
      expectArgs(command, values, [], rest, 1);
      const id = positional(rest, 0, "chainTxId");
      task = async () => ({ cancellation: await cancelChainTx(id) });
      break;
    }
    case "treasury status": {
      expectArgs(command, values, ["network"], rest, 0);
      const network = values.network ? networkOption(values.network) : undefined;
      task = () => floatStatus(network);
      break;
    }
    case "treasury move-excess": {
      expectArgs(command, values, ["network", "dry-run"], rest, 0);
      const network = values.network ? networkOption(values.network) : undefined;
      const dryRun = values["dry-run"] ?? false;
      task = async () => ({ dryRun, moves: await moveExcess({ network, dryRun }) });
      break;
    }
    case "treasury sweep": {
      expectArgs(command, values, ["network", "dry-run"], rest, 0);
      const network = values.network ? networkOption(values.network) : undefined;
      const dryRun = values["dry-run"] ?? false;
      task = async () => {
        if (!dryRun) checkDepositKey();
        return { sweep: await sweepDeposits({ network, dryRun }) };
      };
      break;
    }
    case "treasury sweep-costs": {
      expectArgs(command, values, [], rest, 0);
      task = async () => ({ costs: await sweepCosts() });
      break;
    }
    case "treasury solvency": {
      expectArgs(command, values, ["last"], rest, 0);
      task = async () => ({ solvency: values.last ? await latestSolvencyReport() : await takeSolvencyReport() });
      break;
    }
    case "refunds retry": {
      expectArgs(command, values, [], rest, 1);
      const given = positional(rest, 0, "payCryptoPixId|paymentId");
      task = async () => ({ refundTransactions: await retryRefund(decodeCryptoPixId(given) ?? given) });
      break;
    }
    case "attention": {
      expectArgs(command, values, [], rest, 0);
      task = async () => ({ attention: await attentionList() });
      break;
    }
    case "payouts resend":
    case "order-refunds resend": {
      expectArgs(command, values, ["note"], rest, 1);
      const id = positional(rest, 0, group === "payouts" ? "payoutId" : "refundId");
      const note = noteOption(values.note);
      task = async () => {
        await resendMoneyOut(group === "payouts" ? "payout" : "refund", id, note);
        return { resent: id };
      };
      break;
    }
    case "payouts resolve":
    case "order-refunds resolve": {
      expectArgs(command, values, ["note", "made", "not-made"], rest, 1);
      const id = positional(rest, 0, group === "payouts" ? "payoutId" : "refundId");
      if (Boolean(values.made) === Boolean(values["not-made"]))
        throw new UsageError("give exactly one of --made and --not-made");
      const outcome = values.made ? "made" : "not-made";
      const note = noteOption(values.note);
      task = async () => {
        await resolveMoneyOut(group === "payouts" ? "payout" : "refund", id, outcome, note);
        return { resolved: id, outcome };
      };
      break;
    }
    case "recon run": {
      expectArgs(command, values, ["day", "source", "again"], rest, 0);
      if (values.day !== undefined && !isCalendarDay(values.day))
        throw new UsageError("--day must be a calendar day, YYYY-MM-DD");
      const only = values.source;
      if (only !== undefined && !(RECON_SOURCES as readonly string[]).includes(only))
        throw new UsageError(`--source must be one of ${RECON_SOURCES.join(", ")}`);
      task = async () => ({
        runs: await reconcile({
          day: values.day,
          only: only as (typeof RECON_SOURCES)[number] | undefined,
          again: values.again,
        }),
      });
      break;
    }
    case "recon mismatches": {
      expectArgs(command, values, ["all"], rest, 0);
      task = async () => ({ mismatches: await listMismatches({ all: values.all }) });
      break;
    }
    case "recon resolve": {
      expectArgs(command, values, ["note"], rest, 1);
      const id = positional(rest, 0, "mismatchId");
      const note = noteOption(values.note);
      task = async () => ({ resolved: await resolveMismatch(id, note) });
      break;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }

  if (database === "current") return task();
  const embedded = await connectDatabase();
  try {
    return await task();
  } finally {
    await closeDb();
    if (embedded) await embedded.stop();
  }
}

function describeError(err: unknown): string {
  if (err instanceof ZodError) return describeZodError(err);
  if (err instanceof UsageError) return `${err.message} (see: npm run cli -- help)`;
  if (err instanceof DomainError || err instanceof ConfigError) return err.message;
  // parseArgs reports unknown options and missing values with readable messages and these codes.
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))
    return `${(err as Error).message} (see: npm run cli -- help)`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export type CliOutput = { code: 0 | 1; stdout: string; stderr: string };

/** One command's output and exit code. Usage is printed as text, results as JSON, errors as one line. */
export async function runCli(argv: string[], opts: { database?: DatabaseUse } = {}): Promise<CliOutput> {
  try {
    const result = await run(argv, opts.database ?? "own");
    if (result === undefined) return { code: 0, stdout: "", stderr: "" };
    const text = typeof result === "string" ? result : JSON.stringify(result, null, 2);
    return { code: 0, stdout: text + "\n", stderr: "" };
  } catch (err) {
    return { code: 1, stdout: "", stderr: `error: ${describeError(err)}\n` };
  }
}
