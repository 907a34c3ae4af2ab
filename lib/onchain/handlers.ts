import { endpoint } from "@/lib/api/handler";
import { messageBody, successFalseBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import { createDepositBody, type CreateDepositResponse, type GetDepositResponse } from "./schemas";
import { createDeposit, findDeposit } from "./service";
import { depositCreatedView, depositView } from "./views";

/** POST /api/v1/onchain/deposit */
export const createDepositHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  body: createDepositBody,
  async handle({ merchant, body }) {
    const order = await createDeposit(merchant, body);
    const res: CreateDepositResponse = { order: depositCreatedView(order) };
    return json(201, res);
  },
});

/** GET /api/v1/onchain/order/{id}: an unknown id is a 400 here (spec §7). */
export const getDepositHandler = endpoint({
  auth: "merchant",
  errorBody: successFalseBody,
  notFoundStatus: 400,
  async handle({ merchant, params }) {
    const res: GetDepositResponse = { order: depositView(await findDeposit(merchant.id, params.id)) };
    return json(200, res);
  },
});
