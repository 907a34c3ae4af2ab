import { processSlot } from "@/lib/singleton";

// The time the subscription engine and the sandbox's recurring PSP go by: the system clock, or in
// tests one they move (three monthly cycles in seconds). Only those read it: everything else keeps
// the real clock, since a test that moves this one still runs against a real database's now().

const offset = processSlot<number>("clock-offset-ms");

/** Now, as the engine sees it. */
export function now(): Date {
  return new Date(Date.now() + (offset.value ?? 0));
}

/** Tests: moves the clock to `at` (later reads advance from there with real time); undefined puts it back. */
export function setClockForTests(at: Date | undefined): void {
  offset.value = at ? at.getTime() - Date.now() : undefined;
}
