import { z } from "zod";
import { companyNameField, emailField, newPasswordField, pixKeyField } from "@/lib/forms/fields";
import { formSchema } from "@/lib/forms/form";

/** Self-service sign-up: the merchant, its payout PIX key, and its first user. */
export const signUpForm = formSchema(
  z.object({
    companyName: companyNameField,
    email: emailField,
    password: newPasswordField,
    pixKey: pixKeyField,
  }),
);

/** The button behind a sign-up link: the link's sealed request (lib/identity/dashboard/sign-up-link.ts), longer than a random token. */
export const signUpConfirmForm = formSchema(z.object({ token: z.string().max(4096) }));

// Links sent by mail carry a token the form posts back; the service checks it (lib/identity/tokens.ts).
const token = z.string().max(100);

export const forgotPasswordForm = formSchema(z.object({ email: emailField }));
export const resetPasswordForm = formSchema(z.object({ token, password: newPasswordField }));
export const factorLinkForm = formSchema(z.object({ token }));
export const acceptInviteForm = formSchema(
  z.object({ token, name: z.string().trim().max(120, "errors.tooLong").default(""), password: newPasswordField }),
);
