import { Decimal, toBaseUnits } from "@/lib/money";
import { chainId } from "./config";
import type { Network } from "@/lib/chain/tokens";

type OpenDeposit = {
  tokenAddress: string;
  network: string;
  address: string;
  cryptoAmount: string;
  receivedAmount: string;
  tokenDecimals: number;
};

/**
 * EIP-681 request for what is still due on a deposit: a wallet that scans it pre-fills the token, the
 * recipient and the exact amount, for the chain id transactions are signed for here (EVM_CHAIN_ID_*
 * included), so a payer who already sent part is not asked for the whole again.
 */
export function depositTransferUri(d: OpenDeposit): string {
  const due = Decimal.max(0, new Decimal(d.cryptoAmount).minus(d.receivedAmount)).toFixed();
  return `ethereum:${d.tokenAddress}@${chainId(d.network as Network)}/transfer?address=${d.address}&uint256=${toBaseUnits(due, d.tokenDecimals)}`;
}
