import "server-only";
import { redirect, unstable_rethrow } from "next/navigation";
import type { z } from "zod";
import { DomainError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { ActionState } from "./action-state";
import { apiErrorMessage } from "@/lib/i18n/api-errors";
import { getLocale } from "@/lib/i18n/server";
import { translate, type MessageKey } from "@/lib/i18n";
import { echoValues, fieldErrors, type FieldErrorOptions } from "./form";

// One way to write a server action (saas-starter's validatedAction): parse the FormData with a zod
// schema, run the service call, and answer useActionState with field errors, a domain error's
// message, or success, every message already in the visitor's language: field errors through the one
// zod error map (lib/i18n/zod.ts), service errors (DomainError) through lib/i18n/api-errors.ts;
// anything else is logged and answered with a generic message.

export type ActionOutcome<D> = { data: D; message?: MessageKey; redirectTo?: undefined } | { redirectTo: string };

type Options = { decimalFields?: readonly string[]; labels?: FieldErrorOptions["labels"] };

export function validatedAction<S extends z.ZodType, D>(
  schema: S,
  action: (data: z.output<S>, formData: FormData) => Promise<ActionOutcome<D>>,
  opts: Options = {},
) {
  return async (_prev: ActionState<D>, formData: FormData): Promise<ActionState<D>> => {
    const locale = await getLocale();
    // reportInput: the error map tells a field left blank from one filled in wrongly.
    const parsed = schema.safeParse(formData, { reportInput: true });
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error, { locale, decimalFields: opts.decimalFields, labels: opts.labels });
      return {
        status: "error",
        error: translate(locale, "common.fixFields"),
        fieldErrors: errors,
        values: echoValues(formData),
      };
    }
    let outcome: ActionOutcome<D>;
    try {
      outcome = await action(parsed.data, formData);
    } catch (err) {
      unstable_rethrow(err);
      if (err instanceof DomainError)
        return { status: "error", error: apiErrorMessage(err, locale), values: echoValues(formData) };
      log.error("dashboard action failed", { err });
      return { status: "error", error: translate(locale, "common.error"), values: echoValues(formData) };
    }
    if (outcome.redirectTo !== undefined) redirect(outcome.redirectTo);
    return { status: "success", data: outcome.data, message: outcome.message, at: Date.now() };
  };
}
