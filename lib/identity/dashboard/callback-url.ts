import { publicBaseUrl } from "@/lib/env";

/**
 * Where to go after signing in: only a path on this site. The value is resolved by the URL parser
 * against our own origin, as a browser would resolve it, and kept only if it stays there; what is
 * returned is the parser's own serialisation of its path, query and fragment. Checking the raw text
 * instead misses what browsers do to it: a tab or newline is dropped ("/\t/evil.example" is
 * "//evil.example"), a backslash is a slash ("/\evil"), "/.//evil" collapses to "//evil". And the
 * parser's output never holds a control character, so a redirect to it cannot fail on CR/LF.
 */
export function safeCallbackUrl(raw: unknown, fallback = "/dashboard", origin: string = publicBaseUrl()): string {
  if (typeof raw !== "string" || raw === "" || raw.length > 2048) return fallback;
  let base: URL;
  let url: URL;
  try {
    base = new URL(origin);
    url = new URL(raw, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base.origin) return fallback;
  const target = url.pathname + url.search + url.hash;
  // A path that starts with two slashes (or "/\") is another host to whoever reads it as a URL again.
  if (!target.startsWith("/") || target.startsWith("//") || target.startsWith("/\\")) return fallback;
  return target;
}

/** Request header carrying the dashboard page asked for (set by proxy.ts). */
export const RETURN_TO_HEADER = "x-dashboard-return-to";

/** The sign-in page, sending the visitor back to `returnTo` afterwards when it is a dashboard page. */
export function signInUrl(returnTo: string | null): string {
  const target = safeCallbackUrl(returnTo, "");
  if (target === "" || target === "/dashboard" || !target.startsWith("/dashboard")) return "/signin";
  return `/signin?callbackUrl=${encodeURIComponent(target)}`;
}
