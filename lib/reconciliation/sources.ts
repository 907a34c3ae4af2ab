import type { ReconSource, ReconSourceName } from "./run";
import { chain } from "./source-chain";
import { exchange } from "./source-exchange";
import { lightning } from "./source-lightning";
import { pixReceived } from "./source-pix-received";
import { pixSent } from "./source-pix-sent";

// What each provider's records are matched against (docs/operations.md "Reconciliation"):
//   pix_received  API Pix GET /pix (every page) ↔ pix_receipts, by end-to-end id; each listed devolução
//                 ↔ our refund (its id is ours) or the recorded MED devolução (pix_returns). Devoluções are
//                 listed inside their Pix, so they are reconciled on the day their Pix was paid.
//   pix_sent      Efí GET /v2/gn/pix/enviados (every page) ↔ pix_payouts, by idEnvio (our payout's id).
//   exchange      Binance Pay's order and refund queries, by our ids (its merchant API lists nothing) ↔
//                 orders of kind exchange (with their refunds) and order_refunds.
//   lightning     LND GET /v1/invoices (every page, by add index), its settled invoices ↔ Lightning orders'
//                 receipts and Crypto-PIX hold invoices, by payment hash, in satoshis.
//   chain         each live network's ERC-20 Transfer logs to our deposit addresses over the day's blocks
//                 (eth_getLogs, a block range a page) ↔ chain_transfers, by (network, tx hash, log index);
//                 and those from the hot wallet to the addresses it ever paid ↔ chain_txs, by mined hash.
// Each source is a module of its own: ./source-<name>.ts.

/** Every source this service can reconcile, by name. */
export function reconSources(): Record<ReconSourceName, ReconSource | null> {
  return {
    pix_received: pixReceived(),
    pix_sent: pixSent(),
    exchange: exchange(),
    lightning: lightning(),
    chain: chain(),
  };
}
