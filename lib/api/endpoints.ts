import { getAccountEndpoint, getAccountSettingsEndpoint, updateAccountSettingsEndpoint } from "@/lib/account/endpoints";
import { CHECKOUT_ENDPOINTS } from "@/lib/checkout/endpoints";
import { CRYPTO_PIX_ENDPOINTS } from "@/lib/crypto-pix/endpoints";
import type { Endpoint } from "@/lib/http/endpoint";
import { createRouter } from "@/lib/http/router";
import { MERCHANT_ENDPOINTS } from "@/lib/merchants/endpoints";
import { observeRequest, UNMATCHED_ROUTE } from "@/lib/metrics/http";
import { createDepositEndpoint, getDepositEndpoint } from "@/lib/onchain/endpoints";
import {
  createExchangeOrderEndpoint,
  createLightningOrderEndpoint,
  createPixOrderEndpoint,
  getOrderEndpoint,
  listOrdersEndpoint,
} from "@/lib/orders/endpoints";
import { EXCHANGE_WALLET_ENDPOINTS } from "@/lib/exchange-wallet/endpoints";
import { INVOICE_ENDPOINTS } from "@/lib/invoices/endpoints";
import { PAYMENT_LINK_ENDPOINTS } from "@/lib/payment-links/endpoints";
import { RECIPIENT_ENDPOINTS } from "@/lib/recipients/endpoints";
import { LIGHTNING_ENDPOINTS } from "@/lib/lightning/endpoints";
import { PIX_COLLECTION_ENDPOINTS } from "@/lib/pix-collection/endpoints";
import { refundOrderEndpoint } from "@/lib/refunds/endpoints";
import { SANDBOX_ENDPOINTS } from "@/lib/sandbox/endpoints";
import { SANDBOX_SUBSCRIPTION_ENDPOINTS, SUBSCRIPTION_ENDPOINTS } from "@/lib/subscriptions/endpoints";
import { WEBHOOK_ENDPOINTS } from "@/lib/webhooks/endpoints";
import {
  getWithdrawalEndpoint,
  listWithdrawalsEndpoint,
  onchainWithdrawEndpoint,
  pixOutEndpoint,
} from "@/lib/withdrawals/endpoints";
import { buildOpenApiDocument, openApiEndpoint } from "./openapi";

// The composition root of /api/v1: every endpoint, each declared once beside its domain. The router
// both serving paths use and the OpenAPI document are derived from this list; nothing else lists
// endpoints. The order is the document's.

export const API_ENDPOINTS: readonly Endpoint[] = [
  createDepositEndpoint,
  onchainWithdrawEndpoint,
  getDepositEndpoint,
  createPixOrderEndpoint,
  createExchangeOrderEndpoint,
  createLightningOrderEndpoint,
  pixOutEndpoint,
  getOrderEndpoint,
  refundOrderEndpoint,
  listOrdersEndpoint,
  ...INVOICE_ENDPOINTS,
  ...SUBSCRIPTION_ENDPOINTS,
  ...PAYMENT_LINK_ENDPOINTS,
  ...RECIPIENT_ENDPOINTS,
  ...CRYPTO_PIX_ENDPOINTS,
  getAccountEndpoint,
  getAccountSettingsEndpoint,
  updateAccountSettingsEndpoint,
  listWithdrawalsEndpoint,
  getWithdrawalEndpoint,
  ...MERCHANT_ENDPOINTS,
  ...SANDBOX_ENDPOINTS,
  ...SANDBOX_SUBSCRIPTION_ENDPOINTS,
  ...CHECKOUT_ENDPOINTS,
  openApiEndpoint(openApiJson),
  ...WEBHOOK_ENDPOINTS,
  ...PIX_COLLECTION_ENDPOINTS,
  ...LIGHTNING_ENDPOINTS,
  ...EXCHANGE_WALLET_ENDPOINTS,
];

export const apiRouter = createRouter(API_ENDPOINTS, {
  observe: (method, route, status, startedAt) => observeRequest(method, route ?? UNMATCHED_ROUTE, status, startedAt),
});

let documentJson: string | null = null;

/** The OpenAPI document as JSON text, built once per process: it depends only on code and start-up configuration. */
export function openApiJson(): string {
  return (documentJson ??= JSON.stringify(buildOpenApiDocument(API_ENDPOINTS)));
}
