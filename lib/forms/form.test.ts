import { describe, expect, it } from "vitest";
import { z } from "zod";
import { brlValue } from "@/lib/fields";
import { echoValues, fieldErrors, formSchema, formToObject, parseDecimalInput } from "./form";
import { translate } from "@/lib/i18n";

describe("parseDecimalInput", () => {
  it.each([
    ["10", 10],
    ["10,5", 10.5],
    ["10.50", 10.5],
    ["1.234,56", 1234.56],
    ["1,234.56", 1234.56],
    ["R$ 1.234,56", 1234.56],
    ["1234,56", 1234.56],
    [" 0,01 ", 0.01],
  ])("%s → %d", (input, expected) => {
    expect(parseDecimalInput(input)).toBe(expected);
  });

  it.each(["", "abc", "1,2,3", "1.2.3,4,5", "--1", "1e3", "10,"])("refuses %j", (input) => {
    expect(parseDecimalInput(input)).toBeNaN();
  });
});

describe("form parsing", () => {
  const fd = (entries: Record<string, string>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(entries)) f.append(k, v);
    return f;
  };

  it("drops Next's action fields and blanks, converts numbers", () => {
    const obj = formToObject(fd({ $ACTION_ID_1: "x", value: "10,50", name: "  ", expiresIn: "900", note: " hi " }), {
      decimal: ["value"],
      integer: ["expiresIn"],
    });
    expect(obj).toEqual({ value: 10.5, expiresIn: 900, note: "hi" });
  });

  it("lets the API's own schema judge the converted values", () => {
    const schema = formSchema(z.object({ value: brlValue }), { decimal: ["value"] });
    expect(schema.parse(fd({ value: "1.234,56" }))).toEqual({ value: 123456 });
    const bad = schema.safeParse(fd({ value: "10,001" }));
    expect(bad.success).toBe(false);
    const text = schema.safeParse(fd({ value: "dez" }));
    expect(text.success || fieldErrors(text.error, { locale: "pt-BR", decimalFields: ["value"] })).toEqual({
      value: ["Valor: informe um valor em reais, por exemplo 10,50."],
    });
  });

  it("never echoes passwords", () => {
    expect(echoValues(fd({ email: "a@b.co", password: "secret123" }))).toEqual({ email: "a@b.co" });
  });
});

describe("formSchema and text PostgreSQL cannot store", () => {
  it("answers a field holding NUL with that field's error, whatever the schema", () => {
    const schema = formSchema(z.object({ companyName: z.string(), note: z.string().optional() }));
    const f = new FormData();
    f.append("companyName", "Padaria\u0000");
    f.append("note", "ok");
    const parsed = schema.safeParse(f);
    expect(parsed.success).toBe(false);
    expect(fieldErrors(parsed.error!, { locale: "pt-BR" })).toEqual({
      companyName: [translate("pt-BR", "errors.invalidText")],
    });
  });

  it("a NUL in a field's name is a form-level error", () => {
    const f = new FormData();
    f.append("a\u0000", "x");
    const parsed = formSchema(z.object({})).safeParse(f);
    expect(fieldErrors(parsed.error!, { locale: "pt-BR" })).toEqual({
      _form: [translate("pt-BR", "errors.invalidText")],
    });
  });
});
