import { sql, type SQL } from "drizzle-orm";
import { parseDecimalInput } from "@/lib/forms/form";
import { decodeCryptoPixId } from "@/lib/ids";
import { brlNumberToCentavos } from "@/lib/money";

// Order search for the dashboard's search box and GET /api/v1/orders?q=. One text matches an order when
// - it is part of the order's references (db/schema/orders.ts ORDER_SEARCH_TEXT: the client's orderId, name,
//   e-mail, payer id, CPF/CNPJ, deposit address, …), whatever the case and the accents: a LIKE on a
//   pg_trgm GIN index, which needs three characters to use the index, so shorter texts look for no
//   substring (MIN_SUBSTRING; the dashboard says so);
// - it is the beginning of the order's id (at least 6 hex digits, dashes optional, as the dashboard
//   shows ids by their first 8): a range on the primary key;
// - it is the order's payment link id, or the payCryptoPixId of a Crypto-PIX payment;
// - it reads as the order's amount (25,90 / 25.90 / R$ 1.234,56): the (merchant, value) index.
// Every branch is an index lookup, so no search reads a merchant's every order.

export const MIN_SUBSTRING = 3;
export const MIN_ID_PREFIX = 6;

export type OrderSearch = {
  substrings: string[];
  centavos: number | null;
  /** The smallest and largest uuid starting with the typed hex digits. */
  idRange: { from: string; to: string } | null;
  /** An exact payment link id. */
  exact: string | null;
};

/** What a typed search means: the substrings to look for and, when it reads as BRL, an amount. */
export function parseOrderSearch(input: string): OrderSearch {
  const text = input.trim().toLowerCase();
  const substrings = new Set<string>();
  if (text.length >= MIN_SUBSTRING) substrings.add(text);
  // CPF and CNPJ are stored bare but typed masked, whole ("529.982.247-25", "11.222.333/0001-81") or
  // in part ("982.247"). Something that reads as an amount with centavos ("25.90") is left alone: its
  // bare digits would match unrelated ids.
  const bare = text.replace(/[.\-/\s]/g, "");
  const maskedDigits = /^\d[\d.\-/\s]*\d$/.test(text) && !/[.,]\d{1,2}$/.test(text);
  const maskedCnpj = /^[0-9a-z]{14}$/.test(bare) && /\d{2}$/.test(bare);
  if (bare !== text && bare.length >= MIN_SUBSTRING && (maskedDigits || maskedCnpj)) substrings.add(bare);
  // A payCryptoPixId is the base64url of the payment's id.
  const decoded = decodeCryptoPixId(input.trim());
  const idRange = decoded ? { from: decoded, to: decoded } : idPrefixRange(text);
  return { substrings: [...substrings], centavos: amountOf(text), idRange, exact: input.trim() || null };
}

const asUuid = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

function idPrefixRange(text: string): OrderSearch["idRange"] {
  // Dashes only where a uuid has them: "4e67b6b0-dc5d" is a prefix, "4e-67" is not.
  if (!/^[0-9a-f]{1,8}(-[0-9a-f]{1,4}(-[0-9a-f]{1,4}(-[0-9a-f]{1,4}(-[0-9a-f]{1,12})?)?)?)?$/.test(text)) return null;
  const hex = text.replace(/-/g, "");
  if (hex.length < MIN_ID_PREFIX || hex.length > 32) return null;
  return { from: asUuid(hex.padEnd(32, "0")), to: asUuid(hex.padEnd(32, "f")) };
}

function amountOf(text: string): number | null {
  const n = parseDecimalInput(text);
  if (!Number.isFinite(n) || n <= 0) return null;
  const centavos = brlNumberToCentavos(n);
  return centavos !== null && centavos > 0 ? centavos : null;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The condition on a relation with id, payment_link_id, search_text, searchable and value_centavos columns
 * (lib/orders/every-order.ts merchantOrders); undefined when the text can match nothing, so callers can answer
 * an empty page.
 */
export function orderSearchCondition(search: OrderSearch): SQL | undefined {
  // "searchable and": the trigram indexes hold only the rows with search text (db/schema/orders.ts
  // ORDER_SEARCHABLE); the planner reaches a partial index only when the condition implies its predicate.
  // The text is folded like the indexed one (db/schema/orders.ts ORDER_SEARCH_TEXT): lower case, no accents.
  const parts = search.substrings.map(
    (s) => sql`(searchable and search_text like search_fold(${`%${escapeLike(s)}%`}))`,
  );
  if (search.idRange) parts.push(sql`id between ${search.idRange.from}::uuid and ${search.idRange.to}::uuid`);
  // "is not null" first: on Crypto-PIX payments, which have no link, the branch folds to false and
  // drops out of the OR instead of leaving a NULL that would keep the planner off the trigram index.
  if (search.exact && search.exact.length >= MIN_SUBSTRING)
    parts.push(sql`(payment_link_id is not null and payment_link_id = ${search.exact})`);
  if (search.centavos !== null) parts.push(sql`value_centavos = ${search.centavos}`);
  if (parts.length === 0) return undefined;
  return sql`(${sql.join(parts, sql` or `)})`;
}
