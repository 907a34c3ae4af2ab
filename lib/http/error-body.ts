import { z } from "zod";
import { API_ERROR_CODE_LIST, statusCode, type ApiErrorCode, type FieldProblem } from "@/lib/errors-api";

// Each endpoint has one error body shape (docs/api.md#error-bodies). An endpoint declares its shape
// once and every error it answers, 401 and 500 included, uses it. Each shape carries the zod schema
// of what it writes for a status, so the OpenAPI document and the tests describe the same bodies.
// Every shape also carries the error's stable `code` (lib/errors-api.ts) and, for a validation
// error, the fields at fault: added fields, so the spec's own ones stay exactly as they are.

/** The machine-readable part of an error: its code, and the fields at fault of a validation error. */
export type Problem = { code: ApiErrorCode; fields?: FieldProblem[] };

type Write = (
  status: number,
  message: string,
  extra: Record<string, unknown> | undefined,
  problem: Problem,
) => Record<string, unknown>;
/** Writes the body; without a problem, the status's general code (an answer a handler makes itself). */
export type ErrorBody = ((
  status: number,
  message: string,
  extra?: Record<string, unknown>,
  problem?: Problem,
) => Record<string, unknown>) & { schema: (status: number) => z.ZodObject };

const errorBody = (write: Write, schema: (status: number) => z.ZodObject): ErrorBody =>
  Object.assign(
    (status: number, message: string, extra?: Record<string, unknown>, problem?: Problem) =>
      write(status, message, extra, problem ?? { code: statusCode(status) }),
    { schema },
  );

const text = z.string().meta({ description: "What went wrong, in one sentence" });

export const errorCode = z
  .enum(API_ERROR_CODE_LIST)
  .meta({ description: "Stable machine-readable code of the error (docs/api.md#error-codes)" });
export const fieldError = z
  .strictObject({
    field: z.string().meta({ description: "The field's path in the body or query, dot-separated (`splits.0.value`)" }),
    code: z
      .string()
      .meta({ description: "What is wrong with it: required, invalid_type, too_big, too_small, invalid_format, …" }),
    message: z.string(),
  })
  .meta({ id: "FieldError" });
/** Present on validation errors only (`code: validation_failed`). */
const fields = z.array(fieldError).optional().meta({ description: "Each field at fault (validation errors only)" });
const machine = { code: errorCode, fields };

/** The machine-readable part, in the order bodies carry it: after the spec's own fields. */
const problemFields = (p: Problem) => (p.fields ? { code: p.code, fields: p.fields } : { code: p.code });

export const messageError = z.strictObject({ message: text, ...machine }).meta({ id: "MessageError" });
export const successFalseError = z
  .strictObject({ success: z.literal(false), error: text, ...machine })
  .meta({ id: "SuccessFalseError" });
export const withdrawInvalidError = z
  .strictObject({ message: text, error: text, ...machine })
  .meta({ id: "WithdrawInvalidError" });
export const withdrawFailedError = z
  .strictObject({ message: text, success: z.literal(false), ...machine })
  .meta({ id: "WithdrawFailedError" });
export const pixOutError = z
  .strictObject({ message: text, error: z.strictObject({ details: text }), ...machine })
  .meta({ id: "PixOutError" });

/** `{ message, ...extra }`: most endpoints. */
export const messageBody = errorBody(
  (_status, message, extra, problem) => ({ message, ...extra, ...problemFields(problem) }),
  () => messageError,
);

/** `{ success: false, error }`: exchange-wallet, Lightning, order lookup, on-chain lookup. */
export const successFalseBody = errorBody(
  (_status, message, _extra, problem) => ({ success: false, error: message, ...problemFields(problem) }),
  () => successFalseError,
);

/** On-chain withdraw: 400 `{ message, error }`, 500 `{ message, success: false }`, 401 `{ message }`. */
export const withdrawBody = errorBody(
  (status, message, extra, problem) => {
    if (status >= 500) return { message, success: false, ...problemFields(problem) };
    if (status === 401) return { message, ...problemFields(problem) };
    return { message, error: message, ...extra, ...problemFields(problem) };
  },
  (status) => (status >= 500 ? withdrawFailedError : status === 401 ? messageError : withdrawInvalidError),
);

/** pix-out: 400 and 500 `{ message, error: { details } }`, 401 `{ message }`. */
export const pixOutBody = errorBody(
  (status, message, extra, problem) => {
    if (status === 401) return { message, ...problemFields(problem) };
    return { message, error: { details: message }, ...extra, ...problemFields(problem) };
  },
  (status) => (status === 401 ? messageError : pixOutError),
);
