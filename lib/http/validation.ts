import type { z } from "zod";
import { InvalidInput } from "@/lib/errors";
import { findUnstorableText, isStorableText, toStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/lib/storable-text";

/** One readable sentence listing every problem, e.g. "value: must be greater than 0; network: is required". */
export function describeZodError(error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return `Invalid request: ${parts.join("; ")}`;
}

/**
 * Refuses a request part (parsed body, query, path parameters) holding a string PostgreSQL cannot
 * store, before any schema or handler sees it: checked once here for every endpoint and every field.
 */
export function refuseUnstorableText(value: unknown, root: string): void {
  const at = findUnstorableText(value);
  if (at !== null) throw new InvalidInput(`Invalid request: ${at || root}: ${UNSTORABLE_TEXT_MESSAGE}`);
}

/**
 * Path parameters are ids, and an id PostgreSQL cannot store is one no object has: it must answer
 * exactly as an unknown id does (ids cannot be probed: docs/api.md#authentication), with the endpoint's own
 * not-found. So instead of a 400, its unstorable characters become U+FFFD, which no id contains,
 * and the handler finds nothing.
 */
export function storablePathParams(params: Record<string, string>): Record<string, string> {
  if (Object.values(params).every(isStorableText)) return params;
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, toStorableText(v)]));
}
