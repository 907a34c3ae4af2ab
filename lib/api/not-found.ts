import { newRequestId } from "./ids";
import { pathOf, type ApiRequest } from "./request";
import { json } from "./respond";

export async function notFoundHandler(req: ApiRequest): Promise<Response> {
  return json(404, { message: `Not found: ${req.method} ${pathOf(req.url)}` }, { "x-request-id": newRequestId() });
}
