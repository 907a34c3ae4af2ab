import { describe, expect, it } from "vitest";
import { parseRecipientFields, pixKeyHoldEnds, recipientDocument } from "./fields";

describe("recipient fields", () => {
  it("accepts CPF and CNPJ only with valid check digits", () => {
    expect(recipientDocument("529.982.247-25")).toBe("52998224725");
    expect(recipientDocument("52998224724")).toBeNull();
    expect(recipientDocument("11.222.333/0001-81")).toBe("11222333000181");
    expect(recipientDocument("11222333000180")).toBeNull();
    expect(recipientDocument("123")).toBeNull();
  });

  it("classifies the PIX key and refuses a bad one", () => {
    const ok = parseRecipientFields({ name: " Ana ", document: "52998224725", pixKey: "ana@example.com" });
    expect(ok).toMatchObject({ name: "Ana", pixKeyType: "email" });
    expect(parseRecipientFields({ name: "Ana", document: "52998224725", pixKey: "not a key" })).toMatchObject({
      code: "RECIPIENT_PIX_KEY_INVALID",
    });
    expect(parseRecipientFields({ name: "", document: "52998224725", pixKey: "ana@example.com" })).toMatchObject({
      code: "RECIPIENT_NAME_INVALID",
    });
  });

  it("holds a changed key for the hold period", () => {
    expect(pixKeyHoldEnds(new Date("2026-01-01T00:00:00Z"), 24).toISOString()).toBe("2026-01-02T00:00:00.000Z");
  });
});
