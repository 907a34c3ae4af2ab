import type { z } from "zod";
import { processSlot } from "@/lib/singleton";
import { envSchema } from "./checks";

// Configuration is read once, validated, and frozen. A wrong value stops start-up with a message
// naming the variable, instead of surfacing later as a confusing runtime error.

export { DEFAULT_DB_POOL_SIZE } from "./fields";
export { SANDBOX_PIX_RECEIVER_KEY, type FloatLimit } from "./values";

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings count as unset, so a blank line in .env does not override a default.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return Object.freeze(result.data);
}

const parsed = processSlot<Env>("env");

export function env(): Env {
  return (parsed.value ??= parseEnv(process.env));
}

/** Tests change configuration between files; production never calls this. */
export function resetEnvForTests(): void {
  parsed.value = undefined;
}

// Every order view builds links from it: worked out once per configuration.
const baseUrls = new WeakMap<Env, string>();
export function publicBaseUrl(): string {
  const e = env();
  let base = baseUrls.get(e);
  if (base === undefined) {
    base = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
    baseUrls.set(e, base);
  }
  return base;
}
