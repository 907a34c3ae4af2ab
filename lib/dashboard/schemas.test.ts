import fc from "fast-check";
import { translate } from "@/lib/i18n";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { signUpForm } from "@/lib/identity/dashboard/schemas";
import { fieldErrors } from "@/lib/forms/form";
import * as dashboardForms from "./schemas";

// Every form a server action parses (the dashboard's and sign-up), fed FormData with a NUL in one
// field among plausible ones: the parse fails with that field's errors.invalidText, so no action ever
// hands such text to a service (where PostgreSQL would refuse it with a 500). Lone surrogates cannot
// arrive this way: FormData holds USVStrings and turns them into U+FFFD.

const forms = {
  ...Object.fromEntries(Object.entries(dashboardForms).filter(([, v]) => v instanceof z.ZodType)),
  signUpForm,
} as Record<string, z.ZodType>;
const FIELDS = [
  "value",
  "name",
  "companyName",
  "pixKey",
  "email",
  "password",
  "url",
  "description",
  "id",
  "reason",
  "toAddress",
  "network",
  "asset",
  "brcode",
  "endpointId",
];
const plain = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("10,50", "polygon", "USDT", "52998224725", "dono@padaria.example"),
);
const bad = fc
  .tuple(fc.string({ maxLength: 6 }), fc.constant("\u0000"), fc.string({ maxLength: 6 }))
  .map((p) => p.join(""));

describe("every dashboard form refuses text PostgreSQL cannot store", () => {
  it.each(Object.keys(forms))("%s", (name) => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...FIELDS), plain, { maxKeys: 6 }),
        fc.constantFrom(...FIELDS),
        bad,
        (fields, badField, badValue) => {
          const fd = new FormData();
          for (const [k, v] of Object.entries({ ...fields, [badField]: badValue })) fd.append(k, v);
          const parsed = forms[name].safeParse(fd);
          expect(parsed.success).toBe(false);
          expect(fieldErrors(parsed.error!, { locale: "pt-BR" })[badField]).toContain(
            translate("pt-BR", "errors.invalidText"),
          );
        },
      ),
      { numRuns: 100, seed: 20261124 },
    );
  });
});
