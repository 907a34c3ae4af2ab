// CSV exports (statement, orders, withdrawals), written as a stream of pages so an export of any
// length holds one page in memory. Two formats, because no single file suits both readers
// (docs/dashboard.md, "Exports"):
//   csv    RFC 4180 for programs and accounting tools: "," between fields, amounts "1234.56",
//          times ISO 8601 with the São Paulo offset, UTF-8 without a BOM (a BOM would become part of
//          the first header for most parsers).
//   excel  what Excel set to pt-BR opens by double-click: ";" between fields (its list separator,
//          since "," is its decimal mark), amounts "1234,56", times "2026-11-24 11:26:28" (São Paulo),
//          UTF-8 with a BOM (without one Excel reads the file as Windows-1252 and breaks accents).
// Both end lines with CRLF and quote a field only when it holds the separator, a quote or a line
// break. A text cell that a spreadsheet would run as a formula (starting with = + - @, tab or CR) is
// prefixed with ' (OWASP's advice); amounts and times are ours and never text, so "-12.34" stays a
// number.

export const CSV_FORMATS = ["csv", "excel"] as const;
export type CsvFormat = (typeof CSV_FORMATS)[number];

/** A cell: text from people or providers, BRL centavos, an exact decimal string, or an instant. */
export type CsvValue =
  { text: string | null } | { centavos: number | null } | { decimal: string | null } | { at: Date | null };

export type CsvColumn<T> = { header: string; value: (row: T) => CsvValue };

type Dialect = { separator: string; decimalMark: string; bom: boolean; time: (at: Date) => string };

const saoPaulo = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Sao_Paulo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
  timeZoneName: "longOffset",
});

function localParts(at: Date) {
  const p = Object.fromEntries(saoPaulo.formatToParts(at).map((x) => [x.type, x.value]));
  // "GMT-03:00"; a zone at UTC is written "GMT".
  const offset = p.timeZoneName === "GMT" ? "+00:00" : p.timeZoneName.replace("GMT", "");
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}:${p.second}`, offset };
}

const DIALECTS: Record<CsvFormat, Dialect> = {
  csv: {
    separator: ",",
    decimalMark: ".",
    bom: false,
    time: (at) => {
      const l = localParts(at);
      return `${l.date}T${l.time}${l.offset}`;
    },
  },
  excel: {
    separator: ";",
    decimalMark: ",",
    bom: true,
    time: (at) => {
      const l = localParts(at);
      return `${l.date} ${l.time}`;
    },
  },
};

const FORMULA_START = /^[=+\-@\t\r]/;

/** Centavos as an exact decimal ("-12.34"), never through a float. */
export function centavosCell(centavos: number, decimalMark = "."): string {
  if (!Number.isSafeInteger(centavos)) throw new RangeError(`not a centavo amount: ${centavos}`);
  const abs = Math.abs(centavos);
  return `${centavos < 0 ? "-" : ""}${Math.floor(abs / 100)}${decimalMark}${String(abs % 100).padStart(2, "0")}`;
}

/** numeric(38,18) columns read as "12.500000000000000000": the same number, written short. */
function plainDecimal(s: string): string {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

function quote(field: string, separator: string): string {
  return field.includes(separator) || /["\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

function cell(v: CsvValue, d: Dialect): string {
  if ("text" in v) {
    if (v.text === null) return "";
    return quote(FORMULA_START.test(v.text) ? `'${v.text}` : v.text, d.separator);
  }
  if ("centavos" in v) return v.centavos === null ? "" : centavosCell(v.centavos, d.decimalMark);
  if ("decimal" in v) return v.decimal === null ? "" : plainDecimal(v.decimal).replace(".", d.decimalMark);
  return v.at === null ? "" : d.time(v.at);
}

export function csvLine<T>(row: T, columns: readonly CsvColumn<T>[], format: CsvFormat): string {
  const d = DIALECTS[format];
  return columns.map((c) => cell(c.value(row), d)).join(d.separator) + "\r\n";
}

export function csvHeader(columns: readonly CsvColumn<unknown>[], format: CsvFormat): string {
  const d = DIALECTS[format];
  return (d.bom ? "\uFEFF" : "") + columns.map((c) => quote(c.header, d.separator)).join(d.separator) + "\r\n";
}

/**
 * The file as a byte stream: the header, then one chunk per page, each read only when the reader
 * asks for more (pull), so a slow download holds back the database reads instead of piling up rows.
 */
export function csvStream<T>(
  pages: AsyncIterable<T[]>,
  columns: readonly CsvColumn<T>[],
  format: CsvFormat,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let headerSent = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(csvHeader(columns as readonly CsvColumn<unknown>[], format)));
          return;
        }
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        let text = "";
        for (const row of next.value) text += csvLine(row, columns, format);
        controller.enqueue(encoder.encode(text));
      },
      async cancel() {
        await iterator.return?.(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
