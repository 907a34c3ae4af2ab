import { describe, expect, it } from "vitest";
import { encodeCryptoPixId } from "@/lib/ids";
import { parseOrderSearch } from "./search";

describe("parseOrderSearch", () => {
  it("lower-cases the text and reads an amount typed either way", () => {
    expect(parseOrderSearch("  Maria ")).toMatchObject({ substrings: ["maria"], centavos: null });
    expect(parseOrderSearch("25,90")).toMatchObject({ substrings: ["25,90"], centavos: 2590 });
    expect(parseOrderSearch("R$ 1.234,56").centavos).toBe(123456);
    expect(parseOrderSearch("1,234.56").centavos).toBe(123456);
    expect(parseOrderSearch("150").centavos).toBe(15000);
  });

  it("is no amount for zero, three decimals or words", () => {
    // "1,234" reads as pt-BR 1.234 (three decimals): no amount.
    for (const q of ["0", "0,00", "12.345.6", "abc", "-5", "1,234"]) expect(parseOrderSearch(q).centavos).toBeNull();
    expect(parseOrderSearch("1.2345").centavos).toBeNull();
  });

  it("adds the bare form of a masked CPF or CNPJ", () => {
    expect(parseOrderSearch("529.982.247-25").substrings).toEqual(["529.982.247-25", "52998224725"]);
    expect(parseOrderSearch("11.222.333/0001-81").substrings).toEqual(["11.222.333/0001-81", "11222333000181"]);
    expect(parseOrderSearch("982.247").substrings).toEqual(["982.247", "982247"]);
    expect(parseOrderSearch("12.ABC.345/01DE-35").substrings).toEqual(["12.abc.345/01de-35", "12abc34501de35"]);
    expect(parseOrderSearch("pedido-1042").substrings).toEqual(["pedido-1042"]);
    // An amount's digits would match unrelated ids.
    expect(parseOrderSearch("25.90").substrings).toEqual(["25.90"]);
  });

  it("looks up the payment id a payCryptoPixId stands for", () => {
    const id = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f";
    expect(parseOrderSearch(encodeCryptoPixId(id)).idRange).toEqual({ from: id, to: id });
  });

  it("reads the beginning of an id, with or without dashes, as a range of ids", () => {
    expect(parseOrderSearch("4E67B6B0").idRange).toEqual({
      from: "4e67b6b0-0000-0000-0000-000000000000",
      to: "4e67b6b0-ffff-ffff-ffff-ffffffffffff",
    });
    expect(parseOrderSearch("4e67b6b0-dc5").idRange).toEqual({
      from: "4e67b6b0-dc50-0000-0000-000000000000",
      to: "4e67b6b0-dc5f-ffff-ffff-ffffffffffff",
    });
    const full = "4e67b6b0-dc5d-4a56-8302-98503fe057d5";
    expect(parseOrderSearch(full).idRange).toEqual({ from: full, to: full });
    for (const q of ["4e67b", "4e-67b6b0", "maria", "4e67b6b0-dc5d-4a56-8302-98503fe057d5a"])
      expect(parseOrderSearch(q).idRange).toBeNull();
  });

  it("looks for no substring shorter than three characters", () => {
    expect(parseOrderSearch("ab")).toMatchObject({ substrings: [], centavos: null, idRange: null });
    expect(parseOrderSearch("12")).toMatchObject({ substrings: [], centavos: 1200 });
  });
});
