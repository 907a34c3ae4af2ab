import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { sandboxPixPayouts } from "@/db/schema";
import { InvalidInput } from "@/lib/errors";
import { parseBrCode } from "@/lib/pix/brcode";
import type { PayoutState, PixPayoutProvider } from "./types";

/** Payouts to this key fail in the sandbox, so merchants can exercise their failure handling. */
export const SANDBOX_FAILING_PIX_KEY = "payout.fail@example.com";

type Row = typeof sandboxPixPayouts.$inferSelect;

const stateOf = (row: Row): PayoutState =>
  row.status === "REALIZADO"
    ? { status: "COMPLETED", providerRef: row.endToEndId }
    : { status: "FAILED", providerRef: row.endToEndId, reason: row.reason ?? "not made" };

/** An end-to-end id in the Central Bank's shape: E + ISPB (8) + yyyyMMddHHmm + 11 random characters. */
function endToEndId(): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 12);
  return `E00000000${stamp}${randomBytes(6).toString("hex").slice(0, 11)}`;
}

/**
 * The sandbox's PSP: decides at once (a payment to SANDBOX_FAILING_PIX_KEY is not made, any other is)
 * and keeps what it was asked in its own table, as a real PSP does on its side, so a payout is made
 * once per id and can be read back after a crash.
 */
export const sandboxPayout: PixPayoutProvider = {
  name: "sandbox-pix",
  async send({ id, destination, valueCentavos }) {
    const key = "pixKey" in destination ? destination.pixKey : destination.brcode;
    // A BR Code pays the key it carries: the sandbox reads it to decide, as the recipient's bank would answer.
    const payee = "pixKey" in destination ? destination.pixKey : parseBrCode(destination.brcode).pixKey;
    const failing = payee?.toLowerCase() === SANDBOX_FAILING_PIX_KEY;
    const [inserted] = await db()
      .insert(sandboxPixPayouts)
      .values({
        id,
        destination: key,
        valueCentavos,
        status: failing ? "NAO_REALIZADO" : "REALIZADO",
        endToEndId: endToEndId(),
        reason: failing ? "Recipient bank rejected the transfer (sandbox failing key)" : null,
      })
      .onConflictDoNothing()
      .returning();
    // The same id again: the first request's outcome, never a second payment.
    return stateOf(inserted ?? (await payoutRow(id))!);
  },
  async read(id) {
    const row = await payoutRow(id);
    return row ? stateOf(row) : null;
  },
  // The sandbox's PSP account is the one its PIX collection and devoluções move too: every PIX
  // received at the service's key, less the devoluções made (ours and the MED's), less what it paid
  // out. Each comes from the table where the sandbox keeps what it did, so the balance follows what
  // happened and the solvency report can be checked against it.
  async balance() {
    const [row] = await db().execute<{ centavos: string }>(sql`
      select (
        coalesce((select sum(value_centavos) from pix_receipts), 0)
        - coalesce((select sum(value_centavos) from sandbox_pix_payouts where status = 'REALIZADO'), 0)
        - coalesce((select sum(value_centavos) from order_refunds where provider = ${sandboxPayout.name} and status = 'COMPLETED'), 0)
        - coalesce((select sum(value_centavos) from pix_returns where status = 'DEVOLVIDO'), 0)
      )::text as centavos`);
    return Number(row.centavos);
  },
  async decode() {
    // The sandbox's PSP issues static codes only, so any dynamic code came from a real PSP, whose
    // location the sandbox cannot read.
    throw new InvalidInput(
      "Dynamic PIX QR codes cannot be resolved in sandbox mode: use a static BR Code (with or without an amount)",
      { code: "brcode.dynamic" },
    );
  },
};

async function payoutRow(id: string): Promise<Row | undefined> {
  const [row] = await db().select().from(sandboxPixPayouts).where(eq(sandboxPixPayouts.id, id));
  return row;
}
