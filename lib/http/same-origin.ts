// Server actions are POSTs to a page that run code with the visitor's session cookie. Next refuses one
// whose Origin names another host, but lets one without an Origin through ("a handcrafted request or an
// unsafe browser"): proxy.ts refuses those too (docs/security.md, "Browser hardening"). Every browser
// we support sends Origin on a POST, so a legitimate form never lacks it.

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a request to a page may go on: any method that changes something (a server action, or
 * anything else POSTed to a page) must carry an Origin that is ours — the configured public origin,
 * or the very host the request was sent to (what Next itself compares; a page on another site cannot
 * make a browser send a foreign Origin with our Host). "null" (sandboxed frames, some redirects) is
 * not ours.
 */
export function pageWriteAllowed(
  method: string,
  origin: string | null,
  host: string | null,
  publicOrigin: string,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  if (!origin || origin === "null") return false;
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    return false;
  }
  if (given.origin === new URL(publicOrigin).origin) return true;
  return host !== null && host !== "" && given.host === host.toLowerCase();
}
