import type { z } from "zod";

/** One readable sentence listing every problem, e.g. "value: must be greater than 0; network: is required". */
export function describeZodError(error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return `Invalid request: ${parts.join("; ")}`;
}
