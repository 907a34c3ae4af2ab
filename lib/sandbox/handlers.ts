import { randomBytes } from "node:crypto";
import { endpoint } from "@/lib/api/handler";
import { messageBody } from "@/lib/api/error-body";
import { decodeCryptoPixId } from "@/lib/api/ids";
import { json } from "@/lib/api/respond";
import { applyCryptoPixTransfer, findCryptoPixPayment, settleCryptoPixPayment } from "@/lib/crypto-pix/service";
import { cryptoPixView } from "@/lib/crypto-pix/views";
import { InvalidInput, NotFound } from "@/lib/errors";
import { Decimal } from "@/lib/money";
import { applyDepositTransfer, findDeposit } from "@/lib/onchain/service";
import { depositView } from "@/lib/onchain/views";
import { completeOrder, findOrder } from "@/lib/orders/service";
import { orderView } from "@/lib/orders/views";
import {
  transferBody,
  type SandboxCryptoPixTransferResponse,
  type SandboxOnchainTransferResponse,
  type SandboxPayOrderResponse,
  type TransferInput,
} from "./schemas";

// Sandbox helpers (CONTRACT §8): drive an order through its life without real money. They run the
// same service functions a real payment notification or chain watcher would.

/** A public test account (index 2 of the well-known test mnemonic) stands in for the payer. */
export const SANDBOX_PAYER_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

function checkPrecision(amount: string, decimals: number) {
  if (new Decimal(amount).decimalPlaces() > decimals) throw new InvalidInput(`amount has more than the token's ${decimals} decimals`);
}

function transferFor(body: TransferInput, target: { network: string; address: string; tokenAddress: string }) {
  return {
    network: target.network,
    txHash: body.txHash ?? `0x${randomBytes(32).toString("hex")}`,
    logIndex: 0,
    fromAddress: body.from ?? SANDBOX_PAYER_ADDRESS,
    toAddress: target.address,
    tokenAddress: target.tokenAddress,
    amount: body.amount,
  };
}

/** POST /api/v1/sandbox/orders/{id}/pay */
export const sandboxPayOrderHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  sandboxOnly: true,
  async handle({ merchant, params }) {
    // Order ids are UUIDs and payment link ids base62: anything else (a NUL byte, say) is not found
    // rather than an error from PostgreSQL.
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(params.id ?? "")) throw new NotFound("Order not found");
    const order = await findOrder(merchant.id, params.id);
    const paid = await completeOrder(order.id);
    const res: SandboxPayOrderResponse = { order: orderView(paid) };
    return json(200, res);
  },
});

/** POST /api/v1/sandbox/onchain/{paymentLinkId}/transfer */
export const sandboxOnchainTransferHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  sandboxOnly: true,
  body: transferBody,
  async handle({ merchant, params, body }) {
    const order = await findDeposit(merchant.id, params.paymentLinkId);
    checkPrecision(body.amount, order.tokenDecimals);
    const transfer = transferFor(body, order);
    const result = await applyDepositTransfer(order.id, transfer);
    const res: SandboxOnchainTransferResponse = {
      order: depositView(result.order),
      transfer: { txHash: transfer.txHash, amount: Number(body.amount), applied: Number(result.applied), unapplied: Number(result.unapplied), duplicate: result.duplicate },
    };
    return json(200, res);
  },
});

/** POST /api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer */
export const sandboxCryptoPixTransferHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  sandboxOnly: true,
  body: transferBody,
  async handle({ merchant, params, body }) {
    const id = decodeCryptoPixId(params.payCryptoPixId ?? "");
    if (!id) throw new NotFound("Crypto-PIX payment not found");
    const payment = await findCryptoPixPayment(merchant.id, id);
    checkPrecision(body.amount, payment.tokenDecimals);
    const transfer = transferFor(body, payment);
    const result = await applyCryptoPixTransfer(payment.id, transfer);
    const after = result.fullyPaid ? await settleCryptoPixPayment(payment.id, { failPix: body.failPix }) : result.payment;
    const res: SandboxCryptoPixTransferResponse = {
      payment: cryptoPixView(after),
      transfer: { txHash: transfer.txHash, amount: Number(body.amount), duplicate: result.duplicate },
    };
    return json(200, res);
  },
});
