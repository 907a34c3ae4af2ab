import { describe, expect, it } from "vitest";
import { z } from "zod";
import { brlValue, bodyObject, cpfField } from "@/lib/fields";
import { fieldErrors, formSchema } from "@/lib/forms/form";
import { pixKeyField } from "@/lib/forms/fields";
import { createWebhookBody } from "@/lib/webhooks/schemas";
import { onchainWithdrawBody } from "@/lib/withdrawals/schemas";
import { createPixOrderBody } from "@/lib/orders/schemas";

// The one error map, over the API's own schemas: every issue a form can meet reads in the visitor's
// language with the field's name, and never as the API's English or a raw catalog key.

const fd = (entries: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) f.append(k, v);
  return f;
};

function errorsOf(schema: z.ZodType, input: Record<string, string>, locale: "pt-BR" | "en" = "pt-BR") {
  const parsed = formSchema(schema, { decimal: ["value"], integer: ["expiresIn"] }).safeParse(fd(input), {
    reportInput: true,
  });
  if (parsed.success) throw new Error("expected issues");
  return fieldErrors(parsed.error, { locale, decimalFields: ["value"] });
}

const ENGLISH = /\b(must|is required|expected|invalid input|received|should)\b/i;
const RAW_KEY = /\b[a-z]+\.[a-zA-Z]+(\.[a-zA-Z]+)*\b/;

describe("the dashboard's zod error map", () => {
  it("words the API's BRL value checks in Portuguese, naming the field", () => {
    expect(errorsOf(bodyObject({ value: brlValue }), { value: "0" })).toEqual({
      value: ["Valor: precisa ser maior que zero."],
    });
    expect(errorsOf(bodyObject({ value: brlValue }), { value: "10,001" })).toEqual({
      value: ["Valor: use no máximo 2 casas decimais (centavos)."],
    });
    expect(errorsOf(bodyObject({ value: brlValue }), { value: "dez" })).toEqual({
      value: ["Valor: informe um valor em reais, por exemplo 10,50."],
    });
    expect(errorsOf(bodyObject({ value: brlValue }), {})).toEqual({ value: ["Valor: obrigatório."] });
    expect(errorsOf(bodyObject({ value: brlValue }), { value: "2000000" }).value[0]).toMatch(
      /^Valor: no máximo 1\.000\.000\.$/,
    );
  });

  it("words addresses, CPFs, URLs and PIX keys", () => {
    const w = errorsOf(onchainWithdrawBody, {
      value: "10",
      network: "bsc",
      toAddress: "0x52908400098527886E0F7030069857D2E4169EE7".replace("E7", "e7"),
    });
    expect(w.toAddress[0]).toMatch(/^Endereço da carteira: não é um endereço válido/);
    expect(errorsOf(bodyObject({ cpf: cpfField }), { cpf: "123.456.789-00" }).cpf[0]).toBe(
      "CPF do cliente: CPF inválido (os dígitos verificadores não conferem).",
    );
    expect(errorsOf(createWebhookBody, { url: "not a url" }).url[0]).toMatch(
      /^URL do endpoint: informe um endereço completo/,
    );
    expect(errorsOf(z.object({ pixKey: pixKeyField }), { pixKey: "x" }).pixKey[0]).toBe(
      "Chave PIX: não é uma chave válida. Use CPF, CNPJ, e-mail, celular (+55 com DDD) ou chave aleatória.",
    );
  });

  it("leaves no English and no raw key in any message of the order forms, in pt-BR", () => {
    const cases: [z.ZodType, Record<string, string>][] = [
      [createPixOrderBody, { value: "-1", cpf: "1", cnpj: "2", expiresIn: "5", orderId: "x".repeat(300) }],
      [onchainWithdrawBody, {}],
      [createWebhookBody, { url: "ftp://user:pw@example.com/#x" }],
    ];
    for (const [schema, input] of cases) {
      for (const messages of Object.values(errorsOf(schema, input))) {
        for (const m of messages) {
          expect(m, m).not.toMatch(ENGLISH);
          expect(m, m).not.toMatch(RAW_KEY);
        }
      }
    }
  });

  it("speaks English to an English visitor", () => {
    expect(errorsOf(bodyObject({ value: brlValue }), { value: "0" }, "en")).toEqual({
      value: ["Amount: must be greater than zero."],
    });
  });
});
