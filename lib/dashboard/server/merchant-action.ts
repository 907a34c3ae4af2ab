import "server-only";
import type { z } from "zod";
import { actorOf, requireMerchant, type SignedIn } from "@/lib/identity/dashboard/session";
import type { ActionState } from "@/lib/forms/action-state";
import { env } from "@/lib/env";
import { echoValues } from "@/lib/forms/form";
import { validatedAction, type ActionOutcome } from "@/lib/forms/validated-action";
import { apiErrorMessage } from "@/lib/i18n/api-errors";
import { formatDateTime, translate } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { FactorLocked, factorLockedUntil } from "@/lib/identity/factor-attempts";
import type { MoneyMove } from "@/lib/identity/money-moves";
import { can, type Permission } from "@/lib/identity/roles";
import { markStepUp } from "@/lib/identity/sessions";
import { verifySecondFactor } from "@/lib/identity/two-factor";

// validatedAction for the dashboard: the session is checked before anything else is read, then the
// role, then (for money moves and changes to where money or data goes) a fresh second factor. A
// session that proved one within STEP_UP_MINUTES passes; otherwise the form's `otp` field must
// carry a code, which also refreshes the session's step-up. A factor enrolled on this session never
// counts, nor one whose change no other owner has confirmed yet (docs/security.md).

type Options = Parameters<typeof validatedAction>[2] & {
  permission?: Permission;
  /**
   * Needs a fresh second factor: changes to where money or access goes. "live": only in live mode,
   * for what reaches no real money in sandbox (a sandbox key or webhook: docs/security.md#sandbox-keys-and-webhooks).
   */
  stepUp?: boolean | "live";
  /** Moves money out of the balance (lib/identity/money-moves.ts): implies `stepUp`. */
  moneyMove?: MoneyMove;
};

/** The form field a step-up code travels in. */
export const STEP_UP_FIELD = "otp";

export function merchantAction<S extends z.ZodType, D>(
  schema: S,
  action: (data: z.output<S>, signedIn: SignedIn, formData: FormData) => Promise<ActionOutcome<D>>,
  opts: Options = {},
) {
  return async (prev: ActionState<D>, formData: FormData): Promise<ActionState<D>> => {
    const signedIn = await requireMerchant();
    if (opts.permission && !can(signedIn.role, opts.permission))
      return { status: "error", error: "security.notAllowed", values: echoValues(formData) };
    if (needsStepUp(opts)) {
      // The form's own errors first: a code is asked for only once the request itself would go through.
      const fields = new FormData();
      for (const [k, v] of formData.entries()) if (k !== STEP_UP_FIELD) fields.append(k, v);
      if (!schema.safeParse(fields).success)
        return validatedAction<S, D>(schema, (data, fd) => action(data, signedIn, fd), opts)(prev, fields);
      const refused = await stepUp<D>(signedIn, formData);
      if (refused) return refused;
    }
    // The code has done its job; the form's own schema (often the API's strict body) never sees it.
    formData.delete(STEP_UP_FIELD);
    return validatedAction<S, D>(schema, (data, fd) => action(data, signedIn, fd), opts)(prev, formData);
  };
}

function needsStepUp(opts: Options): boolean {
  if (opts.moneyMove || opts.stepUp === true) return true;
  return opts.stepUp === "live" && env().PAYMENTS_MODE === "live";
}

async function stepUp<D>(signedIn: SignedIn, formData: FormData): Promise<ActionState<D> | null> {
  const refuse = (error: string, code?: string): ActionState<D> => ({
    status: "error",
    error,
    fieldErrors: code ? { [STEP_UP_FIELD]: [code] } : undefined,
    values: echoValues(formData),
  });
  if (!signedIn.twoFactor) return refuse("security.twoFactorNeeded");
  const locale = await getLocale();
  // Before any code is read: a held factor proves nothing yet, and its code is not spent on a refusal.
  if (signedIn.factorHeldUntil)
    return refuse(
      translate(locale, "security.factorHeld", { until: formatDateTime(signedIn.factorHeldUntil, locale) }),
    );
  if (signedIn.factorEnrolledHere) return refuse("security.enrolledHere");
  if (signedIn.stepUpFresh) return null;
  const code = String(formData.get(STEP_UP_FIELD) ?? "");
  try {
    if (code.trim() === "") {
      // No code, no guess; but a locked user is told so now rather than after typing one.
      const lockedUntil = await factorLockedUntil(signedIn.userId);
      if (lockedUntil) throw new FactorLocked((lockedUntil.getTime() - Date.now()) / 1000);
      return refuse("security.stepUpNeeded", "security.wrongCode");
    }
    const factor = await verifySecondFactor(
      { actor: { ...actorOf(signedIn), userId: signedIn.userId }, locale },
      "stepUp",
      code,
    );
    if (!factor) return refuse("security.stepUpNeeded", "security.wrongCode");
  } catch (err) {
    if (!(err instanceof FactorLocked)) throw err;
    return refuse(apiErrorMessage(err, locale));
  }
  await markStepUp(signedIn.sessionId);
  return null;
}
