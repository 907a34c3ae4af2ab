import { BrCodeError } from "./errors";

export type TlvField = { id: string; value: string };

// The BR Code counts lengths in characters, not UTF-16 code units or bytes, so a
// character outside the BMP must count once; Array.from splits by code point. Codes we issue are
// plain ASCII, so the split (an array of one-letter strings) is only made when a surrogate is there.
const SURROGATE = /[\uD800-\uDFFF]/;
function charLength(value: string): number {
  return SURROGATE.test(value) ? Array.from(value).length : value.length;
}

export function encodeTlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) {
    throw new BrCodeError(`EMV field id "${id}" must be two digits`);
  }
  const length = charLength(value);
  if (length === 0) {
    throw new BrCodeError(`EMV field ${id} must not be empty`);
  }
  if (length > 99) {
    throw new BrCodeError(`EMV field ${id} is longer than 99 characters`);
  }
  return `${id}${String(length).padStart(2, "0")}${value}`;
}

export function parseTlv(s: string): TlvField[] {
  const chars = Array.from(s);
  const fields: TlvField[] = [];
  let pos = 0;
  while (pos < chars.length) {
    if (pos + 4 > chars.length) {
      throw new BrCodeError("PIX QR code is truncated: a field header is incomplete");
    }
    const id = chars.slice(pos, pos + 2).join("");
    const lengthText = chars.slice(pos + 2, pos + 4).join("");
    if (!/^\d{2}$/.test(id)) {
      throw new BrCodeError(`PIX QR code is malformed: "${id}" is not a valid field id`);
    }
    if (!/^\d{2}$/.test(lengthText)) {
      throw new BrCodeError(`PIX QR code is malformed: field ${id} has an invalid length`);
    }
    const length = Number(lengthText);
    if (length === 0) {
      throw new BrCodeError(`PIX QR code is malformed: field ${id} is empty`);
    }
    const start = pos + 4;
    if (start + length > chars.length) {
      throw new BrCodeError(`PIX QR code is truncated: field ${id} is shorter than its declared length`);
    }
    fields.push({ id, value: chars.slice(start, start + length).join("") });
    pos = start + length;
  }
  return fields;
}
