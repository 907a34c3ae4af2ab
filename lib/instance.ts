import { hostname } from "node:os";
import { env } from "@/lib/env";

/**
 * This instance's name, the same across its restarts: INSTANCE_NAME, or the host's name and the port.
 * Two instances running at once must not share one (each would end the other's Idempotency-Key leases
 * at start-up; nothing runs twice then, but a client could see a 409 it need not have).
 */
export function instanceName(): string {
  return env().INSTANCE_NAME ?? `${hostname()}:${env().PORT}`;
}
