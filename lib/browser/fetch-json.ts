import "client-only";

// Client-side GET for the dashboard's JSON routes and the public payment endpoint. A 401 means the
// session ended: go sign in again rather than show stale data.

export class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: "application/json" }, cache: "no-store" });
  if (res.status === 401 && url.startsWith("/dashboard/")) {
    // A full page load on purpose: the session is gone, and nothing of the old page should survive it.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.assign(
      `/signin?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`,
    );
  }
  if (!res.ok) throw new HttpError(res.status);
  return (await res.json()) as T;
}
