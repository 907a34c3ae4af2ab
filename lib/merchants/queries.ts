import { and, asc, count, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { apiKeys, merchants, users, type Merchant } from "@/db/schema";
import type { ApiScope } from "@/lib/identity/api-keys/scopes";
import { shownBalance } from "@/lib/ledger/ledger";

// The SQL of merchants, their API keys and their users, each query taking the executor first.

const apiKeyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  lastFour: apiKeys.lastFour,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  scopes: apiKeys.scopes,
};

export type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  lastFour: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  scopes: ApiScope[];
};

export async function insertMerchant(ex: Executor, values: PgInsertValue<typeof merchants>): Promise<Merchant> {
  const [row] = await ex.insert(merchants).values(values).returning();
  return row;
}

/** A merchant's columns, its balance as shown (the row holds only its folded part: lib/ledger). */
const merchantColumns = () => ({ ...getTableColumns(merchants), balanceCentavos: shownBalance() });

export async function merchantById(ex: Executor, id: string): Promise<Merchant | undefined> {
  const [row] = await ex.select(merchantColumns()).from(merchants).where(eq(merchants.id, id));
  return row;
}

export function allMerchants(ex: Executor): Promise<Merchant[]> {
  return ex.select(merchantColumns()).from(merchants).orderBy(asc(merchants.createdAt), asc(merchants.id));
}

export async function anyMerchantExists(ex: Executor): Promise<boolean> {
  const [row] = await ex.select({ id: merchants.id }).from(merchants).limit(1);
  return row !== undefined;
}

export async function updateMerchantRow(
  ex: Executor,
  id: string,
  change: PgUpdateSetSource<typeof merchants>,
): Promise<Merchant | undefined> {
  const [row] = await ex
    .update(merchants)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(merchants.id, id))
    .returning(merchantColumns());
  return row;
}

export async function insertApiKey(ex: Executor, values: PgInsertValue<typeof apiKeys>): Promise<ApiKeyRow> {
  const [row] = await ex.insert(apiKeys).values(values).returning(apiKeyColumns);
  return row;
}

/**
 * The merchant's keys that are not revoked, counted with the merchant's key creation serialised (a
 * transaction-scoped advisory lock): two creations at once cannot both pass the cap.
 */
export async function lockAndCountActiveKeys(ex: Executor, merchantId: string): Promise<number> {
  await ex.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`api_keys:${merchantId}`}, 0))`);
  const [{ n }] = await ex
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt)));
  return n;
}

export function merchantApiKeys(ex: Executor, merchantId: string): Promise<ApiKeyRow[]> {
  return ex
    .select(apiKeyColumns)
    .from(apiKeys)
    .where(eq(apiKeys.merchantId, merchantId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Revokes one of the merchant's keys; revoking twice keeps the first revocation time. */
export async function revokeKey(ex: Executor, merchantId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await ex
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, merchantId)))
    .returning(apiKeyColumns);
  return row;
}

export async function insertUser(ex: Executor, values: PgInsertValue<typeof users>): Promise<void> {
  await ex.insert(users).values(values);
}
