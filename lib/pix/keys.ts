export type PixKeyType = "cpf" | "cnpj" | "email" | "phone" | "evp";

export type ClassifiedPixKey = { type: PixKeyType; normalized: string };

function allSameChar(value: string): boolean {
  return value.split("").every((c) => c === value[0]);
}

// Receita Federal modulo-11 check digit; remainders 0 and 1 both map to 0.
function mod11CheckDigit(values: number[], weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] * weights[i];
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function isValidCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || allSameChar(digits)) return false;
  const values = digits.split("").map(Number);
  const d1 = mod11CheckDigit(values.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = mod11CheckDigit(values.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return values[9] === d1 && values[10] === d2;
}

const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/** Accepts the numeric and the alphanumeric CNPJ (from 2026), unformatted and upper-case. */
export function isValidCnpj(value: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(value) || allSameChar(value)) return false;
  // The alphanumeric CNPJ rule: each character weighs its ASCII code minus 48,
  // which keeps the digits 0-9 at their face value.
  const values = value.split("").map((c) => c.charCodeAt(0) - 48);
  const d1 = mod11CheckDigit(values.slice(0, 12), CNPJ_WEIGHTS_1);
  const d2 = mod11CheckDigit(values.slice(0, 13), CNPJ_WEIGHTS_2);
  return values[12] === d1 && values[13] === d2;
}

/** 52998224725 → 529.982.247-25; 11222333000181 → 11.222.333/0001-81 (the alphanumeric CNPJ too). */
export function formatTaxId(v: string): string {
  if (/^\d{11}$/.test(v)) return v.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, "$1.$2.$3-$4");
  if (/^[0-9A-Z]{12}\d{2}$/.test(v)) return v.replace(/^(.{2})(.{3})(.{3})(.{4})(.{2})$/, "$1.$2.$3/$4-$5");
  return v;
}

const EVP_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Area code 11-99 (never a leading 0, and 10 is not assigned), then 8 (landline) or 9 (mobile) digits.
const PHONE_RE = /^\+55(?!10)([1-9]\d)(\d{8,9})$/;
const CPF_FORMATTED_RE = /^\d{3}\.\d{3}\.\d{3}-\d{2}$/;
const CNPJ_FORMATTED_RE = /^[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}\/[0-9A-Z]{4}-\d{2}$/;
const EMAIL_LOCAL_RE = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const EMAIL_LABEL_RE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
// DICT caps e-mail keys at 77 characters.
const EMAIL_MAX = 77;

function classifyEmail(key: string): string | null {
  const lower = key.toLowerCase();
  if (lower.length > EMAIL_MAX) return null;
  const at = lower.lastIndexOf("@");
  if (at <= 0) return null;
  const local = lower.slice(0, at);
  const domain = lower.slice(at + 1);
  if (local.length > 64 || !EMAIL_LOCAL_RE.test(local)) return null;
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((l) => EMAIL_LABEL_RE.test(l))) return null;
  if (!/^[a-z]{2,}$/.test(labels[labels.length - 1])) return null;
  return lower;
}

export function classifyPixKey(key: string): ClassifiedPixKey | null {
  if (typeof key !== "string") return null;
  const k = key.trim();
  if (k === "") return null;

  if (EVP_RE.test(k)) return { type: "evp", normalized: k.toLowerCase() };

  if (k.startsWith("+")) {
    // Spaces, dashes and parentheses are formatting people paste in; the key itself is digits only.
    const phone = k.replace(/[\s()-]/g, "");
    return PHONE_RE.test(phone) ? { type: "phone", normalized: phone } : null;
  }

  if (k.includes("@")) {
    const email = classifyEmail(k);
    return email === null ? null : { type: "email", normalized: email };
  }

  if (/^\d{11}$/.test(k) || CPF_FORMATTED_RE.test(k)) {
    const digits = k.replace(/\D/g, "");
    return isValidCpf(digits) ? { type: "cpf", normalized: digits } : null;
  }

  const upper = k.toUpperCase();
  if (/^[0-9A-Z]{14}$/.test(upper) || CNPJ_FORMATTED_RE.test(upper)) {
    const cnpj = upper.replace(/[./-]/g, "");
    return isValidCnpj(cnpj) ? { type: "cnpj", normalized: cnpj } : null;
  }

  return null;
}

/** A hint that lets a person recognise their key in logs and public views without disclosing it. */
export function maskPixKey(key: string): string {
  const classified = classifyPixKey(key);
  if (classified === null) return "***";
  const n = classified.normalized;
  switch (classified.type) {
    case "cpf":
      // The Banco Central's own convention for showing CPFs on receipts.
      return `***.${n.slice(3, 6)}.${n.slice(6, 9)}-**`;
    case "cnpj":
      return `**.${n.slice(2, 5)}.${n.slice(5, 8)}/****-**`;
    case "email": {
      const at = n.lastIndexOf("@");
      return `${n[0]}***${n.slice(at)}`;
    }
    case "phone": {
      const area = n.slice(3, 5);
      const number = n.slice(5);
      return `+55 ${area} ${"*".repeat(number.length - 4)}-${number.slice(-4)}`;
    }
    case "evp":
      return `${n.slice(0, 4)}…${n.slice(-4)}`;
  }
}

export const PIX_KEY_TYPES = ["cpf", "cnpj", "phone", "email", "evp"] as const satisfies readonly PixKeyType[];

/** Why a key typed under a chosen kind is not one: not shaped like that kind, or a CPF/CNPJ whose check digits fail. */
export type PixKeyProblem = "format" | "checkDigits";

export type KeyAsTyped = { ok: true; key: ClassifiedPixKey } | { ok: false; problem: PixKeyProblem };

// Once the person has said which kind of key it is, the formatting people type around it is dropped
// (dots and dashes of a CPF, parentheses of a phone), and a phone may come without +55: an
// 11-digit number is then a celular with its DDD, never a CPF. classifyPixKey, which the service
// applies to what is sent, gets the key back as the same kind.
function normalizeAs(type: PixKeyType, input: string): KeyAsTyped {
  const k = input.trim();
  const bad = (problem: PixKeyProblem): KeyAsTyped => ({ ok: false, problem });
  switch (type) {
    case "cpf": {
      const digits = k.replace(/[\s.-]/g, "");
      if (!/^\d{11}$/.test(digits)) return bad("format");
      return isValidCpf(digits) ? { ok: true, key: { type, normalized: digits } } : bad("checkDigits");
    }
    case "cnpj": {
      const cnpj = k.toUpperCase().replace(/[\s./-]/g, "");
      if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj)) return bad("format");
      return isValidCnpj(cnpj) ? { ok: true, key: { type, normalized: cnpj } } : bad("checkDigits");
    }
    case "phone": {
      const plus = k.startsWith("+");
      const digits = k.replace(/[\s().-]/g, "").replace(/^\+/, "");
      if (!/^\d+$/.test(digits)) return bad("format");
      // With +, or 12-13 digits: the country code is there. 10-11 digits: DDD and number, and a
      // leading 0 is the trunk prefix some people dial before the DDD (0 11 98765-4321).
      let national: string;
      if (plus || (digits.length >= 12 && digits.startsWith("55")))
        national = digits.startsWith("55") ? digits.slice(2) : "";
      else national = /^0\d{10,11}$/.test(digits) ? digits.slice(1) : digits;
      const phone = `+55${national}`;
      return PHONE_RE.test(phone) ? { ok: true, key: { type, normalized: phone } } : bad("format");
    }
    case "email": {
      const email = classifyEmail(k);
      return email === null ? bad("format") : { ok: true, key: { type, normalized: email } };
    }
    case "evp": {
      const hex = k.toLowerCase().replace(/[\s-]/g, "");
      if (!/^[0-9a-f]{32}$/.test(hex)) return bad("format");
      const evp = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      return { ok: true, key: { type, normalized: evp } };
    }
  }
}

/** A key typed under the kind the person chose, as the key DICT knows it, or why it is not one. */
export function normalizePixKeyAs(type: PixKeyType, input: string): KeyAsTyped {
  if (typeof input !== "string" || input.trim() === "") return { ok: false, problem: "format" };
  const result = normalizeAs(type, input);
  // What is sent is classified again by the service; a normalisation it would read as another kind is refused here.
  if (result.ok && classifyPixKey(result.key.normalized)?.type !== type) return { ok: false, problem: "format" };
  return result;
}
