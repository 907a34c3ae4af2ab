"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { INFRACTION_DEFENCE_MAX } from "@/db/schema";
import { actorOf } from "@/lib/identity/dashboard/session";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import type { ActionState } from "@/lib/forms/action-state";
import { echoValues, formSchema } from "@/lib/forms/form";
import { translate } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { defendInfraction, type DefenceResult } from "@/lib/med/infractions";

// A MED defence from the disputes page (docs/dashboard.md "MED disputes"): owners and admins only.
// It moves no money and changes no destination or access, so it takes no step-up (docs/security.md
// lists what does). The service commits it before sending it; the PSP's refusal comes back as the
// form's error, in the PSP's own words.

const defenceForm = formSchema(
  z.object({
    id: z.uuid({ error: "disputes.error.notFound" }),
    defence: z
      .string({ error: "errors.required" })
      .trim()
      .min(1, { error: "errors.required" })
      .max(INFRACTION_DEFENCE_MAX, { error: "disputes.error.length" }),
  }),
);

const MESSAGES = { sent: "disputes.sent", unanswered: "disputes.unanswered", refused: undefined } as const;

const submit = merchantAction(
  defenceForm,
  async ({ id, defence }, signedIn) => {
    const result = await defendInfraction(actorOf(signedIn), signedIn.merchant.id, id, defence);
    revalidatePath("/dashboard/disputes");
    return { data: result, message: MESSAGES[result.state] };
  },
  { permission: "disputes.defend" },
);

export async function defendInfractionAction(
  prev: ActionState<DefenceResult>,
  formData: FormData,
): Promise<ActionState<DefenceResult>> {
  const state = await submit(prev, formData);
  if (state.status === "success" && state.data.state === "refused")
    return {
      status: "error",
      error: translate(await getLocale(), "disputes.refused", { reason: state.data.reason }),
      values: echoValues(formData),
    };
  return state;
}
