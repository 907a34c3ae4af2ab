import { describe, expect, it } from "vitest";
import { classifyPixKey, normalizePixKeyAs } from "./keys";

const ok = (type: Parameters<typeof normalizePixKeyAs>[0], input: string) => {
  const r = normalizePixKeyAs(type, input);
  if (!r.ok) throw new Error(`${type} ${JSON.stringify(input)} refused: ${r.problem}`);
  return r.key.normalized;
};
const problem = (type: Parameters<typeof normalizePixKeyAs>[0], input: string) => {
  const r = normalizePixKeyAs(type, input);
  return r.ok ? null : r.problem;
};

describe("normalizePixKeyAs: a key typed under the kind the person chose", () => {
  it("celular: 11 digits are DDD + number, not a CPF; +55 is added", () => {
    expect(ok("phone", "11987654321")).toBe("+5511987654321");
    expect(ok("phone", "(11) 98765-4321")).toBe("+5511987654321");
    expect(ok("phone", "11 9 8765 4321")).toBe("+5511987654321");
    expect(ok("phone", "+55 (11) 98765-4321")).toBe("+5511987654321");
    expect(ok("phone", "5511987654321")).toBe("+5511987654321");
    expect(ok("phone", "011987654321")).toBe("+5511987654321");
    // DDD 55 (Rio Grande do Sul) is an area code, not the country's.
    expect(ok("phone", "55987654321")).toBe("+5555987654321");
    expect(ok("phone", "1133334444")).toBe("+551133334444");
  });

  it("celular: refuses what is no Brazilian number", () => {
    expect(problem("phone", "987654321")).toBe("format");
    expect(problem("phone", "+1 415 555 0100")).toBe("format");
    expect(problem("phone", "10987654321")).toBe("format");
    expect(problem("phone", "00987654321")).toBe("format");
    expect(problem("phone", "11 98765-432a")).toBe("format");
  });

  it("CPF: dots and dash dropped; a wrong check digit is said as such", () => {
    expect(ok("cpf", "529.982.247-25")).toBe("52998224725");
    expect(ok("cpf", " 52998224725 ")).toBe("52998224725");
    expect(problem("cpf", "529.982.247-26")).toBe("checkDigits");
    expect(problem("cpf", "5299822472")).toBe("format");
    expect(problem("cpf", "111.111.111-11")).toBe("checkDigits");
  });

  it("CNPJ: numeric and alphanumeric, punctuation dropped, upper-cased", () => {
    expect(ok("cnpj", "11.222.333/0001-81")).toBe("11222333000181");
    expect(ok("cnpj", "12.abc.345/01de-35")).toBe("12ABC34501DE35");
    expect(problem("cnpj", "11.222.333/0001-82")).toBe("checkDigits");
    expect(problem("cnpj", "11.222.333/0001")).toBe("format");
  });

  it("e-mail: lower-cased; refuses what is not an address", () => {
    expect(ok("email", " Maria.Silva@Example.COM ")).toBe("maria.silva@example.com");
    expect(problem("email", "maria@")).toBe("format");
    expect(problem("email", "11987654321")).toBe("format");
  });

  it("chave aleatória: lower-cased, dashes put back when pasted without them", () => {
    expect(ok("evp", "123E4567-E89B-12D3-A456-426614174000")).toBe("123e4567-e89b-12d3-a456-426614174000");
    expect(ok("evp", "123e4567e89b12d3a456426614174000")).toBe("123e4567-e89b-12d3-a456-426614174000");
    expect(problem("evp", "123e4567-e89b-12d3-a456")).toBe("format");
  });

  it("an empty key is refused under every kind", () => {
    for (const type of ["cpf", "cnpj", "phone", "email", "evp"] as const) expect(problem(type, "  ")).toBe("format");
  });

  it("what it returns, the service reads back as the same kind and the same key", () => {
    const cases = [
      ["phone", "11987654321"],
      ["cpf", "529.982.247-25"],
      ["cnpj", "11.222.333/0001-81"],
      ["email", "Maria@Example.com"],
      ["evp", "123e4567e89b12d3a456426614174000"],
    ] as const;
    for (const [type, input] of cases) {
      const normalized = ok(type, input);
      expect(classifyPixKey(normalized)).toEqual({ type, normalized });
    }
  });
});
