import { endpoint } from "./handler";
import { messageBody } from "./error-body";

/** GET /api/v1/openapi.json: public; the document is built on first use and kept in memory. */
export const openApiHandler = endpoint({
  auth: "public",
  errorBody: messageBody,
  async handle() {
    // Imported here, not at the top: the document is built from the route table, which lists this handler.
    const { openApiJson } = await import("./openapi");
    return new Response(openApiJson(), {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
    });
  },
});
