import "server-only";
import type { z } from "zod";
import { requireMerchant, type SignedIn } from "@/lib/auth/session";
import type { ActionState } from "@/lib/forms/action-state";
import { validatedAction, type ActionOutcome } from "@/lib/forms/validated-action";

/** validatedAction for the dashboard: the session is checked before anything else is read. */
export function merchantAction<S extends z.ZodType, D>(
  schema: S,
  action: (data: z.output<S>, signedIn: SignedIn, formData: FormData) => Promise<ActionOutcome<D>>,
  opts: Parameters<typeof validatedAction>[2] = {},
) {
  return async (prev: ActionState<D>, formData: FormData): Promise<ActionState<D>> => {
    const signedIn = await requireMerchant();
    return validatedAction(schema, (data, fd) => action(data, signedIn, fd), opts)(prev, formData);
  };
}
