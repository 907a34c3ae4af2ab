// PostgreSQL refuses two kinds of string JavaScript accepts: NUL (U+0000) in text and jsonb, and a
// lone UTF-16 surrogate ("\ud800", legal in JSON) in jsonb, which it cannot turn into UTF-8. Either
// one reaching a query fails it, and a failed query is a 500. Every input boundary checks its strings
// here first, whatever field they arrive in: API bodies and query strings answer 400 naming the field,
// API path ids answer as unknown ids, dashboard forms show the field's error and dashboard filters
// are dropped, all before any work is done.

export const UNSTORABLE_TEXT_MESSAGE = "must not contain NUL characters or unpaired UTF-16 surrogates";

// NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one (code
// units, hence no `u` flag; String#isWellFormed is newer than our TypeScript lib target).
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");

/** True when PostgreSQL can store the string in text and jsonb columns. */
export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** The string with each NUL and lone surrogate replaced by U+FFFD, as a UTF-8 decoder would. */
export function toStorableText(s: string): string {
  return s.replace(UNSTORABLE_ALL, "\ufffd");
}

/**
 * The path ("devedor.name", "items.2", or "" for the value itself) of the first string in a parsed
 * JSON value, object keys included, that PostgreSQL cannot store; null when there is none. Depth is
 * bounded by the caller (request bodies are capped at 32 levels before they are parsed).
 */
export function findUnstorableText(value: unknown): string | null {
  const path = unstorableAt(value);
  return path === null ? null : path.join(".");
}

// Runs on every request body: the path is built only on the way back from a find, so a clean body
// costs one regex test per string and no allocation.
function unstorableAt(value: unknown): (string | number)[] | null {
  if (typeof value === "string") return isStorableText(value) ? null : [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableAt(value[i]);
      if (found !== null) return [i, ...found];
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const k of Object.keys(value)) {
      // A key is named by its position, not its text: the text is what cannot be shown.
      if (!isStorableText(k)) return ["(a field name)"];
      const found = unstorableAt((value as Record<string, unknown>)[k]);
      if (found !== null) return [k, ...found];
    }
  }
  return null;
}
