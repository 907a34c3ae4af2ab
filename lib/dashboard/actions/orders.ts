"use server";

import { createCryptoPixPayment } from "@/lib/crypto-pix/service";
import { actorOf } from "@/lib/identity/dashboard/session";
import { getLocale } from "@/lib/i18n/server";
import { createDeposit } from "@/lib/onchain/service";
import { createExchangeOrder, createLightningOrder, createPixOrder } from "@/lib/orders/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { payInFull } from "@/lib/sandbox/service";
import {
  cryptoPixOrderForm,
  DECIMAL_FIELDS,
  depositOrderForm,
  exchangeOrderForm,
  lightningOrderForm,
  orderIdForm,
  pixOrderForm,
} from "../schemas";

// Each kind of order through the same service call its API endpoint makes, with the signed-in
// merchant; on success the order's page shows the QR, code, link and countdown.

const opts = { decimalFields: DECIMAL_FIELDS, permission: "orders.create" as const };
const toOrder = (id: string) => ({ redirectTo: `/dashboard/orders/${id}` });

export const createPixOrderAction = merchantAction(
  pixOrderForm,
  async (input, { merchant }) => toOrder((await createPixOrder(merchant, input)).id),
  opts,
);

export const createExchangeOrderAction = merchantAction(
  exchangeOrderForm,
  async (input, { merchant }) => toOrder((await createExchangeOrder(merchant, input)).id),
  opts,
);

export const createLightningOrderAction = merchantAction(
  lightningOrderForm,
  async (input, { merchant }) => toOrder((await createLightningOrder(merchant, input)).id),
  opts,
);

export const createDepositAction = merchantAction(
  depositOrderForm,
  async (input, { merchant }) => toOrder((await createDeposit(merchant, input)).id),
  opts,
);

export const createCryptoPixAction = merchantAction(
  cryptoPixOrderForm,
  async (input, signedIn) => {
    // A pasted refund address is a destination the merchant chose: held and announced when new.
    const origin = {
      channel: "dashboard" as const,
      actor: { ...actorOf(signedIn), merchantId: signedIn.merchant.id },
      locale: await getLocale(),
    };
    return toOrder((await createCryptoPixPayment(signedIn.merchant, input, origin)).id);
  },
  opts,
);

/** Sandbox only: pays what is still due, like the sandbox API helpers. */
export const simulatePaymentAction = merchantAction(
  orderIdForm,
  async ({ id }, { merchant }) => {
    await payInFull(merchant.id, id);
    return { data: { id }, message: "order.simulated" as const };
  },
  { permission: "orders.create" },
);
