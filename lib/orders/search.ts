import { sql, type SQL } from "drizzle-orm";
import { parseDecimalInput } from "@/lib/forms/form";
import { decodeCryptoPixId } from "@/lib/ids";
import { brlNumberToCentavos } from "@/lib/money";

// Order search for the dashboard's search box and GET /api/v1/orders?q=. One text matches an order when
// it is part of its search text (db/schema.ts ORDER_SEARCH_TEXT: ids, payment link id, the client's orderId,
// name, e-mail, payer id, CPF/CNPJ, deposit address, …) or when it reads as the order's amount. The
// substring test is a LIKE on a pg_trgm GIN index, which needs three characters to use the index:
// shorter texts match amounts only, so no search ever reads a merchant's every order.

export const MIN_SUBSTRING = 3;

export type OrderSearch = { substrings: string[]; centavos: number | null };

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
  if (decoded) substrings.add(decoded);
  return { substrings: [...substrings], centavos: amountOf(text) };
}

function amountOf(text: string): number | null {
  const n = parseDecimalInput(text);
  if (!Number.isFinite(n) || n <= 0) return null;
  const centavos = brlNumberToCentavos(n);
  return centavos !== null && centavos > 0 ? centavos : null;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The condition on a relation with search_text and value_centavos columns (lib/orders/list.ts
 * merchantOrders); undefined when the text can match nothing, so callers can answer an empty page.
 */
export function orderSearchCondition(search: OrderSearch): SQL | undefined {
  const parts = search.substrings.map((s) => sql`search_text like ${`%${escapeLike(s)}%`}`);
  if (search.centavos !== null) parts.push(sql`value_centavos = ${search.centavos}`);
  if (parts.length === 0) return undefined;
  return sql`(${sql.join(parts, sql` or `)})`;
}
