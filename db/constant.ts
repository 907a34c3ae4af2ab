import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * One of the code's own constants (a status, a kind) written into a statement's text instead of being
 * sent as a parameter. A partial index (`where status = 'PENDING'`) serves only statements whose
 * conditions imply its predicate, and PostgreSQL proves that from the text when it plans: with
 * `status = $1` the generic plan of a prepared statement cannot know the value, never reaches the
 * partial index, and reads the whole table instead (tests/query-plans.test.ts).
 */
export function constant(value: string): SQL {
  if (!/^[A-Za-z0-9_.-]+$/.test(value)) throw new Error(`constant(): not a plain word: ${JSON.stringify(value)}`);
  return sql.raw(`'${value}'`);
}

/** `column in ('a', 'b')`, the values as constants (see constant()). */
export function inConstants(column: SQLWrapper, values: readonly string[]): SQL {
  return sql`${column} in (${sql.join(values.map(constant), sql`, `)})`;
}
