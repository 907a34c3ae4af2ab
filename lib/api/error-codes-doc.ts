import { API_ERROR_CODE_LIST, API_ERROR_CODES } from "@/lib/errors-api";
import type { Endpoint } from "@/lib/http/endpoint";
import { errorCodesOf } from "./error-codes";
import { errorStatuses } from "./openapi";

// The error-code section of docs/api.md, written from the same declarations as the OpenAPI document:
// tests/error-codes.test.ts fails while the file's section differs (UPDATE_DOCS=1 rewrites it).

export const DOC_START =
  "<!-- error-codes:start (generated from lib/api/error-codes.ts; tests/error-codes.test.ts) -->";
export const DOC_END = "<!-- error-codes:end -->";

export function errorCodesMarkdown(endpoints: readonly Endpoint[]): string {
  const statusesOf = new Map<string, Set<number>>();
  const rows: string[] = [];
  for (const e of endpoints) {
    const parts: string[] = [];
    for (const status of errorStatuses(e)) {
      const codes = errorCodesOf(e, status);
      for (const c of codes) (statusesOf.get(c) ?? statusesOf.set(c, new Set()).get(c)!).add(status);
      parts.push(`**${status}** ${codes.map((c) => `\`${c}\``).join(", ")}`);
    }
    rows.push(`| \`${e.method} ${e.path}\` | ${parts.join("<br>")} |`);
  }
  const used = API_ERROR_CODE_LIST.filter((c) => statusesOf.has(c));
  const meanings = used.map(
    (c) => `| \`${c}\` | ${[...statusesOf.get(c)!].sort().join(", ")} | ${API_ERROR_CODES[c]} |`,
  );
  return [
    DOC_START,
    "",
    "| code | status | meaning |",
    "|---|---|---|",
    ...meanings,
    "",
    "Codes per endpoint, by status (the router's own answers: `not_found` 404, `method_not_allowed` 405):",
    "",
    "| endpoint | codes |",
    "|---|---|",
    ...rows,
    "",
    DOC_END,
  ].join("\n");
}
