import { describe, expect, it } from "vitest";
import { readKeyEntry } from "./pix-key-input";

describe("readKeyEntry: the PIX-out form's key, read as the kind chosen", () => {
  it("a celular typed without +55 is sent with it", () => {
    expect(readKeyEntry("phone", "11987654321")).toEqual({ ok: true, type: "phone", normalized: "+5511987654321" });
  });

  it("names what to fix: no kind chosen, nothing typed, the kind's shape, a CPF's or CNPJ's check digits", () => {
    expect(readKeyEntry(null, "11987654321")).toEqual({ ok: false, message: "withdrawals.keyTypeMissing" });
    expect(readKeyEntry("email", " ")).toEqual({ ok: false, message: "errors.field.required" });
    expect(readKeyEntry("phone", "98765")).toEqual({ ok: false, message: "withdrawals.keyInvalid.phone" });
    expect(readKeyEntry("cpf", "11987654321")).toEqual({ ok: false, message: "withdrawals.keyCheckDigits.cpf" });
    expect(readKeyEntry("cnpj", "11.222.333/0001-82")).toEqual({
      ok: false,
      message: "withdrawals.keyCheckDigits.cnpj",
    });
    expect(readKeyEntry("evp", "abc")).toEqual({ ok: false, message: "withdrawals.keyInvalid.evp" });
  });
});
