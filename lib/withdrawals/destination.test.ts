import { describe, expect, it } from "vitest";
import { issueMessage, type ZodIssue } from "@/lib/i18n/zod";
import { pixOutDestination, withdrawalAddress } from "./destination";
import { onchainWithdrawBody } from "./schemas";

const messages = (schema: typeof pixOutDestination | typeof withdrawalAddress, value: string) => {
  const parsed = schema.safeParse(value, { reportInput: true });
  return parsed.success ? [] : parsed.error.issues.map((i) => issueMessage(i as ZodIssue, "pt-BR", "Destino"));
};

describe("withdrawal destinations, checked before the review", () => {
  it("the API's body and the form share one address schema", () => {
    expect(onchainWithdrawBody.shape.toAddress).toBe(withdrawalAddress);
  });

  it("accepts a checksummed or all-lower-case address and refuses a broken checksum", () => {
    expect(messages(withdrawalAddress, "0x52908400098527886E0F7030069857D2E4169EE7")).toEqual([]);
    expect(messages(withdrawalAddress, "0x52908400098527886e0f7030069857d2e4169ee7")).toEqual([]);
    // One letter's case flipped: EIP-55 says it is a typo.
    expect(messages(withdrawalAddress, "0x52908400098527886E0F7030069857D2E4169Ee7")[0]).toMatch(
      /^Destino: não é um endereço válido.*EIP-55/,
    );
    expect(messages(withdrawalAddress, "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE")[0]).toMatch(
      /^Destino: não é um endereço válido/,
    );
  });

  it("tells which PIX key kind was meant and what is wrong with it", () => {
    expect(messages(pixOutDestination, "529.982.247-25")).toEqual([]);
    expect(messages(pixOutDestination, "+5511998765432")).toEqual([]);
    expect(messages(pixOutDestination, "loja@example.com")).toEqual([]);
    expect(messages(pixOutDestination, "529.982.247-26")).toEqual([
      "Destino: parece um CPF, mas os dígitos verificadores não conferem.",
    ]);
    expect(messages(pixOutDestination, "11.222.333/0001-82")).toEqual([
      "Destino: parece um CNPJ, mas os dígitos verificadores não conferem.",
    ]);
    expect(messages(pixOutDestination, "11 99876-5432")[0]).toMatch(/^Destino: celular como chave PIX vai com \+55/);
    expect(messages(pixOutDestination, "not a key")[0]).toMatch(/^Destino: não é uma chave válida/);
    expect(messages(pixOutDestination, "  ")).toEqual(["Destino: obrigatório."]);
  });
});
