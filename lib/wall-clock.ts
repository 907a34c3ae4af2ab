import vm from "node:vm";

// Next replaces the process's global Date (next/dist/server/node-environment-extensions/date.js) with
// a wrapper whose now() and argument-less constructor first look up two AsyncLocalStorage stores, to
// catch a prerender reading the clock. Outside a render that is pure cost, ~0.3 µs a call, and the
// API's hot path reads the clock several times a request (the key cache, the rate limiter, the request
// line). Those read it from the Date of a fresh V8 context, which Next never touched: the same system
// clock, none of the lookups. Everything that renders pages keeps the global Date.
const Pristine = vm.runInNewContext("Date") as DateConstructor;

/** Milliseconds since the epoch, like Date.now(). */
export const wallClockMs: () => number = Pristine.now;

/** The current time as an ISO 8601 string, like new Date().toISOString(). */
export const wallClockIso = (): string => new Pristine().toISOString();
