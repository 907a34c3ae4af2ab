import { serveApiRequest } from "@/lib/api/serve";

// Every /api/v1 request Next receives goes to the API's one router (lib/api/endpoints.ts), the same
// one the production fast path calls: both answer every method, HEAD and OPTIONS included, alike.
// The endpoints themselves are declared beside their domains (lib/<domain>/endpoints.ts).
export const GET = serveApiRequest;
export const HEAD = serveApiRequest;
export const POST = serveApiRequest;
export const PUT = serveApiRequest;
export const PATCH = serveApiRequest;
export const DELETE = serveApiRequest;
export const OPTIONS = serveApiRequest;
