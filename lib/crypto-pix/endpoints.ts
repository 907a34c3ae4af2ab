import { db } from "@/db";
import { merchantKey } from "@/lib/identity/api-keys/callers";
import { NotFound } from "@/lib/errors";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { decodeCryptoPixId } from "@/lib/ids";
import { cryptoPixExample, cryptoPixGetExample, QRCODE_EXAMPLE } from "./examples";
import { cryptoPixSchema, payCryptoPixBody, payCryptoPixResponse } from "./schemas";
import { createCryptoPixPayment, findCryptoPixPayment } from "./service";
import { clientAddress } from "@/lib/http/client-address";
import { apiKeyActor } from "@/lib/identity/audit";
import { overLightning } from "./kinds";
import { invoiceOf } from "./queries";
import { cryptoPixCreatedView, cryptoPixView } from "./views";

export const payCryptoPixEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/crypto-pix/onchain/pay",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: payCryptoPixBody,
  response: {
    status: 201,
    description: "Payment created; send `cryptoValue` of `asset` to `address`",
    schema: payCryptoPixResponse,
    example: cryptoPixExample,
  },
  docs: {
    summary: "Pay a PIX QR code with crypto",
    description:
      "Reads the BR Code, fixes the rate, and returns an address to send the tokens to. Once the full amount is confirmed the PIX is paid; if the PIX fails the crypto is refunded. A code without an amount needs `value`.",
    tag: "Crypto-PIX",
    requestExample: { qrcode: QRCODE_EXAMPLE, network: "bsc" },
    errorExamples: { 400: { message: "PIX QR code checksum (CRC) does not match" } },
  },
  async handle({ merchant, keyId, req, body }) {
    const actor = { ...apiKeyActor(merchant.id, keyId, clientAddress(req.headers)), merchantId: merchant.id };
    return {
      data: cryptoPixCreatedView(await createCryptoPixPayment(merchant, body, { channel: "api", actor, keyId })),
    };
  },
  replay: async ({ merchant, resource }) => ({
    data: cryptoPixCreatedView(await findCryptoPixPayment(merchant.id, resource.id)),
  }),
});

export const getCryptoPixEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/crypto-pix/order/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The payment (top-level fields)",
    schema: cryptoPixSchema,
    example: cryptoPixGetExample,
  },
  docs: {
    summary: "Look up a Crypto-PIX payment",
    description:
      "By `payCryptoPixId` (base64url; standard base64 is accepted too). An `id` header is used when the path carries no decodable id.",
    tag: "Crypto-PIX",
    params: { id: "payCryptoPixId" },
    headers: [{ name: "id", description: "payCryptoPixId, when the path does not carry it" }],
    errors: [404],
    errorExamples: { 404: { message: "Crypto-PIX payment not found" } },
  },
  async handle({ merchant, params, req }) {
    // The path segment wins; the `id` header is used when the path carries no decodable id (e.g. a
    // generated sample whose path placeholder was left unfilled), otherwise it could never be used.
    const id = decodeCryptoPixId(params.id ?? "") ?? decodeCryptoPixId(req.headers.get("id")?.trim() ?? "");
    if (!id) throw new NotFound("Crypto-PIX payment not found");
    const payment = await findCryptoPixPayment(merchant.id, id);
    // Over Lightning, whether the sats are the merchant's yet: a settle pending or failing shows here.
    return cryptoPixView(payment, overLightning(payment) ? await invoiceOf(db(), payment.id) : undefined);
  },
});

export const CRYPTO_PIX_ENDPOINTS = [payCryptoPixEndpoint, getCryptoPixEndpoint];
