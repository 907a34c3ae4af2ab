import Decimal from "decimal.js";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, like } from "drizzle-orm";
import { db } from "@/db";
import { mailOutbox, orders, solvencyReports } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { ledgerSum, postLedgerEntry } from "@/lib/ledger/ledger";
import { metricsRegistry } from "@/lib/metrics/registry";
import { registerCollectors } from "@/lib/ops/collectors";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { computeSolvency, takeSolvencyReport, type SolvencyReport } from "@/lib/treasury/solvency";
import { efiPayout } from "@/lib/providers/payout/efi";
import { pixLiveEnv } from "./fixtures/pix-psp/live-env";
import { startPixPsp } from "./fixtures/pix-psp/server";
import { watchDeposits } from "@/lib/worker";
import { account, startAnvil } from "./fixtures/anvil";
import { CONFIRMATIONS, randomAddress, useLocalChain } from "./fixtures/local-chain";
import { api, seedMerchant } from "./helpers";
import { liveMerchant } from "./support/merchants";

// The solvency report against the sandbox providers, whose balances follow what happened: after a
// mixed run (PIX paid, refunded and sent, an exchange-wallet and a Lightning order, an on-chain
// deposit and withdrawal) what the books owe is what the providers hold, the service's fees aside;
// a credit with no money behind it is a shortfall: flagged, the gauge set, one mail per crossing.
//
// Test files share one database, run one after another: what earlier files left (balances seeded
// with ledger adjustments and no money behind them) is a shortfall already. So the figures here are
// compared with a report taken first, and the tolerance is raised by that opening shortfall.

const OPERATOR = `solvency-${randomUUID().slice(0, 8)}@pixcrypto.example`;
const saved: Record<string, string | undefined> = {};
let opening: SolvencyReport;

function setEnv(vars: Record<string, string>) {
  for (const [k, v] of Object.entries(vars)) {
    if (!(k in saved)) saved[k] = process.env[k];
    process.env[k] = v;
  }
  resetEnvForTests();
}

beforeAll(async () => {
  registerCollectors();
  setEnv({ OPERATOR_ALERT_EMAIL: OPERATOR });
  opening = await computeSolvency();
  // 1 real of rounding (Lightning's satoshis, a withdrawal's tokens) on top of what was there.
  setEnv({ SOLVENCY_TOLERANCE_CENTAVOS: String(opening.shortfallCentavos + 100), SOLVENCY_TOLERANCE_PERCENT: "0" });
});

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvForTests();
});

/** One kind of line (optionally of one asset), summed. */
const line = (r: SolvencyReport, kind: string, asset?: string) =>
  r.lines.filter((l) => l.kind === kind && (!asset || l.asset === asset)).reduce((a, l) => a + l.centavos, 0);
const delta = (r: SolvencyReport, kind: string, asset?: string) => line(r, kind, asset) - line(opening, kind, asset);

async function gauge(name: string): Promise<number | undefined> {
  const metric = metricsRegistry.getSingleMetric(name);
  return (await metric!.get()).values[0]?.value;
}

async function alertMails(): Promise<number> {
  const rows = await db()
    .select()
    .from(mailOutbox)
    .where(
      and(eq(mailOutbox.toAddress, OPERATOR), like(mailOutbox.subject, "%solvency: assets short of liabilities%")),
    );
  return rows.length;
}

async function paidOrder(apiKey: string, path: string, value: number): Promise<string> {
  const created = await api("POST", path, { apiKey, body: { value } });
  expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
  const id: string = created.body.pixOrder?._id ?? created.body.order?.id;
  const paid = await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return id;
}

// Each report rounds each valued crypto line once (Lightning, the hot wallet's USDT, the deposit
// addresses' USDT), so against an opening report that already held some of the same coins, the
// difference of two rounded figures can be a centavo off per line.
const ROUNDED_LINES = 3;

describe("solvency report (sandbox providers)", () => {
  let merchantId: string;
  let fees = 0;

  it("after a mixed run the books and the providers agree: the report balances, within the tolerance", async () => {
    const { merchant, apiKey } = await seedMerchant();
    merchantId = merchant.id;

    // PIX: 150 + 80.50 + 40 received, 50 refunded, 100 sent out by a pix-out.
    const first = await paidOrder(apiKey, "/api/v1/order/create/pix", 150);
    await paidOrder(apiKey, "/api/v1/order/create/pix", 80.5);
    await paidOrder(apiKey, "/api/v1/order/create/pix", 40);
    const refund = await api("POST", `/api/v1/order/${first}/refund`, { apiKey, body: { value: 50 } });
    expect(refund.body.refund, JSON.stringify(refund.body)).toMatchObject({ value: 50, status: "COMPLETED" });
    const out = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 10_000 } });
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    expect(await processWithdrawal(out.body.id)).toBe(true);

    // The other rails: an exchange-wallet order, a Lightning invoice, 100 USDT deposited on polygon
    // (540 at 5.40) and a 50 BRL withdrawal of USDT (debited 50 + 0.25 + 0.05 of fees).
    await paidOrder(apiKey, "/api/v1/order/create", 30);
    await paidOrder(apiKey, "/api/v1/order/create/lightning", 25.5);
    const dep = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 540, asset: "USDT", network: "polygon" },
    });
    expect(dep.status, JSON.stringify(dep.body)).toBe(201);
    const sent = await api("POST", `/api/v1/sandbox/onchain/${dep.body.order.paymentLinkId}/transfer`, {
      apiKey,
      body: { amount: "100" },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const w = await api("POST", "/api/v1/onchain/withdraw/initiate", {
      apiKey,
      body: { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 50, network: "polygon" },
    });
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    expect(await processWithdrawal(w.body.id)).toBe(true);
    fees = 30; // the on-chain withdrawal's service (25) and network (5) fees stay with the service

    const owed = await ledgerSum(db(), merchant.id);
    expect(owed).toBe(15_000 + 8_050 + 4_000 - 5_000 - 10_000 + 3_000 + 2_550 + 54_000 - 5_030);

    const report = await takeSolvencyReport();
    // Nothing this run made is left unread. Earlier files can leave what the opening report could not
    // read already (anvil deploys its tokens at the same addresses in every file, with other decimals).
    expect(report.notRead.filter((l) => !opening.notRead.includes(l))).toEqual([]);
    // What the merchant is owed, and nothing in flight: every refund and payout was decided.
    expect(delta(report, "merchant_balances")).toBe(owed);
    expect(delta(report, "pix_withdrawals_in_flight")).toBe(0);
    expect(delta(report, "order_refunds_in_flight")).toBe(0);
    // What the sandbox providers hold: the PSP 150 + 80.50 + 40 − 50 − 100, the exchange wallet 30,
    // the node the invoice's satoshis (at the rate they were priced at, rounded down), the chain 100
    // USDT in at the deposit address and 9.259259 out of the hot wallet.
    expect(delta(report, "psp")).toBe(12_050);
    expect(delta(report, "exchange_wallet")).toBe(3_000);
    expect(Math.abs(delta(report, "lightning") - 2_550)).toBeLessThanOrEqual(1);
    // Summed: the sandbox's deposit address at index 1 is the hot wallet's own (earlier files may have used index 0).
    // 100 in at 5.40; 9.259259 out: −49.9999986 reais, rounded down (an asset never rounds up) to −50.00.
    if (delta(report, "deposit_addresses", "USDT") !== 0)
      expect(delta(report, "deposit_addresses", "USDT")).toBe(54_000);
    const chain = delta(report, "deposit_addresses", "USDT") + delta(report, "hot_wallet", "USDT");
    // Exact when run alone; each report rounds its line once, so against an opening balance it may be a centavo off.
    expect(Math.abs(chain - (54_000 - 5_000))).toBeLessThanOrEqual(1);
    const surplus =
      report.assetsCentavos - report.liabilitiesCentavos - (opening.assetsCentavos - opening.liabilitiesCentavos);
    expect(surplus).toBeGreaterThanOrEqual(fees - ROUNDED_LINES);
    expect(surplus).toBeLessThanOrEqual(fees + ROUNDED_LINES);

    expect(report.shortfallCentavos).toBeLessThanOrEqual(opening.shortfallCentavos);
    expect(report.short).toBe(false);
    expect(report.alerted).toBe(false);
    const [stored] = await db().select().from(solvencyReports).where(eq(solvencyReports.id, report.id!));
    expect(stored).toMatchObject({
      liabilitiesCentavos: report.liabilitiesCentavos,
      assetsCentavos: report.assetsCentavos,
      short: false,
    });
    expect(await gauge("payments_solvency_liabilities_brl_centavos")).toBe(report.liabilitiesCentavos);
    expect(await gauge("payments_solvency_assets_brl_centavos")).toBe(report.assetsCentavos);
    expect(await gauge("payments_solvency_shortfall")).toBe(0);
    expect(await alertMails()).toBe(0);
  });

  it("a credit with no money behind it is a shortfall: flagged, the gauge set, one mail per crossing", async () => {
    // R$ 1.000,00 credited by hand, as a mistaken adjustment would: owed, and held nowhere.
    await db().transaction((tx) =>
      postLedgerEntry(tx, {
        merchantId,
        kind: "adjustment",
        amountCentavos: 100_000,
        refType: "test",
        refId: randomUUID(),
        description: "credit with nothing behind it",
      }),
    );
    const short = await takeSolvencyReport();
    expect(short.short).toBe(true);
    expect(short.alerted).toBe(true);
    expect(short.shortfallCentavos).toBeGreaterThan(short.toleranceCentavos);
    expect(short.shortfallCentavos - opening.shortfallCentavos).toBeGreaterThanOrEqual(100_000 - fees - ROUNDED_LINES);
    expect(await gauge("payments_solvency_shortfall")).toBe(1);
    expect(await gauge("payments_solvency_liabilities_brl_centavos")).toBe(short.liabilitiesCentavos);

    // Still short an hour later: no second mail.
    const again = await takeSolvencyReport();
    expect(again).toMatchObject({ short: true, alerted: false });
    expect(await alertMails()).toBe(1);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, OPERATOR));
    expect(mail.body).toContain("merchant_balances");
    expect(mail.body).toContain("treasury solvency");

    // Put right (the adjustment reversed): back within the tolerance, and the next crossing mails again.
    await db().transaction((tx) =>
      postLedgerEntry(tx, {
        merchantId,
        kind: "adjustment",
        amountCentavos: -100_000,
        refType: "test",
        refId: randomUUID(),
        description: "reversed",
      }),
    );
    expect(await takeSolvencyReport()).toMatchObject({ short: false, alerted: false });
    expect(await gauge("payments_solvency_shortfall")).toBe(0);
    await db().transaction((tx) =>
      postLedgerEntry(tx, {
        merchantId,
        kind: "adjustment",
        amountCentavos: 100_000,
        refType: "test",
        refId: randomUUID(),
        description: "again",
      }),
    );
    expect(await takeSolvencyReport()).toMatchObject({ short: true, alerted: true });
    expect(await alertMails()).toBe(2);
  });
});

describe("solvency report (live PIX at the test PSP)", () => {
  it("the PSP line is Efí's GET /v2/gn/saldo: what the account received, less what it sent, as Efí answers it", async () => {
    const psp = await startPixPsp({ receiverKey: "solvency@pixcrypto.example", quiet: true });
    const env = { ...process.env };
    try {
      Object.assign(
        process.env,
        pixLiveEnv(psp, {
          receiverKey: "solvency@pixcrypto.example",
          payoutKey: "solvency@pixcrypto.example",
          webhookToken: "solvency-webhook-token-0123456789abcdef",
        }),
      );
      resetEnvForTests();
      expect(await efiPayout.balance!()).toBe(0);
      const { apiKey } = await liveMerchant();
      const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 150 } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const [order] = await db().select().from(orders).where(eq(orders.id, created.body.pixOrder._id));
      await psp.pay(order.txid!, { notify: false });
      // A PIX sent from Efí's portal leaves the same account.
      psp.sendElsewhere({ valor: "40.25", favorecido: "someone@example.com" });
      expect(await efiPayout.balance!()).toBe(15_000 - 4_025);
      const saldo = psp.requests.filter((r) => r.path === "/v2/gn/saldo");
      expect(saldo.at(-1)).toMatchObject({ method: "GET", status: 200 });

      // Money taken from the account outside both APIs: the report's PSP line follows Efí's figure.
      psp.faults.saldoOffsetCentavos = -10_000;
      const report = await computeSolvency();
      expect(line(report, "psp")).toBe(15_000 - 4_025 - 10_000);
      // No balance call for the rails this server does not have: named, never a figure made up.
      expect(report.notRead.some((n) => n.startsWith("exchange_wallet:"))).toBe(true);
      expect(report.notRead.some((n) => n.startsWith("lightning:"))).toBe(true);
      expect(psp.violations).toEqual([]);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
      Object.assign(process.env, env);
      resetEnvForTests();
      await psp.close();
    }
  });
});

describe("solvency report (polygon on a local node)", () => {
  it("the hot wallet and the deposit addresses are read from the node at one block: its figures, not the books'", async () => {
    const anvil = await startAnvil();
    const usdt = await anvil.deployToken(6, "USDT");
    const chain = await useLocalChain(anvil, ["polygon"], { polygon: { USDT: { address: usdt, decimals: 6 } } });
    try {
      const payer = account(3);
      // Exactly what it sends: test payers are accounts of the deposit key too (the test mnemonic), so in
      // the suite's shared database another file's order may hold the payer's address as its deposit
      // address, and whatever the payer kept would count among the deposit addresses.
      await anvil.mint(usdt, payer.address, 10_000_000n);
      await anvil.mint(usdt, chain.hotWallet.address, 30_000_000n);
      const { apiKey } = await seedMerchant();
      const dep = await api("POST", "/api/v1/onchain/deposit", {
        apiKey,
        body: { value: 54, asset: "USDT", network: "polygon" },
      });
      expect(dep.status, JSON.stringify(dep.body)).toBe(201);
      await anvil.transfer(usdt, payer, dep.body.order.address, 10_000_000n);
      await anvil.mine(CONFIRMATIONS);
      await watchDeposits("polygon");
      // 5 USDT more that the watcher never recorded (minted straight to the address): held all the same,
      // once confirmed (the chain is read where the books stand: at the confirmed head).
      await anvil.mint(usdt, dep.body.order.address, 5_000_000n);
      await anvil.mine(CONFIRMATIONS);

      const report = await computeSolvency();
      const polygon = report.lines.filter((l) => l.network === "polygon" && l.asset === "USDT");
      expect(polygon.find((l) => l.kind === "hot_wallet")).toMatchObject({
        amount: "30",
        centavos: 16_200,
        rate: "5.40",
      });
      expect(polygon.find((l) => l.kind === "deposit_addresses")).toMatchObject({ amount: "15", centavos: 8_100 });
    } finally {
      chain.restore();
      await anvil.stop();
    }
  });

  it("assets and liabilities at the same point: a withdrawal mined but not confirmed is no shortfall; tokens that left in a transfer the books do not owe are, once confirmed", async () => {
    const anvil = await startAnvil();
    const usdt = await anvil.deployToken(6, "USDT");
    const chain = await useLocalChain(anvil, ["polygon"], { polygon: { USDT: { address: usdt, decimals: 6 } } });
    try {
      await anvil.mint(usdt, chain.hotWallet.address, 100_000_000n);
      await anvil.mine(CONFIRMATIONS);
      const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
      const gap = (r: SolvencyReport) => r.liabilitiesCentavos - r.assetsCentavos;
      const hot = (r: SolvencyReport) =>
        r.lines.find((l) => l.network === "polygon" && l.asset === "USDT" && l.kind === "hot_wallet")?.amount;
      const before = await computeSolvency();
      expect(hot(before)).toBe("100");

      // 10 USDT (R$ 54) out: mined at once by the node, 1 confirmation of CONFIRMATIONS.
      const w = await api("POST", "/api/v1/onchain/withdraw/initiate", {
        apiKey,
        body: { network: "polygon", toAddress: randomAddress(), value: 54, token: "USDT" },
      });
      expect(w.status, JSON.stringify(w.body)).toBe(200);
      await anvil.client.waitForTransactionReceipt({ hash: w.body.transactionHash });
      const mined = await computeSolvency();
      // Still owed (in flight) and still held where the books stand: the gap only shrinks by the fees kept.
      expect(hot(mined)).toBe("100");
      // The report covers every merchant of the database, which earlier files in this worker share (their
      // tokens at other addresses, one line each): what this withdrawal added is the difference of the sums.
      const inFlight = (r: SolvencyReport) => {
        const lines = r.lines.filter((l) => l.kind === "onchain_withdrawals_in_flight" && l.network === "polygon");
        return {
          n: lines.length,
          centavos: lines.reduce((sum, l) => sum + l.centavos, 0),
          amount: lines.reduce((sum, l) => sum.plus(l.amount ?? 0), new Decimal(0)),
        };
      };
      expect(inFlight(mined).n).toBeGreaterThan(0);
      expect(inFlight(mined).centavos - inFlight(before).centavos).toBe(5400);
      expect(inFlight(mined).amount.minus(inFlight(before).amount).toString()).toBe("10");
      expect(gap(mined)).toBeLessThan(gap(before));

      // The key moves 20 USDT (R$ 108) in a transfer none of ours: no liability went with it.
      const outside = await anvil.transfer(usdt, chain.hotWallet, randomAddress(), 20_000_000n);
      expect(outside.blockNumber).toBeGreaterThan(0n);
      await anvil.mine(CONFIRMATIONS);
      expect(await processWithdrawal(w.body.id)).toBe(true);
      const confirmed = await computeSolvency();
      expect(hot(confirmed)).toBe("70");
      // Our withdrawal, confirmed, left both sides; the outside transfer only the assets: R$ 108 short.
      expect(gap(confirmed) - gap(mined)).toBe(10_800);
    } finally {
      chain.restore();
      await anvil.stop();
    }
  });
});
