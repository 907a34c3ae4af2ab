import { endpoint } from "@/lib/api/handler";
import { messageBody, pixOutBody as pixOutErrorBody, withdrawBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import { InvalidInput } from "@/lib/errors";
import { describeZodError } from "@/lib/api/validation";
import { listWithdrawalsQuery, onchainWithdrawBody, pixOutBody, type OnchainWithdrawResponse, type PixOutResponse } from "./schemas";
import { createPixOut, findWithdrawal, initiateOnchainWithdrawal, listWithdrawals } from "./service";
import { withdrawalView } from "./views";

/** POST /api/v1/onchain/withdraw/initiate */
export const onchainWithdrawHandler = endpoint({
  auth: "merchant",
  errorBody: withdrawBody,
  body: onchainWithdrawBody,
  async handle({ merchant, body }) {
    const w = await initiateOnchainWithdrawal(merchant, body);
    const res: OnchainWithdrawResponse = {
      message: "Withdrawal initiated",
      transactionHash: w.txHash!,
      success: true,
      ...withdrawalView(w),
    };
    return json(200, res);
  },
});

/** POST /api/v1/order/pix-out */
export const pixOutHandler = endpoint({
  auth: "merchant",
  errorBody: pixOutErrorBody,
  body: pixOutBody,
  async handle({ merchant, body }) {
    const w = await createPixOut(merchant, body);
    const res: PixOutResponse = { message: "PIX withdrawal created", ...withdrawalView(w), amount: w.valueCentavos };
    return json(201, res);
  },
});

/** GET /api/v1/withdrawals/{id} */
export const getWithdrawalHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, params }) {
    return json(200, { withdrawal: withdrawalView(await findWithdrawal(merchant.id, params.id)) });
  },
});

/** GET /api/v1/withdrawals?limit=&cursor= */
export const listWithdrawalsHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, req }) {
    const q = listWithdrawalsQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!q.success) throw new InvalidInput(describeZodError(q.error));
    const page = await listWithdrawals(merchant.id, q.data.limit, q.data.cursor);
    return json(200, { withdrawals: page.withdrawals.map(withdrawalView), nextCursor: page.nextCursor });
  },
});
