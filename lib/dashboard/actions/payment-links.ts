"use server";

import { z } from "zod";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { formSchema } from "@/lib/forms/form";
import { createPaymentLinkBody, updatePaymentLinkBody } from "@/lib/payment-links/schemas";
import { createPaymentLink, setPaymentLinkStatus, updatePaymentLink } from "@/lib/payment-links/service";

// Payment links through the same service calls as /api/v1/payment-links, with the signed-in merchant.
// The form sends the API's own request body as one JSON field, so it takes exactly what the API takes.

const json = z.string().transform((s, ctx) => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    ctx.addIssue({ code: "custom", message: "errors.invalidText" });
    return z.NEVER;
  }
});

const createForm = formSchema(z.object({ body: json.pipe(createPaymentLinkBody) }));
const updateForm = formSchema(z.object({ id: z.uuid(), body: json.pipe(updatePaymentLinkBody) }));
const idForm = formSchema(z.object({ id: z.uuid(), to: z.enum(["PAUSED", "ACTIVE"]) }));

export const createPaymentLinkAction = merchantAction(
  createForm,
  async ({ body }, { merchant }) => ({
    redirectTo: `/dashboard/payment-links/${(await createPaymentLink(merchant.id, body)).id}`,
  }),
  { permission: "orders.create" },
);

export const updatePaymentLinkAction = merchantAction(
  updateForm,
  async ({ id, body }, { merchant }) => ({
    redirectTo: `/dashboard/payment-links/${(await updatePaymentLink(merchant.id, id, body)).id}`,
  }),
  { permission: "orders.create" },
);

export const setPaymentLinkStatusAction = merchantAction(
  idForm,
  async ({ id, to }, { merchant }) => ({
    redirectTo: `/dashboard/payment-links/${(await setPaymentLinkStatus(merchant.id, id, to)).id}`,
  }),
  { permission: "orders.create" },
);
