import { expect } from "vitest";
import type { z } from "zod";
import type { CallResult } from "../helpers";

/**
 * The body of `res` typed by the endpoint's response schema (lib/<domain>/schemas.ts), after checking
 * its status (the endpoint's, or `status`) and that the body matches the schema: a test reads fields
 * the API documents, not `any`.
 */
export function json<S extends z.ZodType>(schema: S, res: CallResult, status = 200): z.output<S> {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const parsed = schema.safeParse(res.body);
  if (!parsed.success) throw new Error(`the response body does not match its schema: ${parsed.error.message}`);
  return res.body as z.output<S>;
}
