import { notFoundHandler } from "@/lib/api/not-found";

// Any /api/v1 path no other route matched: a JSON 404 in the API's shape, never an HTML page.
export const GET = notFoundHandler;
export const POST = notFoundHandler;
export const PUT = notFoundHandler;
export const PATCH = notFoundHandler;
export const DELETE = notFoundHandler;
