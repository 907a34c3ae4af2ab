// Prints the OpenAPI document GET /api/v1/openapi.json serves, built from the endpoint declarations
// without a server or a database: `npm run sdk:types` pipes it to the SDK's type generator.
import { openApiJson } from "@/lib/api/endpoints";

process.stdout.write(openApiJson() + "\n");
