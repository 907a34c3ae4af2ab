import { test as base } from "@playwright/test";
import { PixCrypto, type PixCryptoOptions, type ResponseInfo } from "@pixcrypto/sdk";
import { PixCryptoOperator } from "@pixcrypto/sdk/operator";

// The SDK's tests run against the built app that Playwright starts (playwright.config.ts: embedded
// PostgreSQL, sandbox mode, ADMIN_TOKEN). They import the package by its own name, so what is tested
// is the built dist/ through its package.json exports, as an installed copy would be.

/** The operator token playwright.config.ts gives the server (kept equal to E2E_ADMIN_TOKEN there). */
export const ADMIN_TOKEN = "e2e-admin-token-0123456789abcdefghijklmnopq";

/** Every operation an SDK call got an answer for in this worker, for the coverage check. */
export const answered = new Set<string>();
export const record = (info: ResponseInfo) => void answered.add(info.operation);

export const test = base.extend<{
  operator: PixCryptoOperator;
  merchant: (opts?: { openingBalance?: number; client?: Partial<PixCryptoOptions> }) => Promise<Merchant>;
}>({
  operator: async ({ baseURL }, provide) => {
    await provide(new PixCryptoOperator({ baseUrl: baseURL!, adminToken: ADMIN_TOKEN, onResponse: record }));
  },
  merchant: async ({ baseURL, operator }, provide) => {
    await provide(async (opts = {}) => {
      const { merchant, apiKey } = await operator.merchants.create({
        companyName: `Loja SDK ${Math.random().toString(36).slice(2, 8)}`,
        pixKey: "52998224725",
        openingBalance: opts.openingBalance,
      });
      const client = new PixCrypto({ apiKey, baseUrl: baseURL!, onResponse: record, ...opts.client });
      return { id: merchant.id, apiKey, client };
    });
  },
});

export type Merchant = { id: string; apiKey: string; client: PixCrypto };

/** Polls `read` until `done` (a loaded machine: generous, and never a fixed sleep standing in for an outcome). */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 45_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until)
      throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
