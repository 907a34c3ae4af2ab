import { describe, expect, it } from "vitest";
import { fieldErrors } from "@/lib/forms/form";
import { addDays } from "@/lib/pix/business-days";
import { saoPauloDay } from "@/lib/day-range";
import { INVOICE_FORM_LABELS, invoiceForm } from "./schemas";

// The new-invoice form as a phone fills it in becomes the body POST /api/v1/invoices takes, and is
// judged by the API's own schema: one document field for CPF or CNPJ, a fine and monthly interest as
// percentages, one discount until a date (the due date when blank).

const today = saoPauloDay();
const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
};
const base = {
  value: "1.234,56",
  dueDate: addDays(today, 10),
  payerName: "Maria Souza",
  payerDocument: "529.982.247-25",
};

describe("the new-invoice form", () => {
  it("becomes the API's body: a CPF or a CNPJ, percentages, the discount until the due date when blank", () => {
    const parsed = invoiceForm.parse(
      form({
        ...base,
        payerEmail: "maria@example.com",
        notifyPayer: "on",
        finePercent: "2",
        interestPercent: "1,5",
        discountValue: "10",
        daysAfterDue: "15",
      }),
    );
    expect(parsed).toMatchObject({
      value: 123456,
      dueDate: addDays(today, 10),
      daysAfterDue: 15,
      payer: { name: "Maria Souza", cpf: "52998224725", email: "maria@example.com" },
      notifyPayer: true,
      fine: { modalidade: 2, hundredths: 200 },
      interest: { modalidade: 3, hundredths: 150 },
      discount: { modalidade: 1, dates: [{ date: addDays(today, 10), hundredths: 1000 }] },
    });
    expect(invoiceForm.parse(form({ ...base, payerDocument: "11.222.333/0001-81" }))).toMatchObject({
      payer: { cnpj: "11222333000181" },
      notifyPayer: false,
      daysAfterDue: 30,
    });
  });

  it("words its refusals under the fields that fill them", () => {
    const result = invoiceForm.safeParse(form({ ...base, payerDocument: "123", value: "abc" }), { reportInput: true });
    expect(result.success).toBe(false);
    const errors = fieldErrors(result.error!, {
      locale: "pt-BR",
      decimalFields: ["value"],
      labels: INVOICE_FORM_LABELS,
    });
    expect(Object.keys(errors).sort()).toEqual(["payerDocument", "value"]);
    const noEmail = invoiceForm.safeParse(form({ ...base, notifyPayer: "on" }));
    expect(noEmail.error?.issues.map((i) => i.path.join("."))).toEqual(["notifyPayer"]);
  });
});
