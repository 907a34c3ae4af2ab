import type { z } from "zod";
import { RequestRefused, type FieldProblem } from "@/lib/errors-api";
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
 * Each field at fault, for the `fields` of a validation error: its dot-separated path (`root` for the
 * body or query as a whole), zod's issue code (snake_case already; a missing field is `required`), and
 * the same message the sentence gives.
 */
export function fieldProblems(error: z.ZodError, root: string, given: unknown): FieldProblem[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join(".") || root,
    code: issue.code === "invalid_type" && valueAt(given, issue.path) === undefined ? "required" : issue.code,
    message: issue.message,
  }));
}

function valueAt(given: unknown, path: readonly PropertyKey[]): unknown {
  let at = given;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** The 400 of a body or query its schema refuses: the spec's sentence, with each field at fault. */
export function validationRefusal(error: z.ZodError, root: "body" | "query", given: unknown): RequestRefused {
  return new RequestRefused(describeZodError(error), "validation_failed", 400, fieldProblems(error, root, given));
}

/**
 * Refuses a request part (parsed body, query, path parameters) holding a string PostgreSQL cannot
 * store, before any schema or handler sees it: checked once here for every endpoint and every field.
 */
export function refuseUnstorableText(value: unknown, root: string): void {
  const at = findUnstorableText(value);
  if (at !== null)
    throw new RequestRefused(`Invalid request: ${at || root}: ${UNSTORABLE_TEXT_MESSAGE}`, "validation_failed", 400, [
      { field: at || root, code: "unstorable_text", message: UNSTORABLE_TEXT_MESSAGE },
    ]);
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
