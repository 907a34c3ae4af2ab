/** Where to go after signing in: only a path on this site, never another origin ("//evil.example"). */
export function safeCallbackUrl(raw: unknown, fallback = "/dashboard"): string {
  if (typeof raw !== "string" || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return fallback;
  return raw;
}

/** Request header carrying the dashboard page asked for (set by proxy.ts). */
export const RETURN_TO_HEADER = "x-dashboard-return-to";

/** The sign-in page, sending the visitor back to `returnTo` afterwards when it is a dashboard page. */
export function signInUrl(returnTo: string | null): string {
  const target = safeCallbackUrl(returnTo, "");
  if (target === "" || target === "/dashboard" || !target.startsWith("/dashboard")) return "/signin";
  return `/signin?callbackUrl=${encodeURIComponent(target)}`;
}
