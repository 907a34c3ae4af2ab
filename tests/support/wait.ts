/**
 * Polls `read` until `done` says so (every `everyMs`, 10 ms unless told), or fails naming `what` and the
 * last value read after `timeoutMs`. Returns the value and how long it took.
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 10_000,
  { everyMs = 10 }: { everyMs?: number } = {},
): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  for (;;) {
    const value = await read();
    if (done(value)) return { value, ms: performance.now() - start };
    if (performance.now() - start > timeoutMs)
      throw new Error(`timed out waiting for ${what}; last value ${lastValue(value)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function lastValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
