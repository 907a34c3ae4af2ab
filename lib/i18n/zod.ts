import type { z } from "zod";
import { formatInteger, isMessageKey, translate, type Locale, type MessageKey, type Vars } from "./index";

// The one error map of the dashboard's forms: a zod issue → a catalog message naming the field
// ("Valor: precisa ser maior que zero."). The API's schemas word their issues in English for API
// clients (those messages are part of the API's error bodies), and zod lets a schema's own message
// win over any map passed to parse; so the map reads the finished issue instead: its code and
// limits, or, for the API's own refinements, the sentence the API wrote, matched here in one table.
// Our dashboard-only schemas carry catalog keys as messages, used as they are.

export type ZodIssue = z.core.$ZodIssue & { input?: unknown };

type Rule = [RegExp, MessageKey, ((m: RegExpMatchArray) => Vars)?];

/** Older catalog messages our own schemas use, and their forms that name the field. */
const WITH_LABEL: Partial<Record<MessageKey, MessageKey>> = {
  "errors.required": "errors.field.required",
  "errors.email": "errors.field.email",
  "errors.pixKey": "errors.field.pixKey",
};

/** The API's refinement messages (lib/fields.ts and the request schemas of lib/<domain>/schemas.ts). */
const API_MESSAGES: Rule[] = [
  [/^is required/, "errors.field.required"],
  [/^must not be empty$/, "errors.field.required"],
  [/^must be a number in BRL/, "errors.field.amount"],
  [/^must be a finite number with at most 2 decimal places$/, "errors.field.decimals"],
  [/^must be greater than 0$/, "errors.field.positive"],
  [/^must be at most (\d+(?:\.\d+)?)$/, "errors.field.max", (m) => ({ max: m[1] })],
  [/^must be at most (\d+) characters$/, "errors.field.tooLong", (m) => ({ max: m[1] })],
  [/^must be a valid EVM address/, "errors.field.evmAddress"],
  [/^is not a valid CPF$/, "errors.field.cpf"],
  [/^is not a valid CNPJ$/, "errors.field.cnpj"],
  [/^must be a valid e-mail address$/, "errors.field.email"],
  [/^must be an absolute URL/, "errors.field.url"],
  [/^must use http or https$/, "errors.field.urlScheme"],
  [/^must use https in live mode$/, "errors.field.urlHttps"],
  [/^must not contain credentials/, "errors.field.urlCredentials"],
  [/^must not contain a fragment/, "errors.field.urlFragment"],
  [/^must have a host$/, "errors.field.url"],
  [/^is too long to be a PIX QR code$/, "errors.field.brcodeTooLong"],
  [/^must be a whole number/, "errors.field.wholeNumber"],
  [/^must be at least 60 seconds$|^must be at most one year$/, "errors.field.expiresIn"],
  [/^must be a string$/, "errors.field.text"],
  [/^must be a CPF \(11 digits\) or CNPJ/, "recipients.form.documentInvalid"],
  [/^must be a PIX key: /, "recipients.form.pixKeyInvalid"],
  [/^must be a number/, "errors.field.number"],
];

function byCode(issue: ZodIssue): [MessageKey, Vars?] {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined || issue.input === null || issue.input === "") return ["errors.field.required"];
      return issue.expected === "number" || issue.expected === "int"
        ? ["errors.field.number"]
        : ["errors.field.invalid"];
    case "too_small":
      if (issue.origin === "string")
        return Number(issue.minimum) <= 1
          ? ["errors.field.required"]
          : ["errors.field.tooShort", { min: Number(issue.minimum) }];
      return ["errors.field.min", { min: Number(issue.minimum) }];
    case "too_big":
      return issue.origin === "string"
        ? ["errors.field.tooLong", { max: Number(issue.maximum) }]
        : ["errors.field.max", { max: Number(issue.maximum) }];
    case "invalid_format":
      if (issue.format === "email") return ["errors.field.email"];
      if (issue.format === "url") return ["errors.field.url"];
      return ["errors.field.invalid"];
    case "invalid_value":
      return ["errors.field.oneOf"];
    default:
      return ["errors.field.invalid"];
  }
}

/** What a person reads for one zod issue on the field labelled `label`, in their language. */
export function issueMessage(issue: ZodIssue, locale: Locale, label: string): string {
  if (isMessageKey(issue.message)) return translate(locale, WITH_LABEL[issue.message] ?? issue.message, { label });
  let found: [MessageKey, Vars?] | undefined;
  for (const [pattern, key, vars] of API_MESSAGES) {
    const m = issue.message.match(pattern);
    if (m) {
      found = [key, vars?.(m)];
      break;
    }
  }
  const [key, vars] = found ?? byCode(issue);
  const filled = Object.fromEntries(
    Object.entries(vars ?? {}).map(([k, v]) => [
      k,
      typeof v === "number" || /^\d+$/.test(v) ? formatInteger(Number(v), locale) : v,
    ]),
  );
  return translate(locale, key, { ...filled, label });
}
