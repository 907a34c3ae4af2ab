import { availableParallelism } from "node:os";
import { z } from "zod";
import {
  bool,
  chainId,
  decimalString,
  floatSpec,
  httpsUrl,
  httpUrl,
  postgresUrl,
  privateKey,
  SANDBOX_PIX_RECEIVER_KEY,
  seconds,
  sweepSpec,
  tokenOverrides,
} from "./values";

// Every variable the app reads, its default, and why where a line says it (.env.example lists them).

// PostgreSQL's rule of thumb for a pool, (2 × cores) + 1, capped at 10. More connections than the
// cores can serve cost throughput: on 2 cores (database on the same machine) a pool of 10 answered
// GET /order/{id} at ~3,900 req/s and a pool of 5 at ~5,700 (docs/performance.md): with fewer
// connections postgres.js pipelines more queries per socket write and PostgreSQL switches less.
export const DEFAULT_DB_POOL_SIZE = Math.min(10, 2 * availableParallelism() + 1);

export const envFields = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PAYMENTS_MODE: z.enum(["sandbox", "live"]).default("sandbox"),
  // One host, or several (postgres://u@h1:5432,h2:5433/db): the first that accepts writes is used
  // (target_session_attrs defaults to read-write), so a promoted standby is followed without a proxy.
  DATABASE_URL: postgresUrl.optional(),
  // "transaction": DATABASE_URL is a pooler in transaction mode (PgBouncer), where a session is not
  // kept between transactions: no named prepared statements and no session settings on those
  // connections; LISTEN, migrations and the job runner go to DATABASE_DIRECT_URL.
  DB_POOLER: z.enum(["none", "transaction"]).default("none"),
  // PostgreSQL itself, not a pooler (default DATABASE_URL): what needs a session of its own uses it.
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  // A streaming standby for the merchants' heavy reads (statement, exports, order lists and search);
  // reads go back to the primary while it is more than REPLICA_MAX_LAG_SECONDS behind or unreachable.
  DATABASE_REPLICA_URL: postgresUrl.optional(),
  REPLICA_MAX_LAG_SECONDS: z.coerce.number().min(0.1).max(3600).default(5),
  // Live mode refuses a database whose commits do not wait for a synchronous standby, since a failover
  // to an asynchronous one loses acknowledged payments; false starts anyway with a warning (for
  // durability the database provides otherwise, e.g. a managed service replicating its storage).
  DB_REQUIRE_SYNC_STANDBY: bool.default(true),
  DATA_DIR: z.string().default(".data"),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(DEFAULT_DB_POOL_SIZE),
  // How long a new database connection may take (TCP, TLS, startup) before it fails: a server that is
  // down or unreachable answers the request promptly instead of after the driver's 30 s.
  DB_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
  // Per statement and per lock wait, on every pooled connection (jobs included): work that cannot
  // finish in this time fails (a 503 for a request) instead of holding a connection and its caller.
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  DB_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  // A session left inside a transaction with nothing to run for this long is ended by PostgreSQL, its
  // locks with it: our transactions run their statements back to back, so only a client that stalled
  // or was cut off (a partition) waits this long, and its row locks must not hold up other instances.
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  // How long a query may wait for a free pool connection before it fails (a 503 for a request): work
  // queued behind a stalled pool would otherwise run long after its request was answered.
  DB_POOL_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  // statement_timeout of the job runner's own sessions (pg-boss: its maintenance deletes archived jobs
  // in bulk, which may outlast a request's bound). Unset: 300 000, or DB_STATEMENT_TIMEOUT_MS when longer
  // or 0 (none).
  DB_JOB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).optional(),
  // An API request still running after this is answered 503 with Retry-After; its work goes on and
  // stores its outcome under its Idempotency-Key, which a retry gets. 0 turns it off.
  REQUEST_DEADLINE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  // This instance's name across its restarts (default: host name and PORT): a restarted instance ends
  // the Idempotency-Key leases its predecessor held, so their clients' retries run at once.
  INSTANCE_NAME: z.string().min(1).max(200).optional(),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  PUBLIC_BASE_URL: z.string().url().optional(),
  AUTH_SECRET: z.string().min(32).optional(),
  ADMIN_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  API_KEY_PEPPER: z.string().optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  // Requests per minute per API key, and per client address on public routes, failed authentication
  // and the operator API; 0 turns them off (lib/http/rate-limit.ts).
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  // Active (not revoked) API keys per merchant. Each key has its own rate-limit bucket, so without a
  // cap a merchant multiplies RATE_LIMIT_PER_MINUTE by making keys (lib/merchants/service.ts).
  MAX_API_KEYS_PER_MERCHANT: z.coerce.number().int().min(1).max(1000).default(20),
  // Requests per minute per client address to each unauthenticated provider receiver (Binance Pay,
  // OpenNode, the PSP's PIX notifications); 0 turns it off (lib/http/provider-caller.ts).
  PROVIDER_CALLBACK_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  // Proxies in front of the server whose X-Forwarded-For entries are trusted, counted from the right;
  // 0: the client's address is the socket's (lib/http/client-address.ts).
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  JOBS_ENABLED: bool.default(true),
  // GET /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, it does not exist (404).
  METRICS_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  METRICS_TOKEN_FILE: z.string().min(1).optional(),
  // On SIGTERM/SIGINT: how long requests in flight and running jobs get to finish.
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  // Serve /api/v1 straight from the route table instead of through Next's router (same handlers).
  API_FAST_PATH: bool.default(true),
  SEED_DEMO_MERCHANT: bool.default(true),

  MAX_ORDER_VALUE_BRL: z.coerce.number().positive().default(1_000_000),
  EXPIRY_LIGHTNING_SECONDS: seconds(15 * 60),
  EXPIRY_EXCHANGE_SECONDS: seconds(30 * 60),
  EXPIRY_ONCHAIN_SECONDS: seconds(24 * 60 * 60),
  EXPIRY_CRYPTO_PIX_SECONDS: seconds(60 * 60),
  EXPIRY_SWEEP_SECONDS: seconds(30),

  // Where payers send PIX: the service's own receiving key, never the merchant's (docs/api.md#states-expiry-and-money).
  PIX_RECEIVER_KEY: z.string().min(1).max(77).default(SANDBOX_PIX_RECEIVER_KEY),
  PIX_RECEIVER_NAME: z.string().min(1).default("PIXCRYPTO PAGAMENTOS"),
  PIX_RECEIVER_CITY: z.string().min(1).default("SAO PAULO"),
  // Pix Automático: the account a recurring charge credits (cobr.recebedor, DadosBancariosRecebedor).
  PIX_RECEIVER_ACCOUNT: z.string().min(1).max(20).optional(),
  PIX_RECEIVER_BRANCH: z.string().min(1).max(4).optional(),
  PIX_RECEIVER_ACCOUNT_TYPE: z.enum(["CORRENTE", "POUPANCA", "PAGAMENTO"]).default("CORRENTE"),

  DEPOSIT_XPUB: z.string().optional(),
  // The deposit account's private extended key (xprv), in a file only the sweeping worker mounts; its
  // public key must be DEPOSIT_XPUB (checked when the worker starts). Unset: this process never sweeps.
  DEPOSIT_XPRV_FILE: z.string().min(1).optional(),
  MIN_DEPOSIT_ETH: decimalString("10"),
  MIN_DEPOSIT_BSC: decimalString("1"),
  MIN_DEPOSIT_POLYGON: decimalString("1"),
  CONFIRMATIONS_ETH: z.coerce.number().int().min(0).default(12),
  CONFIRMATIONS_BSC: z.coerce.number().int().min(0).default(15),
  CONFIRMATIONS_POLYGON: z.coerce.number().int().min(0).default(128),

  // Real chains (lib/chain/config.ts). A network with an RPC URL is watched and paid through the
  // node, in sandbox mode too, so the real watcher can run against a local node.
  EVM_RPC_URL_ETH: httpUrl.optional(),
  EVM_RPC_URL_BSC: httpUrl.optional(),
  EVM_RPC_URL_POLYGON: httpUrl.optional(),
  // Test networks (anvil: 31337) sign with their own chain id; unset uses the real one.
  EVM_CHAIN_ID_ETH: chainId.optional(),
  EVM_CHAIN_ID_BSC: chainId.optional(),
  EVM_CHAIN_ID_POLYGON: chainId.optional(),
  // Replaces entries of the token table, for test networks: {"polygon":{"USDT":{"address":"0x…","decimals":6}}}
  TOKEN_OVERRIDES_JSON: tokenOverrides.optional(),
  // Signs withdrawals and Crypto-PIX refunds. One of the two; the file keeps the key out of the environment.
  HOT_WALLET_PRIVATE_KEY: privateKey.optional(),
  HOT_WALLET_KEY_FILE: z.string().min(1).optional(),
  CHAIN_POLL_SECONDS: z.coerce.number().min(0.5).max(3600).default(5),
  CHAIN_LOG_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(2000),
  // Closed orders stay watched this long, so money sent late is recorded and flagged, not missed.
  CHAIN_LATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(7 * 24 * 60 * 60),
  CHAIN_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // A hot-wallet transaction not mined this many blocks after it was sent is replaced at its nonce
  // with fees at least 12.5% higher, up to CHAIN_MAX_FEE_GWEI_<NET>; above that it waits and the
  // operator is alerted (docs/providers.md#chain-evm).
  CHAIN_REPLACE_AFTER_BLOCKS: z.coerce.number().int().min(1).max(100_000).default(20),
  CHAIN_MAX_FEE_GWEI_ETH: z.coerce.number().positive().default(300),
  CHAIN_MAX_FEE_GWEI_BSC: z.coerce.number().positive().default(30),
  CHAIN_MAX_FEE_GWEI_POLYGON: z.coerce.number().positive().default(3000),
  // Live mode refuses a development chain id (31337, 1337) unless this says it is meant (a staging node).
  ALLOW_TEST_CHAINS: bool.default(false),
  // The hot wallet's float per network (see floatSpec above); unset: not watched, and sends are not held.
  HOT_WALLET_FLOAT_ETH: floatSpec.optional(),
  HOT_WALLET_FLOAT_BSC: floatSpec.optional(),
  HOT_WALLET_FLOAT_POLYGON: floatSpec.optional(),
  // How often the float is read from the nodes (metrics, the operator's mail, held sends released).
  HOT_WALLET_FLOAT_CHECK_SECONDS: seconds(60),
  // Where `treasury move-excess` sends tokens above their target; unset: the command refuses.
  HOT_WALLET_COLD_ADDRESS: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
    .optional(),
  // Sweeping deposit addresses into the hot wallet (see sweepSpec above); unset: the network is not swept.
  SWEEP_THRESHOLDS_ETH: sweepSpec.optional(),
  SWEEP_THRESHOLDS_BSC: sweepSpec.optional(),
  SWEEP_THRESHOLDS_POLYGON: sweepSpec.optional(),
  // How often the sweeping worker (one with DEPOSIT_XPRV_FILE) looks for deposit addresses to sweep.
  SWEEP_INTERVAL_SECONDS: seconds(600),
  // Where sweeps send tokens instead of the hot wallet (a treasury address); gas still comes from the hot wallet.
  SWEEP_TO: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
    .optional(),
  // The solvency report (lib/treasury/solvency.ts): how often it is taken, and how far assets may fall
  // short of liabilities before the operator is alerted: the larger of a fixed amount and a share of
  // the liabilities (rates move between a deposit's credit and the report's valuation).
  SOLVENCY_REPORT_SECONDS: seconds(3600),
  SOLVENCY_TOLERANCE_CENTAVOS: z.coerce.number().int().min(0).default(100),
  SOLVENCY_TOLERANCE_PERCENT: z
    .string()
    .regex(/^\d{1,2}(\.\d{1,4})?$/, "must be a percentage below 100, e.g. 0.5")
    .default("0"),

  // Live PIX collection: any PSP's BCB "API Pix" v2 (lib/providers/pix/api-pix.ts, docs/providers.md#pix-collection-api-pix-any-psp).
  PIX_API_URL: httpsUrl.optional(),
  PIX_OAUTH_URL: httpsUrl.optional(),
  PIX_CLIENT_ID: z.string().min(1).optional(),
  PIX_CLIENT_SECRET: z.string().min(1).optional(),
  PIX_CLIENT_SECRET_FILE: z.string().min(1).optional(),
  // The mTLS client certificate the PSP issued: PEM certificate and key, or a PKCS#12 bundle.
  PIX_CERT_FILE: z.string().min(1).optional(),
  PIX_KEY_FILE: z.string().min(1).optional(),
  PIX_PFX_FILE: z.string().min(1).optional(),
  PIX_PFX_PASSPHRASE: z.string().optional(),
  PIX_PFX_PASSPHRASE_FILE: z.string().min(1).optional(),
  PIX_CA_FILE: z.string().min(1).optional(),
  // The secret path segment of the notification receiver: /api/v1/providers/pix/{token}/pix.
  PIX_WEBHOOK_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9_-]{32,}$/, "must be at least 32 random letters, digits, - or _")
    .optional(),
  PIX_REGISTER_WEBHOOK: bool.default(false),
  // How the PSP's check of the receiver's mutual TLS is met at registration (docs/providers.md, Efí):
  // "skip" asks it not to check (x-skip-mtls-checking: true; the token in the URL authenticates the
  // PSP, and nothing it posts is believed unread); "proxy": mTLS is terminated in front of us.
  PIX_WEBHOOK_MTLS: z.enum(["skip", "proxy"]).default("skip"),
  // Reconciliation: the PSP's list of received PIX is read this often, so a lost notification only delays a payment.
  PIX_POLL_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  PIX_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // Live PIX payouts (pix-out, Crypto-PIX): the adapter and the key money leaves from (docs/providers.md#pix-payouts).
  PIX_PAYOUT_PROVIDER: z.enum(["efi"]).optional(),
  PIX_PAYOUT_URL: httpsUrl.optional(),
  PIX_PAYOUT_KEY: z.string().min(1).optional(),
  // Efí's send path version: its current official SDK sends on PUT /v3/gn/pix/:idEnvio (v2 still served).
  PIX_PAYOUT_SEND_VERSION: z.enum(["v2", "v3"]).default("v3"),

  // Money that leaves (payouts, refunds): how many times one payment is sent (same id) while the
  // provider has no record of it, and after how long an open one is shown to an operator.
  MONEY_OUT_MAX_SENDS: z.coerce.number().int().min(1).max(100).default(5),
  MONEY_OUT_ATTENTION_MINUTES: z.coerce
    .number()
    .min(1)
    .max(7 * 24 * 60)
    .default(30),

  // Live exchange-wallet orders: Binance Pay's merchant API (lib/providers/exchange/binance-pay.ts).
  BINANCE_PAY_URL: httpUrl.default("https://bpay.binanceapi.com"),
  BINANCE_PAY_API_KEY: z.string().min(1).optional(),
  BINANCE_PAY_SECRET_KEY: z.string().min(1).optional(),
  BINANCE_PAY_SECRET_KEY_FILE: z.string().min(1).optional(),
  BINANCE_PAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),

  // Live rates: a CoinGecko-compatible simple/price endpoint (lib/providers/rates/live.ts).
  RATES_URL: httpUrl.optional(),
  RATES_API_KEY: z.string().min(1).optional(),
  RATES_API_KEY_HEADER: z.string().min(1).default("x-cg-demo-api-key"),
  RATES_CACHE_SECONDS: z.coerce.number().int().min(0).default(30),
  RATES_MAX_AGE_SECONDS: z.coerce.number().int().min(1).default(600),
  RATES_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),

  // Live Lightning: OpenNode's charge API (lib/providers/lightning/opennode.ts).
  // Which Lightning provider live mode uses: LND over REST (LND_*) or OpenNode (LIGHTNING_API_*).
  LIGHTNING_BACKEND: z.enum(["lnd", "opennode"]).optional(),
  LND_REST_URL: httpsUrl.optional(),
  LND_MACAROON_HEX: z
    .string()
    .regex(/^[0-9a-fA-F]+$/, "must be hex")
    .optional(),
  LND_MACAROON_FILE: z.string().min(1).optional(),
  LND_TLS_CERT_FILE: z.string().min(1).optional(),
  LND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // Hold invoices (Crypto-PIX over Lightning, docs/providers.md). lnd cancels a held HTLC
  // invoices.holdexpirydelta blocks (18 since lnd 0.21, 12 before) before it expires, and a payer's HTLC
  // may expire as early as cltv_expiry blocks after it arrives. 80 is lnd's own default
  // (bitcoin.timelockdelta), so payers' routes already handle it: at least 80 − 18 = 62 blocks (~10 h) between
  // the payment and lnd's cancel, of which LND_HOLD_MIN_BLOCKS_LEFT must still remain when the PIX
  // starts. 24 is lnd's minimum (routing.MinCLTVDelta); past 2016 no payer's node would forward it
  // (htlcswitch's max outgoing CLTV).
  LND_HOLD_CLTV_EXPIRY: z.coerce.number().int().min(24).max(2016).default(80),
  // The PIX of a held payment starts only while its HTLC expires at least this many blocks from now:
  // the node's holdexpirydelta (18) plus 18 blocks for the PIX to be made and the invoice settled (~3 h
  // on average; the odds that 18 are mined within 30 min are a few in a billion). Fewer: the invoice is
  // cancelled instead.
  LND_HOLD_MIN_BLOCKS_LEFT: z.coerce.number().int().min(1).max(2016).default(36),
  LIGHTNING_API_URL: httpUrl.optional(),
  LIGHTNING_API_KEY: z.string().min(1).optional(),
  LIGHTNING_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // Lightning and exchange-wallet providers are also polled for their open orders this often, so a
  // lost notification only delays a payment.
  PROVIDER_POLL_SECONDS: z.coerce.number().min(1).max(3600).default(30),

  // Sandbox quotes: fixed so a merchant can predict the figures while integrating.
  SANDBOX_RATE_USD_BRL: decimalString("5.40"),
  SANDBOX_RATE_BTC_BRL: decimalString("550000.00"),
  SANDBOX_NETWORK_FEE_BRL_ETH: decimalString("12.00"),
  SANDBOX_NETWORK_FEE_BRL_BSC: decimalString("0.30"),
  SANDBOX_NETWORK_FEE_BRL_POLYGON: decimalString("0.05"),
  SANDBOX_SETTLE_SECONDS: z.coerce.number().int().min(0).default(2),

  // Webhooks: the retry schedule is expressed in steps of this base (5 s = Standard Webhooks' first
  // retry); tests shrink it so failure paths run in a second or two.
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().positive().max(3600).default(5),
  // Unset: private addresses are allowed in sandbox and refused in live mode.
  WEBHOOK_ALLOW_PRIVATE: bool.optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),

  // Account security (docs/security.md). Mail: SMTP_URL (smtp:// or smtps://, credentials in the
  // URL); unset, mail goes to the dashboard's outbox. A payout key changed less than
  // PAYOUT_KEY_HOLD_HOURS ago (0: never held) needs an owner's confirmation before money goes to it.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, "must be an smtp:// or smtps:// URL")
    .optional(),
  MAIL_FROM: z.string().min(3).default("PixCrypto <no-reply@pixcrypto.invalid>"),
  // Where mail about money that needs an operator goes (lib/attention/attention.ts); unset: log and metric only.
  OPERATOR_ALERT_EMAIL: z.email().optional(),
  PAYOUT_KEY_HOLD_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  // A withdrawal destination first used from the dashboard waits this long unless an owner confirms it (0: no hold).
  DESTINATION_HOLD_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  // A user whose second factor was enrolled or removed less than this ago (0: never held) moves no
  // money and passes no step-up until another owner, or the link mailed to the owners, confirms it.
  FACTOR_CHANGE_HOLD_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  STEP_UP_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
});
