import { afterEach, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { auditEvents, ledgerEntries, withdrawals } from "@/db/schema";
import { api, seedMerchant } from "./helpers";

// A withdrawal's audit row is written inside the withdrawal's own transaction (lib/withdrawals/service.ts),
// never by its callers: when the audit insert fails, the withdrawal, its debit and its event are not
// there either, so a withdrawal without its audit row cannot be committed.

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const REQUESTS = [
  ["pix-out", "/api/v1/order/pix-out", { value: 100 }],
  ["on-chain", "/api/v1/onchain/withdraw/initiate", { toAddress: TO, value: 100, network: "bsc" }],
] as const;

/** Makes every audit insert of this merchant fail, as a crash between the two writes would. */
async function failAuditOf(merchantId: string) {
  await db().execute(
    sql.raw(`
    create or replace function test_fail_audit() returns trigger language plpgsql as $$
    begin
      if new.merchant_id = '${merchantId}' then raise exception 'audit insert failed (test)'; end if;
      return new;
    end $$;
    create trigger test_fail_audit before insert on audit_events for each row execute function test_fail_audit();`),
  );
}

afterEach(async () => {
  await db().execute(
    sql.raw(`drop trigger if exists test_fail_audit on audit_events;
    drop function if exists test_fail_audit();`),
  );
});

const rowsOf = async (merchantId: string) => ({
  withdrawals: await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchantId)),
  audit: (await db().select().from(auditEvents).where(eq(auditEvents.merchantId, merchantId))).map((a) => a.action),
  ledger: await db().select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, merchantId)),
});

describe("a withdrawal's audit row commits with it", () => {
  for (const [name, path, body] of REQUESTS) {
    it(`${name}: a committed withdrawal has its audit row`, async () => {
      const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
      const res = await api("POST", path, { apiKey, body });
      expect(res.status).toBeLessThan(300);
      const rows = await rowsOf(merchant.id);
      expect(rows.withdrawals).toHaveLength(1);
      expect(rows.audit).toContain("withdrawal.requested");
    });

    it(`${name}: when the audit row cannot be written, nothing of the withdrawal is`, async () => {
      const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
      const before = await rowsOf(merchant.id);
      await failAuditOf(merchant.id);
      const res = await api("POST", path, { apiKey, body });
      expect(res.status).toBeGreaterThanOrEqual(500);
      const after = await rowsOf(merchant.id);
      expect(after.withdrawals).toHaveLength(0);
      expect(after.ledger).toHaveLength(before.ledger.length);
      expect(after.audit).toEqual(before.audit);
    });
  }
});
