import { describe, expect, it } from "vitest";
import { fieldErrors } from "@/lib/forms/form";
import { addDays } from "@/lib/pix/business-days";
import { saoPauloDay } from "@/lib/day-range";
import { SUBSCRIPTION_FORM_LABELS, subscriptionForm } from "./schemas";

// The new-subscription form becomes the body POST /api/v1/subscriptions takes and is judged by the
// API's own schema: one document field for CPF or CNPJ, the amount's kind as a choice.

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
};
const base = {
  journey: "JORNADA_3",
  amountType: "FIXED",
  value: "89,90",
  periodicity: "MENSAL",
  firstDate: addDays(saoPauloDay(), 5),
  retryPolicy: "PERMITE_3R_7D",
  payerName: "Maria Souza",
  payerDocument: "529.982.247-25",
  description: "Plano mensal Academia",
};

describe("the new-subscription form", () => {
  it("becomes the API's body: a fixed amount with a CPF, a variable one with its minimum and a CNPJ", () => {
    expect(subscriptionForm.parse(form({ ...base, reference: "contrato-1" }))).toMatchObject({
      payer: { name: "Maria Souza", cpf: "52998224725" },
      amount: { type: "FIXED", value: 8990 },
      periodicity: "MENSAL",
      retryPolicy: "PERMITE_3R_7D",
      journey: "JORNADA_3",
      reference: "contrato-1",
    });
    const variable = subscriptionForm.parse(
      form({
        ...base,
        amountType: "VARIABLE",
        minimum: "30",
        payerDocument: "11.222.333/0001-81",
        journey: "JORNADA_2",
      }),
    );
    expect(variable).toMatchObject({
      payer: { cnpj: "11222333000181" },
      amount: { type: "VARIABLE", value: 8990, minimum: 3000 },
      journey: "JORNADA_2",
    });
    expect(variable).not.toHaveProperty("payer.cpf");
  });

  it("refuses what the API refuses, beside the field that fills it, in Portuguese", () => {
    const bad = subscriptionForm.safeParse(
      form({ ...base, amountType: "VARIABLE", value: "20", minimum: "30", description: "x".repeat(36) }),
    );
    expect(bad.success).toBe(false);
    const errors = fieldErrors(bad.error!, { locale: "pt-BR", labels: SUBSCRIPTION_FORM_LABELS });
    expect(Object.keys(errors)).toEqual(expect.arrayContaining(["description"]));
    expect(Object.keys(errors).some((k) => k === "amount" || k === "value")).toBe(true);
    expect(subscriptionForm.safeParse(form({ ...base, payerDocument: "529.982.247-24" })).success).toBe(false);
    expect(subscriptionForm.safeParse(form({ ...base, periodicity: "DIARIA" })).success).toBe(false);
  });
});
