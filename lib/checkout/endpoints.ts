import QRCode from "qrcode";
import { anyone } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { publicCryptoPixExample, publicPaymentExample } from "./examples";
import { publicCryptoPixPayment } from "./crypto-pix";
import { publicPayment } from "./payment";
import { publicCryptoPixResponse, publicPaymentResponse } from "./schemas";

// The payer's side of the API: no authentication, nothing private to the merchant (docs/api.md#endpoints, /public/*).

const params = { paymentLinkId: "Payment link id" };

export const publicPaymentEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/public/payments/{paymentLinkId}",
  caller: anyone,
  errorBody: messageBody,
  response: { status: 200, description: "The payment", schema: publicPaymentResponse, example: publicPaymentExample },
  docs: {
    summary: "A payment, as the payer sees it",
    description: "Status, amount, method, how to pay and expiry; nothing private to the merchant.",
    tag: "Public",
    params,
    errors: [404],
    errorExamples: { 404: { message: "Payment not found" } },
  },
  handle: async ({ params }) => ({ payment: await publicPayment(params.paymentLinkId) }),
});

/** The exchange-wallet `qrCodeLink`, and every other kind's QR. */
export const publicPaymentQrEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/public/payments/{paymentLinkId}/qr.png",
  caller: anyone,
  errorBody: messageBody,
  response: { status: 200, description: "PNG image", contentType: "image/png" },
  docs: {
    summary: "QR code image of a payment",
    description:
      "The exchange-wallet `qrCodeLink`; for other kinds, the BR Code, `lightning:` invoice or EIP-681 transfer URI as a PNG.",
    tag: "Public",
    params,
    errors: [404],
    errorExamples: { 404: { message: "Payment not found" } },
  },
  async handle({ params }) {
    const p = await publicPayment(params.paymentLinkId);
    const png = await QRCode.toBuffer(p.payment.qrContent, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      width: 360,
    });
    return new Response(new Uint8Array(png), {
      status: 200,
      headers: {
        "content-type": "image/png",
        "cache-control": "public, max-age=300",
        "content-length": String(png.length),
      },
    });
  },
});

/** The Crypto-PIX payer's page polls this; the payer's link carries the payCryptoPixId. */
export const publicCryptoPixEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/public/crypto-pix/{payCryptoPixId}",
  caller: anyone,
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The Crypto-PIX payment",
    schema: publicCryptoPixResponse,
    example: publicCryptoPixExample,
  },
  docs: {
    summary: "A Crypto-PIX payment, as its payer sees it",
    description:
      "The PIX being paid (recipient, masked key, BRL), what to send and where, how much arrived, and any refund; nothing private to the merchant. The payer's page is `/pay/crypto-pix/{payCryptoPixId}`.",
    tag: "Public",
    params: { payCryptoPixId: "payCryptoPixId" },
    errors: [404],
    errorExamples: { 404: { message: "Payment not found" } },
  },
  handle: async ({ params }) => ({ payment: await publicCryptoPixPayment(params.payCryptoPixId) }),
});

export const CHECKOUT_ENDPOINTS = [publicPaymentEndpoint, publicPaymentQrEndpoint, publicCryptoPixEndpoint];
