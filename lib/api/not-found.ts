import { newRequestId } from "./ids";
import { json } from "./respond";

export async function notFoundHandler(req: Request): Promise<Response> {
  const { pathname } = new URL(req.url);
  return json(404, { message: `Not found: ${req.method} ${pathname}` }, { "x-request-id": newRequestId() });
}
