// Process-wide state: the database pool, caches, listeners, the job runner. One process holds two
// copies of lib/ (Next's bundle serves the dashboard; the server's own bundle serves the API fast path
// and runs the jobs), and module-level variables would give each copy its own pool, its own cache and
// its own runner. Every such value lives in one registry on globalThis instead, keyed by name, so both
// copies share it. The registry is found by a Symbol.for key, which is the same in every copy.

const REGISTRY = Symbol.for("payments.process-state");

/** A named place for one value per process. Modules keep the slot and read `.value` on hot paths. */
export type ProcessSlot<T> = { value: T | undefined };

function registry(): Map<string, ProcessSlot<unknown>> {
  const g = globalThis as { [REGISTRY]?: Map<string, ProcessSlot<unknown>> };
  return (g[REGISTRY] ??= new Map());
}

/** The slot named `name`, the same object for every copy of lib/ in this process. */
export function processSlot<T>(name: string): ProcessSlot<T> {
  const slots = registry();
  let slot = slots.get(name) as ProcessSlot<T> | undefined;
  if (!slot) {
    slot = { value: undefined };
    slots.set(name, slot as ProcessSlot<unknown>);
  }
  return slot;
}

/** One value per process, made by `create` the first time any copy of lib/ asks for it. */
export function processSingleton<T>(name: string, create: () => T): T {
  const slot = processSlot<T>(name);
  return (slot.value ??= create());
}
