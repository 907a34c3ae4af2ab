import "server-only";
import { redirect, unstable_rethrow } from "next/navigation";
import type { z } from "zod";
import { DomainError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { MessageKey } from "@/lib/i18n";
import type { ActionState } from "./action-state";
import { echoValues, fieldErrors } from "./form";

// One way to write a server action (saas-starter's validatedAction): parse the FormData with a zod
// schema, run the service call, and answer useActionState with field errors, a domain error's
// message, or success. Service errors (DomainError) are meant for people and are shown as they are;
// anything else is logged and answered with a generic message.

export type ActionOutcome<D> = { data: D; message?: MessageKey; redirectTo?: undefined } | { redirectTo: string };

type Options = { decimalFields?: readonly string[] };

export function validatedAction<S extends z.ZodType, D>(schema: S, action: (data: z.output<S>, formData: FormData) => Promise<ActionOutcome<D>>, opts: Options = {}) {
  return async (_prev: ActionState<D>, formData: FormData): Promise<ActionState<D>> => {
    const parsed = schema.safeParse(formData);
    if (!parsed.success) {
      return { status: "error", error: "common.fixFields", fieldErrors: fieldErrors(parsed.error, opts.decimalFields), values: echoValues(formData) };
    }
    let outcome: ActionOutcome<D>;
    try {
      outcome = await action(parsed.data, formData);
    } catch (err) {
      unstable_rethrow(err);
      if (err instanceof DomainError) return { status: "error", error: err.message, values: echoValues(formData) };
      log.error("dashboard action failed", { err });
      return { status: "error", error: "common.error", values: echoValues(formData) };
    }
    if (outcome.redirectTo !== undefined) redirect(outcome.redirectTo);
    return { status: "success", data: outcome.data, message: outcome.message, at: Date.now() };
  };
}
