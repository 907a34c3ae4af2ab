import { describe, expect, it } from "vitest";
import { centavosCell, csvHeader, csvLine, csvStream, type CsvColumn } from "./csv";

type Row = { name: string | null; centavos: number; rate: string | null; at: Date };
const columns: CsvColumn<Row>[] = [
  { header: "Nome", value: (r) => ({ text: r.name }) },
  { header: "Valor (BRL)", value: (r) => ({ centavos: r.centavos }) },
  { header: "Cotação", value: (r) => ({ decimal: r.rate }) },
  { header: "Data", value: (r) => ({ at: r.at }) },
];
const at = new Date("2026-11-24T14:26:28.123Z");
const row = (over: Partial<Row> = {}): Row => ({
  name: "Maria",
  centavos: 1234,
  rate: "5.400000000000000000",
  at,
  ...over,
});

describe("CSV (RFC 4180)", () => {
  it("writes amounts as exact decimals from centavos, negative ones too", () => {
    expect(centavosCell(1234)).toBe("12.34");
    expect(centavosCell(5)).toBe("0.05");
    expect(centavosCell(-100)).toBe("-1.00");
    expect(centavosCell(123456789012)).toBe("1234567890.12");
    expect(centavosCell(-1234, ",")).toBe("-12,34");
    expect(() => centavosCell(0.5)).toThrow();
  });

  it("writes a plain line with commas, short decimals and São Paulo time with its offset, ending in CRLF", () => {
    expect(csvLine(row(), columns, "csv")).toBe("Maria,12.34,5.4,2026-11-24T11:26:28-03:00\r\n");
    expect(csvLine(row({ name: null, rate: null }), columns, "csv")).toBe(",12.34,,2026-11-24T11:26:28-03:00\r\n");
  });

  it("quotes fields holding the separator, quotes or line breaks, doubling inner quotes", () => {
    expect(csvLine(row({ name: 'Padaria "Pão", Quente' }), columns, "csv").split(",2026")[0]).toBe(
      '"Padaria ""Pão"", Quente",12.34,5.4',
    );
    expect(csvLine(row({ name: "linha 1\nlinha 2" }), columns, "csv")).toMatch(/^"linha 1\nlinha 2",/);
    expect(csvLine(row({ name: "a;b" }), columns, "csv")).toMatch(/^a;b,/);
    expect(csvLine(row({ name: "a;b" }), columns, "excel")).toMatch(/^"a;b";/);
  });

  it("neutralises cells a spreadsheet would run as formulas, but never our own negative amounts", () => {
    for (const evil of ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"]) {
      const cell = csvLine(row({ name: evil }), columns, "csv");
      expect(cell.replace(/^"/, "").startsWith("'")).toBe(true);
    }
    expect(csvLine(row({ name: "=1", centavos: -500 }), columns, "csv")).toBe(
      "'=1,-5.00,5.4,2026-11-24T11:26:28-03:00\r\n",
    );
  });

  it("the Excel pt-BR format: BOM, semicolons, decimal commas, local time without offset", () => {
    expect(csvHeader(columns as CsvColumn<unknown>[], "excel")).toBe("\uFEFFNome;Valor (BRL);Cotação;Data\r\n");
    expect(csvHeader(columns as CsvColumn<unknown>[], "csv")).toBe("Nome,Valor (BRL),Cotação,Data\r\n");
    expect(csvLine(row({ centavos: -123456 }), columns, "excel")).toBe("Maria;-1234,56;5,4;2026-11-24 11:26:28\r\n");
  });

  it("streams the header, then one chunk per page, reading a page only when asked", async () => {
    const read_: number[] = [];
    async function* pages() {
      for (let p = 0; p < 3; p++) {
        read_.push(p);
        yield [row({ name: `p${p}a` }), row({ name: `p${p}b` })];
      }
    }
    const stream = csvStream(pages(), columns, "csv");
    const reader = stream.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("Nome,Valor (BRL),Cotação,Data\r\n");
    // highWaterMark 1: at most one page is read ahead of the reader.
    expect(read_.length).toBeLessThanOrEqual(1);
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(
      rest
        .split("\r\n")
        .filter(Boolean)
        .map((l) => l.split(",")[0]),
    ).toEqual(["p0a", "p0b", "p1a", "p1b", "p2a", "p2b"]);
  });

  it("stops reading pages when the download is cancelled", async () => {
    let finished = false;
    async function* pages() {
      try {
        for (let p = 0; ; p++) yield [row({ name: `p${p}` })];
      } finally {
        finished = true;
      }
    }
    const reader = csvStream(pages(), columns, "csv").getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    expect(finished).toBe(true);
  });
});
