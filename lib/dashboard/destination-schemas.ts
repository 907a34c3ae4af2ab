import { z } from "zod";
import { formSchema } from "@/lib/forms/form";
import { pixOutDestination, withdrawalAddress } from "@/lib/withdrawals/destination";

// The address book's forms (Withdrawals → Destinations). A destination is checked with the schema
// the withdrawal forms and the API use for its kind (lib/withdrawals/destination.ts).

const KINDS = ["pix_key", "chain_address"] as const;

export const addDestinationForm = formSchema(
  z
    .object({
      kind: z.enum(KINDS, { error: "errors.field.oneOf" }),
      value: z.string({ error: "errors.field.required" }),
      label: z.string().trim().max(60).optional(),
    })
    .superRefine(({ kind, value }, ctx) => {
      const checked = (kind === "pix_key" ? pixOutDestination : withdrawalAddress).safeParse(value, {
        reportInput: true,
      });
      for (const issue of checked.error?.issues ?? [])
        ctx.addIssue({ code: "custom", path: ["value"], message: issue.message, input: value });
    }),
);

/** One destination of the list: confirm or remove it. */
export const destinationIdForm = formSchema(z.object({ id: z.uuid({ error: "errors.field.required" }) }));

/** The API allow-list switch: the button says which way. */
export const allowlistForm = formSchema(z.object({ enabled: z.enum(["on", "off"], { error: "errors.field.oneOf" }) }));
