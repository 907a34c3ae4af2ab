export { openApiHandler as GET } from "@/lib/api/openapi-handler";
