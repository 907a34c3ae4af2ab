// The headers that never vary, in plain JavaScript with no imports: next.config.mjs loads it with Node's
// own import at every start, before any path alias exists and without a TypeScript compiler.

/** @type {Readonly<Record<string, string>>} */
export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};
