import { z } from "zod";

// Each endpoint has one error body shape (docs/api.md#error-bodies). An endpoint declares its shape
// once and every error it answers, 401 and 500 included, uses it. Each shape carries the zod schema
// of what it writes for a status, so the OpenAPI document and the tests describe the same bodies.

type Write = (status: number, message: string, extra?: Record<string, unknown>) => Record<string, unknown>;
export type ErrorBody = Write & { schema: (status: number) => z.ZodObject };

const errorBody = (write: Write, schema: (status: number) => z.ZodObject): ErrorBody =>
  Object.assign(write, { schema });

const text = z.string().meta({ description: "What went wrong, in one sentence" });

export const messageError = z.strictObject({ message: text }).meta({ id: "MessageError" });
export const successFalseError = z
  .strictObject({ success: z.literal(false), error: text })
  .meta({ id: "SuccessFalseError" });
export const withdrawInvalidError = z.strictObject({ message: text, error: text }).meta({ id: "WithdrawInvalidError" });
export const withdrawFailedError = z
  .strictObject({ message: text, success: z.literal(false) })
  .meta({ id: "WithdrawFailedError" });
export const pixOutError = z
  .strictObject({ message: text, error: z.strictObject({ details: text }) })
  .meta({ id: "PixOutError" });

/** `{ message, ...extra }`: most endpoints. */
export const messageBody = errorBody(
  (_status, message, extra) => ({ message, ...extra }),
  () => messageError,
);

/** `{ success: false, error }`: exchange-wallet, Lightning, order lookup, on-chain lookup. */
export const successFalseBody = errorBody(
  (_status, message) => ({ success: false, error: message }),
  () => successFalseError,
);

/** On-chain withdraw: 400 `{ message, error }`, 500 `{ message, success: false }`, 401 `{ message }`. */
export const withdrawBody = errorBody(
  (status, message, extra) => {
    if (status >= 500) return { message, success: false };
    if (status === 401) return { message };
    return { message, error: message, ...extra };
  },
  (status) => (status >= 500 ? withdrawFailedError : status === 401 ? messageError : withdrawInvalidError),
);

/** pix-out: 400 and 500 `{ message, error: { details } }`, 401 `{ message }`. */
export const pixOutBody = errorBody(
  (status, message, extra) => {
    if (status === 401) return { message };
    return { message, error: { details: message }, ...extra };
  },
  (status) => (status === 401 ? messageError : pixOutError),
);
