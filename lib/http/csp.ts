// The Content-Security-Policy of every page, with a fresh nonce per request (proxy.ts). Next reads
// the nonce from the request's policy and puts it on the scripts it renders, so no script runs
// without it; 'strict-dynamic' lets those scripts load the app's chunks. Styles allow inline
// attributes: React writes some (the overview chart's bar heights), and they cannot run code.

export const CSP_HEADER = "content-security-policy";

export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

export function contentSecurityPolicy(nonce: string, opts: { dev: boolean; https: boolean }): string {
  return [
    "default-src 'self'",
    // React's development build evaluates strings (stack traces, fast refresh); production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${opts.dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** HSTS for live mode: two years, subdomains included (the service is served over https only there). */
export const HSTS = "max-age=63072000; includeSubDomains";
