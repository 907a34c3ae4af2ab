import type { Metadata } from "next";
import { ApiReference } from "@/components/docs/api-reference";
import { openApiJson } from "@/lib/api/endpoints";

export const metadata: Metadata = { title: "API reference" };

// Rendered per request from the same in-memory document /api/v1/openapi.json serves, so the server
// URL and limits are the running configuration's, not the build machine's.
export const dynamic = "force-dynamic";

export default function DocsPage() {
  return <ApiReference doc={JSON.parse(openApiJson())} />;
}
