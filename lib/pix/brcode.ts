import { crc16Ccitt } from "./crc16";
import { encodeTlv, parseTlv, type TlvField } from "./emv";
import { BrCodeError } from "./errors";
import { classifyPixKey } from "./keys";

export { BrCodeError };

export type StaticBrCodeInput = {
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  amountCentavos?: number;
  txid?: string;
  description?: string;
};

export type ParsedBrCode = {
  kind: "static" | "dynamic";
  pixKey: string | null;
  url: string | null;
  amountCentavos: number | null;
  merchantName: string;
  merchantCity: string;
  txid: string | null;
  description: string | null;
  reusable: boolean;
};

const PIX_GUI = "br.gov.bcb.pix";
const NAME_MAX = 25;
const CITY_MAX = 15;
const TXID_RE = /^[A-Za-z0-9]{1,25}$/;
// "***" is the manual's placeholder for "no transaction id".
const NO_TXID = "***";
// EMV caps field 54 at 13 characters, so "9999999999.99" is the largest amount.
const AMOUNT_MAX_CENTAVOS = 999_999_999_999;
const MAX_INPUT_LENGTH = 512;

// Readers disagree on how to count the length of accented characters, so free text we
// emit is reduced to printable ASCII: NFKD splits off accents and folds compatibility
// forms such as "º", then whatever is still not ASCII is dropped.
function toPlainAscii(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function truncate(text: string, max: number): string {
  return text.slice(0, max).trimEnd();
}

function formatAmount(centavos: number): string {
  const reais = Math.floor(centavos / 100);
  const cents = centavos % 100;
  return `${reais}.${String(cents).padStart(2, "0")}`;
}

export type BrCodeReceiver = Pick<StaticBrCodeInput, "pixKey" | "merchantName" | "merchantCity">;
export type BrCodePayment = Pick<StaticBrCodeInput, "amountCentavos" | "txid" | "description">;

/**
 * Validates and encodes the receiver's part of a static BR Code once, for a receiver that issues many
 * codes (the sandbox PSP issues one per order); the returned function adds amount, txid and
 * description. Throws BrCodeError for an invalid receiver.
 */
export function staticBrCodeEncoder(receiver: BrCodeReceiver): (payment: BrCodePayment) => string {
  const key = classifyPixKey(receiver.pixKey);
  if (key === null) {
    throw new BrCodeError("PIX key is not a valid CPF, CNPJ, e-mail, +55 phone number or random (EVP) key");
  }

  const merchantName = truncate(toPlainAscii(receiver.merchantName ?? ""), NAME_MAX);
  if (merchantName === "") throw new BrCodeError("Merchant name is required");
  const merchantCity = truncate(toPlainAscii(receiver.merchantCity ?? ""), CITY_MAX);
  if (merchantCity === "") throw new BrCodeError("Merchant city is required");

  const keyInfo = encodeTlv("00", PIX_GUI) + encodeTlv("01", key.normalized);
  const head = encodeTlv("00", "01");
  const category = encodeTlv("52", "0000") + encodeTlv("53", "986");
  const place = encodeTlv("58", "BR") + encodeTlv("59", merchantName) + encodeTlv("60", merchantCity);

  return (payment) => {
    let amount: string | null = null;
    if (payment.amountCentavos !== undefined) {
      const c = payment.amountCentavos;
      if (!Number.isSafeInteger(c) || c <= 0) {
        throw new BrCodeError("Amount must be a positive whole number of centavos");
      }
      if (c > AMOUNT_MAX_CENTAVOS) {
        throw new BrCodeError("Amount is too large for a PIX QR code");
      }
      amount = formatAmount(c);
    }

    let txid = NO_TXID;
    if (payment.txid !== undefined) {
      if (!TXID_RE.test(payment.txid)) {
        throw new BrCodeError("Transaction id (txid) must be 1 to 25 letters or digits");
      }
      txid = payment.txid;
    }

    const description = payment.description === undefined ? "" : toPlainAscii(payment.description);

    let accountInfo = keyInfo;
    if (description !== "") accountInfo += encodeTlv("02", description);
    if (accountInfo.length > 99) {
      throw new BrCodeError("PIX key and description together are too long for a PIX QR code");
    }

    const body =
      head +
      encodeTlv("26", accountInfo) +
      category +
      (amount === null ? "" : encodeTlv("54", amount)) +
      place +
      encodeTlv("62", encodeTlv("05", txid)) +
      "6304";
    return body + crc16Ccitt(body);
  };
}

export function encodeStaticBrCode(input: StaticBrCodeInput): string {
  return staticBrCodeEncoder(input)(input);
}

function parseAmount(value: string): number {
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value);
  if (m === null || value.length > 13) {
    throw new BrCodeError(`PIX QR code amount "${value}" is not a valid decimal with at most 2 decimal places`);
  }
  // Built from the digit strings so that no binary floating point is ever involved.
  const centavos = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  if (centavos <= 0) throw new BrCodeError("PIX QR code amount must be greater than zero");
  return centavos;
}

function parseTemplate(field: TlvField, what: string): TlvField[] {
  try {
    return parseTlv(field.value);
  } catch {
    throw new BrCodeError(`PIX QR code ${what} (field ${field.id}) is malformed`);
  }
}

// EMV ids are unique within a template; a repeated one means two readers could see different values.
function uniqueIds(fields: TlvField[], parentId: string | null): Map<string, string> {
  const map = new Map<string, string>();
  for (const f of fields) {
    if (map.has(f.id)) {
      throw new BrCodeError(
        parentId === null
          ? `PIX QR code contains field ${f.id} more than once`
          : `PIX QR code field ${parentId} contains subfield ${f.id} more than once`,
      );
    }
    map.set(f.id, f.value);
  }
  return map;
}

export function parseBrCode(input: string): ParsedBrCode {
  if (typeof input !== "string") throw new BrCodeError("PIX QR code must be a string");
  const code = input.trim();
  if (code === "") throw new BrCodeError("PIX QR code is empty");
  if (code.length > MAX_INPUT_LENGTH) {
    throw new BrCodeError(`PIX QR code is too long (more than ${MAX_INPUT_LENGTH} characters)`);
  }
  if (!code.startsWith("000201")) {
    throw new BrCodeError("This is not a PIX QR code: it must start with the payload format indicator 000201");
  }

  // The CRC is checked before the structure so that any typo or damage is reported as such,
  // rather than as whatever structural error it happens to cause.
  const crcMatch = /6304([0-9A-Fa-f]{4})$/.exec(code);
  if (crcMatch === null) {
    throw new BrCodeError("PIX QR code has no checksum (CRC) field at the end");
  }
  const expectedCrc = crc16Ccitt(code.slice(0, -4));
  if (crcMatch[1].toUpperCase() !== expectedCrc) {
    throw new BrCodeError("PIX QR code checksum (CRC) does not match");
  }

  const fields = parseTlv(code);
  // The CRC regex could have matched the tail of another field's value; only a real
  // trailing field 63 counts.
  if (fields[fields.length - 1].id !== "63" || fields[fields.length - 1].value.length !== 4) {
    throw new BrCodeError("PIX QR code has no checksum (CRC) field at the end");
  }
  const top = uniqueIds(fields, null);

  const initiation = top.get("01");
  if (initiation !== undefined && initiation !== "11" && initiation !== "12") {
    throw new BrCodeError('PIX QR code point of initiation method must be "11" or "12"');
  }
  const reusable = initiation !== "12";

  let pixAccount: Map<string, string> | null = null;
  for (const field of fields) {
    const n = Number(field.id);
    if (n < 26 || n > 51) continue;
    const subfields = parseTemplate(field, "merchant account information");
    const gui = subfields.find((f) => f.id === "00")?.value ?? "";
    if (gui.toLowerCase() !== PIX_GUI) continue;
    const sub = uniqueIds(subfields, field.id);
    if (pixAccount !== null) {
      throw new BrCodeError("PIX QR code contains more than one PIX merchant account information field");
    }
    pixAccount = sub;
  }
  if (pixAccount === null) {
    throw new BrCodeError(`PIX QR code has no merchant account information for "${PIX_GUI}"`);
  }

  const pixKey = pixAccount.get("01") ?? null;
  const url = pixAccount.get("25") ?? null;
  if (pixKey === null && url === null) {
    throw new BrCodeError("PIX QR code carries neither a PIX key nor a payment URL");
  }
  if (pixKey !== null && url !== null) {
    // Payers' apps would not agree on which one to pay, so the code is ambiguous.
    throw new BrCodeError("PIX QR code carries both a PIX key and a payment URL");
  }

  const mcc = top.get("52");
  if (mcc === undefined || !/^\d{4}$/.test(mcc)) {
    throw new BrCodeError("PIX QR code merchant category code (field 52) is missing or invalid");
  }
  if (top.get("53") !== "986") {
    throw new BrCodeError("PIX QR code currency must be Brazilian real (986)");
  }
  const amountText = top.get("54");
  const amountCentavos = amountText === undefined ? null : parseAmount(amountText);
  if (top.get("58") !== "BR") {
    throw new BrCodeError('PIX QR code country code must be "BR"');
  }
  const merchantName = (top.get("59") ?? "").trim();
  if (merchantName === "") throw new BrCodeError("PIX QR code has no merchant name");
  const merchantCity = (top.get("60") ?? "").trim();
  if (merchantCity === "") throw new BrCodeError("PIX QR code has no merchant city");

  let txid: string | null = null;
  const additional = fields.find((f) => f.id === "62");
  if (additional !== undefined) {
    const sub = uniqueIds(parseTemplate(additional, "additional data"), "62");
    const raw = sub.get("05");
    if (raw !== undefined && raw !== NO_TXID) txid = raw;
  }

  return {
    kind: url !== null ? "dynamic" : "static",
    pixKey,
    url,
    amountCentavos,
    merchantName,
    merchantCity,
    txid,
    description: pixAccount.get("02") ?? null,
    reusable,
  };
}
