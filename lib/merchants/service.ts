import { and, eq, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { merchants, type Merchant } from "@/db/schema";
import { isUuid, randomBase62 } from "@/lib/ids";
import { generateApiKey, type KeyMode } from "@/lib/identity/api-keys/keys";
import { forgetMerchant } from "@/lib/identity/api-keys/key-cache";
import { API_SCOPES, legacyScope, normaliseScopes, type ApiScope } from "@/lib/identity/api-keys/scopes";
import { hashPassword } from "@/lib/identity/password-hash";
import { audit, type Actor } from "@/lib/identity/audit";
import { env } from "@/lib/env";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { classifyPixKey } from "@/lib/pix/keys";
import {
  allMerchants,
  anyMerchantExists,
  insertApiKey,
  insertMerchant as insertMerchantRow,
  insertUser,
  lockAndCountActiveKeys,
  merchantApiKeys,
  merchantById,
  revokeKey,
  updateMerchantRow,
  type ApiKeyRow,
} from "./queries";
import type { CreatedMerchant, CreateMerchantInput, MerchantView, UpdateMerchantInput } from "./schemas";

// Merchant provisioning for operators (admin API, CLI) and the demo seed at start-up. Everything a
// new merchant needs — the row, its first key, its dashboard user, its opening balance — is written
// in one transaction, so a failure never leaves a merchant without a key or a user without a merchant.

export type { CreatedMerchant, MerchantView } from "./schemas";

export type ApiKeyView = ApiKeyRow;

export type DemoMerchant = { apiKey: string; email: string; password: string; merchantId: string };

export function merchantView(row: Merchant): MerchantView {
  return {
    id: row.id,
    companyName: row.companyName,
    pixKey: row.pixKey,
    accountType: row.accountType,
    balance: row.balanceCentavos,
  };
}

function normalisePixKey(key: string): { pixKey: string; pixKeyType: string } {
  const classified = classifyPixKey(key);
  // The schemas already refuse these; this guards callers that skip them.
  if (!classified) throw new InvalidInput("pixKey is not a valid PIX key", { code: "pixKey.invalid" });
  return { pixKey: classified.normalized, pixKeyType: classified.type };
}

/** A new payout key starts its hold (lib/identity/payout-hold.ts); saving the same key again does not. */
function payoutKeyChange(next: { pixKey: string; pixKeyType: string }) {
  const changed = sql`${merchants.pixKey} is distinct from ${next.pixKey}`;
  return {
    ...next,
    pixKeyChangedAt: sql`case when ${changed} then now() else ${merchants.pixKeyChangedAt} end`,
    pixKeyConfirmedAt: sql`case when ${changed} then null else ${merchants.pixKeyConfirmedAt} end`,
  };
}

/** True when `err` (or what it wraps: drizzle wraps driver errors) is a unique violation of `constraint`. */
function isUniqueViolation(err: unknown, constraint: string): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, constraint_name } = e as { code?: unknown; constraint_name?: unknown };
    if (code === "23505" && constraint_name === constraint) return true;
  }
  return false;
}

type NewMerchant = Omit<CreateMerchantInput, "password"> & { passwordHash?: string };

/**
 * The merchant, its PIX key, its first user and its opening balance in the caller's transaction;
 * and, for operators (API, CLI), its first API key, which they hand on. A merchant who signs up in the
 * dashboard gets none: a key is shown once, so it is created where the merchant will see it
 * (Developers page).
 */
async function insertMerchant(
  tx: Tx,
  input: NewMerchant,
  mode: KeyMode,
  issueApiKey: boolean,
): Promise<{ merchant: MerchantView; apiKey: string | null }> {
  const row = await insertMerchantRow(tx, {
    companyName: input.companyName,
    accountType: input.accountType,
    ...(input.pixKey !== undefined ? normalisePixKey(input.pixKey) : {}),
  });
  let apiKey: string | null = null;
  if (issueApiKey) {
    const key = generateApiKey(mode);
    await insertApiKey(tx, {
      merchantId: row.id,
      name: "default",
      prefix: key.prefix,
      lastFour: key.lastFour,
      keyHash: key.hash,
      mode,
    });
    apiKey = key.key;
  }
  if (input.email !== undefined && input.passwordHash !== undefined) {
    await insertUser(tx, { merchantId: row.id, email: input.email, passwordHash: input.passwordHash });
  }
  if (input.openingBalance) {
    await postLedgerEntry(tx, {
      merchantId: row.id,
      kind: "adjustment",
      amountCentavos: input.openingBalance,
      refType: "opening_balance",
      refId: row.id,
      description: "Opening balance (sandbox)",
    });
  }
  // Read back: the opening balance was posted after the insert returned.
  return { merchant: merchantView((await merchantById(tx, row.id))!), apiKey };
}

/** Operators' provisioning (admin API, CLI): the merchant with its first API key. */
export async function createMerchant(input: CreateMerchantInput, opts: { mode: KeyMode }): Promise<CreatedMerchant> {
  const created = await newMerchant(input, opts.mode, true);
  return { merchant: created.merchant, apiKey: created.apiKey! };
}

/**
 * Dashboard sign-up (docs/security.md#sign-up-and-invitations), once the link mailed to the address is opened (lib/identity-flows/sign-up.ts):
 * a standard merchant and its first user, whose password was hashed when the form was sent, without
 * an API key.
 */
export async function signUpMerchant(
  input: { companyName: string; pixKey: string; email: string; passwordHash: string },
  opts: { mode: KeyMode },
): Promise<MerchantView> {
  return (await insertNewMerchant({ ...input, accountType: "standard" }, opts.mode, false)).merchant;
}

async function newMerchant(input: CreateMerchantInput, mode: KeyMode, issueApiKey: boolean) {
  if (input.openingBalance !== undefined && mode !== "sandbox") {
    throw new InvalidInput("openingBalance is accepted in sandbox mode only");
  }
  if (input.email !== undefined && input.password === undefined) {
    throw new InvalidInput("password is required when email is given");
  }
  const { password, ...rest } = input;
  // Hashed before the transaction: scrypt is deliberately slow and must not hold a connection.
  const passwordHash = password !== undefined ? await hashPassword(password) : undefined;
  return insertNewMerchant({ ...rest, passwordHash }, mode, issueApiKey);
}

async function insertNewMerchant(input: NewMerchant, mode: KeyMode, issueApiKey: boolean) {
  try {
    return await db().transaction((tx) => insertMerchant(tx, input, mode, issueApiKey));
  } catch (err) {
    // The unique index, not a prior SELECT, decides: two concurrent sign-ups cannot both pass.
    if (isUniqueViolation(err, "users_email_lower"))
      throw new InvalidInput("A user with this e-mail already exists", { code: "auth.emailTaken" });
    throw err;
  }
}

async function findMerchant(id: string): Promise<Merchant> {
  // A malformed id is simply not a merchant; without this check PostgreSQL's uuid cast would fail.
  if (!isUuid(id)) throw new NotFound("Merchant not found");
  const row = await merchantById(db(), id);
  if (!row) throw new NotFound("Merchant not found");
  return row;
}

export async function listMerchants(): Promise<MerchantView[]> {
  return (await allMerchants(db())).map(merchantView);
}

export async function updateMerchant(id: string, patch: UpdateMerchantInput): Promise<MerchantView> {
  if (!isUuid(id)) throw new NotFound("Merchant not found");
  const row = await updateMerchantRow(db(), id, {
    ...(patch.accountType !== undefined ? { accountType: patch.accountType } : {}),
    ...(patch.companyName !== undefined ? { companyName: patch.companyName } : {}),
    ...(patch.pixKey !== undefined ? payoutKeyChange(normalisePixKey(patch.pixKey)) : {}),
  });
  if (!row) throw new NotFound("Merchant not found");
  forgetMerchant(id);
  return merchantView(row);
}

/** The merchant's own settings (GET/PATCH /api/v1/account/settings, dashboard Settings). */
export type MerchantSettings = { receiptShowsSplits: boolean };

export async function merchantSettings(id: string): Promise<MerchantSettings> {
  const row = await findMerchant(id);
  return { receiptShowsSplits: row.receiptShowsSplits };
}

/**
 * Whether the payer's receipt names a split's recipients and their parts (docs/api.md#public-payments-and-splits),
 * from the API or the dashboard. A change writes its audit row in the same transaction, so the trail
 * never misses one that committed nor names one that did not; setting the value it already has writes nothing.
 */
export async function updateMerchantSettings(
  actor: Actor & { merchantId: string },
  change: Partial<MerchantSettings>,
): Promise<MerchantSettings> {
  const id = actor.merchantId;
  if (change.receiptShowsSplits === undefined) return merchantSettings(id);
  const shown = change.receiptShowsSplits;
  const changed = await db().transaction(async (tx) => {
    const [row] = await tx
      .update(merchants)
      .set({ receiptShowsSplits: shown, updatedAt: sql`now()` })
      .where(and(eq(merchants.id, id), sql`${merchants.receiptShowsSplits} is distinct from ${shown}`))
      .returning({ id: merchants.id });
    if (row) await audit(actor, "receipt.splitsChanged", id, { shown }, tx);
    return Boolean(row);
  });
  if (changed) forgetMerchant(id);
  return merchantSettings(id);
}

/** An owner vouches for the current payout key, ending its hold; the key's own change time stays. */
export async function confirmPayoutKey(id: string): Promise<void> {
  const row = await updateMerchantRow(db(), id, { pixKeyConfirmedAt: sql`now()` });
  if (!row) throw new NotFound("Merchant not found");
  forgetMerchant(id);
}

/**
 * A new key with `scopes` (default: every scope); the API refuses what they do not cover with 403.
 * Whether the person asking may give those scopes is the caller's to check (the dashboard action:
 * lib/identity/api-keys/scopes.ts grantableScopes); operators may give any. A merchant holds at most
 * MAX_API_KEYS_PER_MERCHANT keys that are not revoked: each has its own rate-limit bucket.
 */
export async function createApiKey(
  merchantId: string,
  name = "default",
  opts: { mode?: KeyMode; scopes?: readonly ApiScope[] } = {},
): Promise<ApiKeyView & { key: string }> {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > 100) throw new InvalidInput("name must be 1 to 100 characters");
  const scopes = normaliseScopes(opts.scopes ?? API_SCOPES);
  if (scopes.length === 0) throw new InvalidInput(`scopes must name at least one of: ${API_SCOPES.join(", ")}`);
  await findMerchant(merchantId);
  const mode = opts.mode ?? env().PAYMENTS_MODE;
  const key = generateApiKey(mode);
  const max = env().MAX_API_KEYS_PER_MERCHANT;
  const row = await db().transaction(async (tx) => {
    if ((await lockAndCountActiveKeys(tx, merchantId)) >= max) {
      throw new Conflict(`A merchant can have at most ${max} active API keys; revoke one first`, {
        code: "apiKey.max",
        values: { max },
      });
    }
    return insertApiKey(tx, {
      merchantId,
      name: trimmed,
      prefix: key.prefix,
      lastFour: key.lastFour,
      keyHash: key.hash,
      mode,
      scopes,
      scope: legacyScope(scopes),
    });
  });
  // The full key exists only in this return value: only its hash is stored.
  return { ...row, key: key.key };
}

export async function listApiKeys(merchantId: string): Promise<ApiKeyView[]> {
  await findMerchant(merchantId);
  return merchantApiKeys(db(), merchantId);
}

export async function revokeApiKey(merchantId: string, keyId: string): Promise<ApiKeyView> {
  if (!isUuid(merchantId) || !isUuid(keyId)) throw new NotFound("API key not found");
  const row = await revokeKey(db(), merchantId, keyId);
  if (!row) throw new NotFound("API key not found");
  // Other instances hear of it from the database's api_auth_changed notification.
  forgetMerchant(merchantId);
  return row;
}

export const DEMO_EMAIL = "demo@example.com";
// Any constant works as long as nothing else takes the same advisory lock.
const DEMO_SEED_LOCK = 727_275;

/**
 * Creates "Loja Demo" and its dashboard user (random 16-character password) in the caller's
 * transaction, unconditionally: whether to seed is seedDemoMerchant's decision.
 */
export async function createDemoMerchant(tx: Tx, mode: KeyMode): Promise<DemoMerchant> {
  const password = randomBase62(16);
  const created = await insertMerchant(
    tx,
    {
      companyName: "Loja Demo",
      accountType: "standard",
      pixKey: "demo@lojademo.com.br",
      email: DEMO_EMAIL,
      passwordHash: await hashPassword(password),
    },
    mode,
    true,
  );
  return { apiKey: created.apiKey!, email: DEMO_EMAIL, password, merchantId: created.merchant.id };
}

/**
 * First start of an empty database: a demo merchant whose key and login are printed once. Returns
 * null when any merchant exists. The advisory lock makes two instances starting together seed once.
 */
export async function seedDemoMerchant(opts: { mode?: KeyMode } = {}): Promise<DemoMerchant | null> {
  const mode = opts.mode ?? env().PAYMENTS_MODE;
  return db().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_SEED_LOCK})`);
    if (await anyMerchantExists(tx)) return null;
    return createDemoMerchant(tx, mode);
  });
}
