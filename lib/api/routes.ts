import { getAccountHandler } from "@/lib/account/handlers";
import { getCryptoPixHandler, payCryptoPixHandler } from "@/lib/crypto-pix/handlers";
import { createDepositHandler, getDepositHandler } from "@/lib/onchain/handlers";
import {
  createExchangeOrderHandler,
  createLightningOrderHandler,
  createPixOrderHandler,
  getOrderHandler,
  listOrdersHandler,
} from "@/lib/orders/handlers";
import { publicPaymentHandler, publicPaymentQrHandler } from "@/lib/public/handlers";
import { sandboxCryptoPixTransferHandler, sandboxOnchainTransferHandler, sandboxPayOrderHandler } from "@/lib/sandbox/handlers";
import { getWithdrawalHandler, listWithdrawalsHandler, onchainWithdrawHandler, pixOutHandler } from "@/lib/withdrawals/handlers";
import { adminCreateMerchant, adminUpdateMerchant } from "@/lib/merchants/handlers";
import {
  createWebhookHandler,
  deleteWebhookHandler,
  listDeliveriesHandler,
  listEventsHandler,
  listWebhooksHandler,
  redeliverHandler,
} from "@/lib/webhooks/handlers";
import type { RouteHandler } from "./handler";
import { openApiHandler } from "./openapi-handler";

/**
 * Every /api/v1 route: its method, its path as the app/ folder spells it, and its handler. The
 * app/api/v1 route files export exactly these (a test checks), and anything that serves the API
 * without Next (tests, a lean server) dispatches through this table.
 */
export const API_ROUTES: { method: string; path: string; handler: RouteHandler }[] = [
  { method: "POST", path: "/api/v1/onchain/deposit", handler: createDepositHandler },
  { method: "POST", path: "/api/v1/onchain/withdraw/initiate", handler: onchainWithdrawHandler },
  { method: "GET", path: "/api/v1/onchain/order/[id]", handler: getDepositHandler },
  { method: "POST", path: "/api/v1/order/create/pix", handler: createPixOrderHandler },
  { method: "POST", path: "/api/v1/order/create", handler: createExchangeOrderHandler },
  { method: "POST", path: "/api/v1/order/create/lightning", handler: createLightningOrderHandler },
  { method: "POST", path: "/api/v1/order/pix-out", handler: pixOutHandler },
  { method: "GET", path: "/api/v1/order/[id]", handler: getOrderHandler },
  { method: "GET", path: "/api/v1/orders", handler: listOrdersHandler },
  { method: "POST", path: "/api/v1/crypto-pix/onchain/pay", handler: payCryptoPixHandler },
  { method: "GET", path: "/api/v1/crypto-pix/order/[id]", handler: getCryptoPixHandler },
  { method: "GET", path: "/api/v1/account", handler: getAccountHandler },
  { method: "GET", path: "/api/v1/withdrawals", handler: listWithdrawalsHandler },
  { method: "GET", path: "/api/v1/withdrawals/[id]", handler: getWithdrawalHandler },
  { method: "POST", path: "/api/v1/admin/merchants", handler: adminCreateMerchant },
  { method: "PATCH", path: "/api/v1/admin/merchants/[id]", handler: adminUpdateMerchant },
  { method: "POST", path: "/api/v1/sandbox/orders/[id]/pay", handler: sandboxPayOrderHandler },
  { method: "POST", path: "/api/v1/sandbox/onchain/[paymentLinkId]/transfer", handler: sandboxOnchainTransferHandler },
  { method: "POST", path: "/api/v1/sandbox/crypto-pix/[payCryptoPixId]/transfer", handler: sandboxCryptoPixTransferHandler },
  { method: "GET", path: "/api/v1/public/payments/[paymentLinkId]", handler: publicPaymentHandler },
  { method: "GET", path: "/api/v1/public/payments/[paymentLinkId]/qr.png", handler: publicPaymentQrHandler },
  { method: "GET", path: "/api/v1/openapi.json", handler: openApiHandler },
  { method: "POST", path: "/api/v1/webhooks", handler: createWebhookHandler },
  { method: "GET", path: "/api/v1/webhooks", handler: listWebhooksHandler },
  { method: "DELETE", path: "/api/v1/webhooks/[id]", handler: deleteWebhookHandler },
  { method: "GET", path: "/api/v1/webhooks/[id]/deliveries", handler: listDeliveriesHandler },
  { method: "POST", path: "/api/v1/webhooks/[id]/deliveries/[deliveryId]/redeliver", handler: redeliverHandler },
  { method: "GET", path: "/api/v1/events", handler: listEventsHandler },
];

type Compiled = { method: string; pattern: RegExp; names: string[]; handler: RouteHandler; specificity: number };

const compiled: Compiled[] = API_ROUTES.map((r) => {
  const names: string[] = [];
  const segments = r.path.split("/").filter(Boolean);
  const pattern = segments
    .map((s) => {
      const m = /^\[(.+)\]$/.exec(s);
      if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(m[1]);
      return "([^/]+)";
    })
    .join("/");
  // Static segments win over dynamic ones, as in Next's router.
  const specificity = segments.filter((s) => !s.startsWith("[")).length;
  return { method: r.method, pattern: new RegExp(`^/${pattern}/?$`), names, handler: r.handler, specificity };
}).sort((a, b) => b.specificity - a.specificity);

export type RouteMatch = { handler: RouteHandler; params: Record<string, string> } | { methodNotAllowed: string[] } | null;

// Routes grouped by their first segment after /api/v1, each group with the routes whose first segment
// is dynamic ("*") merged in and kept most specific first, so a request only tries the handful that
// could match. Built once: nothing is allocated or sorted per request.
const byFirstSegment = new Map<string, Compiled[]>();
for (const r of compiled) {
  const first = r.pattern.source.split("/")[3] ?? "";
  const key = first.startsWith("(") ? "*" : first.replace(/\\/g, "");
  byFirstSegment.set(key, [...(byFirstSegment.get(key) ?? []), r]);
}
const dynamicFirst = byFirstSegment.get("*") ?? [];
for (const [key, routes] of byFirstSegment) {
  if (key !== "*") byFirstSegment.set(key, [...routes, ...dynamicFirst].sort((a, b) => b.specificity - a.specificity));
}

function candidates(pathname: string): Compiled[] {
  return byFirstSegment.get(pathname.split("/", 4)[3] ?? "") ?? dynamicFirst;
}

/** Finds the handler for a method and path, with decoded params. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  for (const r of candidates(pathname)) {
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    if (r.method !== method) {
      allowed.push(r.method);
      continue;
    }
    const params: Record<string, string> = {};
    r.names.forEach((n, i) => {
      try {
        params[n] = decodeURIComponent(m[i + 1]);
      } catch {
        params[n] = m[i + 1];
      }
    });
    // Candidates run from most to least specific: the first match for the method is the route.
    return { handler: r.handler, params };
  }
  return allowed.length ? { methodNotAllowed: allowed } : null;
}
