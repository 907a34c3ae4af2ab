import { endpoint } from "@/lib/api/handler";
import { messageBody } from "@/lib/api/error-body";
import { decodeCryptoPixId } from "@/lib/api/ids";
import { json } from "@/lib/api/respond";
import { NotFound } from "@/lib/errors";
import { payCryptoPixBody, type PayCryptoPixResponse } from "./schemas";
import { createCryptoPixPayment, findCryptoPixPayment } from "./service";
import { cryptoPixCreatedView, cryptoPixView } from "./views";

/** POST /api/v1/crypto-pix/onchain/pay */
export const payCryptoPixHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  body: payCryptoPixBody,
  async handle({ merchant, body }) {
    const p = await createCryptoPixPayment(merchant, body);
    const res: PayCryptoPixResponse = { data: cryptoPixCreatedView(p) };
    return json(201, res);
  },
});

/** GET /api/v1/crypto-pix/order/{id}: the id is base64 in the path; an `id` header is accepted too. */
export const getCryptoPixHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, params, req }) {
    // The path segment wins; the `id` header is used when the path carries no decodable id (e.g. a
    // generated sample whose path placeholder was left unfilled), otherwise it could never be used.
    const id = decodeCryptoPixId(params.id ?? "") ?? decodeCryptoPixId(req.headers.get("id")?.trim() ?? "");
    if (!id) throw new NotFound("Crypto-PIX payment not found");
    return json(200, cryptoPixView(await findCryptoPixPayment(merchant.id, id)));
  },
});
