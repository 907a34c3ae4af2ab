import { API_ENDPOINTS } from "@/lib/api/endpoints";
import { errorCodesOf } from "@/lib/api/error-codes";
import { errorStatuses } from "@/lib/api/openapi";
import { answeredErrorCodes } from "@/lib/http/endpoint";

/**
 * Every error this process answered whose status or code the endpoint's OpenAPI document does not
 * list, as "METHOD path status code". Endpoints a test declares for itself are not the API's: skipped.
 */
export function undocumentedErrorCodes(): string[] {
  const byRoute = new Map(API_ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e]));
  const found: string[] = [];
  for (const answer of answeredErrorCodes()) {
    const [method, path, status, code] = answer.split(" ");
    const e = byRoute.get(`${method} ${path}`);
    if (!e) continue;
    const s = Number(status);
    if (!errorStatuses(e).includes(s) || !errorCodesOf(e, s).includes(code as never)) found.push(answer);
  }
  return found;
}
