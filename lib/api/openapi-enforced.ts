import { env } from "@/lib/env";

// What the server enforces on a request field that zod's JSON Schema cannot say, because the rule is a
// refinement or a transform (a BRL amount's 2 decimals and maximum, an EVM address, a webhook URL, a
// sandbox transfer's amount, a cursor): written into the document's input schemas here, so a client or
// a fuzzer reading the document sends what the server takes. tests/openapi-fields.test.ts holds each
// rule to the server: a value the schema accepts is not refused as invalid, one it refuses is refused.

type JsonSchema = { [k: string]: unknown };

/** An EVM address; mixed case must also be a valid EIP-55 checksum. A withdrawal's `toAddress` is trimmed first. */
export const EVM_ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";
const TRIMMED_EVM_ADDRESS_PATTERN = "^\\s*0x[0-9a-fA-F]{40}\\s*$";
/** A cursor the API handed out: base64url, at most 200 characters; an empty one is no cursor (the first page). */
export const CURSOR_PATTERN = "^[A-Za-z0-9_-]{0,200}$";
/** A sandbox transfer's decimal-string amount: positive, below 10^15 tokens. */
const TOKEN_AMOUNT_PATTERN = "^\\s*(?=[0-9.]*[1-9])0*[0-9]{1,15}(\\.[0-9]+)?\\s*$";

/** CPF: 11 digits, dots, dashes and spaces ignored; the check digits, which no pattern can say, are verified too. */
const CPF_PATTERN = "^[.\\-\\s]*([0-9][.\\-\\s]*){11}$";
/** CNPJ: 12 letters or digits and 2 check digits, punctuation ignored; the check digits are verified too. */
const CNPJ_PATTERN = "^[./\\-\\s]*([0-9A-Za-z][./\\-\\s]*){12}([0-9][./\\-\\s]*){2}$";
/** A recipient's document: a CPF's 11 or a numeric CNPJ's 14 digits, punctuation ignored; check digits verified too. */
const DOCUMENT_PATTERN = "^[./\\-\\s]*(([0-9][./\\-\\s]*){11}|([0-9][./\\-\\s]*){14})$";
const PHONE_PATTERN = "^[\\s().-]*\\+?[\\s().-]*([0-9][\\s().-]*){10,15}$";
/** A calendar day written YYYY-MM-DD, from 1970 to 9999 (format `date` says the day exists). */
const DAY_PATTERN = "^(19[7-9][0-9]|[2-9][0-9]{3})-[0-9]{2}-[0-9]{2}$";

/** Absolute http(s) URL, no credentials, no fragment; https only in live mode. */
export function webhookUrlPattern(): string {
  const scheme = env().PAYMENTS_MODE === "live" ? "https" : "https?";
  return `^\\s*${scheme}://[^/?#@\\s]+([/?][^#\\s]*)?\\s*$`;
}

/** Request fields that are calendar days (invoices, subscriptions, the sandbox clock). */
const DAY_PROPERTIES = new Set(["dueDate", "date", "firstDate", "lastDate"]);

/** A property of an input schema, made to say what the server enforces (the node itself when nothing applies). */
export function enforcedInput(node: JsonSchema, property?: string): JsonSchema {
  // BRL `value` (lib/fields.ts brlValue): every input number with exclusiveMinimum 0 is one.
  if (node.type === "number" && node.exclusiveMinimum === 0) {
    const { exclusiveMinimum: _, ...rest } = node;
    return { ...rest, minimum: 0.01, maximum: env().MAX_ORDER_VALUE_BRL, multipleOf: 0.01 };
  }
  // An invoice's BRL amounts (lib/invoices/schemas.ts): their 2 decimals are in the schema, the maximum is configured.
  if (node.type === "number" && node.multipleOf === 0.01 && node.minimum === 0.01 && node.maximum === undefined)
    return node.exclusiveMaximum === undefined ? { ...node, maximum: env().MAX_ORDER_VALUE_BRL } : node;
  if ((property === "toAddress" || property === "refundAddress") && node.type === "string" && !node.pattern)
    return {
      ...node,
      pattern: property === "toAddress" ? TRIMMED_EVM_ADDRESS_PATTERN : EVM_ADDRESS_PATTERN,
      "x-format": "evm-address (EIP-55 checksum when mixed-case)",
    };
  if (node.type === "string" && !node.pattern) {
    if (property === "cpf") return { ...node, pattern: CPF_PATTERN, "x-format": "cpf (check digits verified)" };
    if (property === "cnpj") return { ...node, pattern: CNPJ_PATTERN, "x-format": "cnpj (check digits verified)" };
    if (property === "document")
      return { ...node, pattern: DOCUMENT_PATTERN, "x-format": "cpf or cnpj (check digits verified)" };
    // A payer's phone (lib/payment-links/schemas.ts): 10 to 15 digits, a leading +, spaces ( ) . - ignored.
    if (property === "phone") return { ...node, pattern: PHONE_PATTERN };
    if (DAY_PROPERTIES.has(property ?? "")) return { ...node, format: "date", pattern: DAY_PATTERN };
    if (property === "pixKey")
      return {
        ...node,
        "x-format": "pix-key: CPF, CNPJ, e-mail, phone as +55 with area code, or random key (EVP UUID)",
      };
  }
  // Not `format: uri`: the server trims the URL before reading it.
  if (property === "url" && node.type === "string" && node.maxLength === 2048)
    return { ...node, pattern: webhookUrlPattern(), "x-format": "absolute http(s) URL, no credentials, no fragment" };
  if (property === "amount" && Array.isArray(node.type) && node.type.includes("string")) {
    const { type: _, ...rest } = node;
    return {
      ...rest,
      oneOf: [
        { type: "number", minimum: 0.000001, exclusiveMaximum: 1e15 },
        { type: "string", pattern: TOKEN_AMOUNT_PATTERN },
      ],
    };
  }
  return node;
}

/** A query parameter's schema, made to say what the server enforces. */
export function enforcedQuery(name: string, schema: JsonSchema): JsonSchema {
  if ((name === "cursor" || name === "after") && schema.type === "string")
    return {
      ...schema,
      pattern: CURSOR_PATTERN,
      description: "Opaque: only a nextCursor this list handed out (anything else is a 400); empty is the first page",
    };
  return schema;
}
