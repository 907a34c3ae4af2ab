import "server-only";
import { eq, inArray } from "drizzle-orm";
import { db } from "@/db";
import { merchants, payoutDestinations, type Merchant, type Withdrawal } from "@/db/schema";
import { tokenFor, ASSETS, type Asset } from "@/lib/chain/tokens";
import { maskPixKey } from "@/lib/pix/keys";
import { liveNetworks } from "@/lib/chain/config";
import { env } from "@/lib/env";
import { providers } from "@/lib/providers";
import { railEnabled } from "@/lib/providers/rails";
import { remainingLimits } from "@/lib/withdrawals/limits";
import { listWithdrawals } from "@/lib/withdrawals/service";
import { shownBalance } from "@/lib/ledger/ledger";

// What the withdrawal forms need to show the fee breakdown and the limits before submitting, and
// the history. The figures are quotes: the service fixes the real ones when the request is accepted.

export const WITHDRAW_NETWORKS = ["bsc", "polygon"] as const;
export type WithdrawNetwork = (typeof WITHDRAW_NETWORKS)[number];

export type WithdrawalRow = {
  id: string;
  kind: Withdrawal["kind"];
  status: Withdrawal["status"];
  valueCentavos: number;
  feesCentavos: number;
  debitCentavos: number;
  destination: string;
  network: string | null;
  token: string | null;
  tokenAmount: string | null;
  txHash: string | null;
  failureReason: string | null;
  /** Why a PENDING withdrawal is not sent yet (a new destination, or the hot wallet cannot pay it now). */
  waitingReason: string | null;
  /** Waiting for a new destination: until when its hold lasts (ISO); the merchant may cancel it meanwhile. */
  waitingUntil: string | null;
  createdAt: string;
};

export type WithdrawalState = {
  balanceCentavos: number;
  limits: Awaited<ReturnType<typeof remainingLimits>>;
  history: WithdrawalRow[];
};

export type WithdrawalQuotes = {
  /** What this server can send now (live mode has the rails it is configured with: docs/api.md#live-mode-rails). */
  kinds: ("pix" | "onchain")[];
  /** Networks an on-chain withdrawal can go to. */
  networks: WithdrawNetwork[];
  registeredKey: string | null;
  networkFees: Record<WithdrawNetwork, number>;
  /** BRL per token, decimal strings. */
  rates: Partial<Record<Asset, string>>;
  /** Tokens available per network. */
  tokens: Record<WithdrawNetwork, Asset[]>;
  decimals: Record<WithdrawNetwork, Partial<Record<Asset, number>>>;
};

function row(w: Withdrawal, holds: Map<string, Date | null>): WithdrawalRow {
  return {
    id: w.id,
    kind: w.kind,
    status: w.status,
    valueCentavos: w.valueCentavos,
    feesCentavos: w.serviceFeeCentavos + w.networkFeeCentavos,
    debitCentavos: w.debitCentavos,
    destination: w.kind === "onchain" ? (w.toAddress ?? "") : maskPixKey(w.pixKey ?? ""),
    network: w.network,
    token: w.token,
    tokenAmount: w.tokenAmount,
    txHash: w.txHash,
    failureReason: w.failureReason,
    waitingReason: w.status === "PENDING" ? w.waitingReason : null,
    waitingUntil:
      w.status === "PENDING" && w.waitingDestinationId
        ? (holds.get(w.waitingDestinationId)?.toISOString() ?? w.createdAt.toISOString())
        : null,
    createdAt: w.createdAt.toISOString(),
  };
}

/** Balance, limits left today and the latest withdrawals: what the page polls. */
export async function getWithdrawalState(merchantId: string): Promise<WithdrawalState> {
  const [merchant] = await db()
    .select({ id: merchants.id, accountType: merchants.accountType, balance: shownBalance() })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const [limits, { withdrawals }] = await Promise.all([remainingLimits(merchant), listWithdrawals(merchantId, 50)]);
  const waitingFor = withdrawals.flatMap((w) => (w.waitingDestinationId ? [w.waitingDestinationId] : []));
  const holds = new Map(
    waitingFor.length === 0
      ? []
      : (
          await db()
            .select({ id: payoutDestinations.id, holdUntil: payoutDestinations.holdUntil })
            .from(payoutDestinations)
            .where(inArray(payoutDestinations.id, waitingFor))
        ).map((d) => [d.id, d.holdUntil]),
  );
  return { balanceCentavos: merchant.balance, limits, history: withdrawals.map((w) => row(w, holds)) };
}

/** Network fees and rates quoted now, for the forms' breakdown. */
export async function getWithdrawalQuotes(merchant: Merchant): Promise<WithdrawalQuotes> {
  const kinds = [
    ...(railEnabled("pix_out") ? (["pix"] as const) : []),
    ...(railEnabled("onchain_withdrawal") ? (["onchain"] as const) : []),
  ];
  const networks = WITHDRAW_NETWORKS.filter((n) => env().PAYMENTS_MODE === "sandbox" || liveNetworks().includes(n));
  if (!kinds.includes("onchain")) {
    const none = { bsc: [], polygon: [] };
    return {
      kinds,
      networks: [],
      registeredKey: merchant.pixKey ? maskPixKey(merchant.pixKey) : null,
      networkFees: { bsc: 0, polygon: 0 },
      rates: {},
      tokens: none,
      decimals: { bsc: {}, polygon: {} },
    };
  }
  const { chain, rates } = providers();
  const [bscFee, polygonFee, ...quotes] = await Promise.all([
    networks.includes("bsc") ? chain.quoteNetworkFeeCentavos("bsc") : 0,
    networks.includes("polygon") ? chain.quoteNetworkFeeCentavos("polygon") : 0,
    ...ASSETS.map((a) => rates.quote(a)),
  ]);
  const tokens = {} as Record<WithdrawNetwork, Asset[]>;
  const decimals = {} as Record<WithdrawNetwork, Partial<Record<Asset, number>>>;
  for (const n of WITHDRAW_NETWORKS) {
    tokens[n] = ASSETS.filter((a) => tokenFor(n, a) !== null);
    decimals[n] = Object.fromEntries(tokens[n].map((a) => [a, tokenFor(n, a)!.decimals]));
  }
  return {
    kinds,
    networks,
    registeredKey: merchant.pixKey ? maskPixKey(merchant.pixKey) : null,
    networkFees: { bsc: bscFee, polygon: polygonFee },
    rates: Object.fromEntries(ASSETS.map((a, i) => [a, quotes[i].rate])),
    tokens,
    decimals,
  };
}
