import { readFileSync } from "node:fs";
import { ConfigError } from "@/lib/env";

// Secrets and certificates come from variables or from files (`*_FILE`, a secret mount), never from the
// database (docs/providers.md#what-every-adapter-does). A file is read once per path, since a mount does not change while the process runs, and
// nothing read is ever echoed: these messages end up in logs.

const files = new Map<string, Buffer>();

/** The bytes of a credential file named by `variable`; the message names the variable and path, never the content. */
export function credentialFile(variable: string, path: string): Buffer {
  const cached = files.get(path);
  if (cached) return cached;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${variable}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (bytes.length === 0) throw new ConfigError(`${variable}: ${path} is empty`);
  files.set(path, bytes);
  return bytes;
}

/** A secret given directly, or in the file `<variable>_FILE` names (trimmed); undefined when neither is set. */
export function secret(variable: string, value: string | undefined, file: string | undefined): string | undefined {
  if (value !== undefined) return value;
  if (file === undefined) return undefined;
  return credentialFile(`${variable}_FILE`, file).toString("utf8").trim();
}
