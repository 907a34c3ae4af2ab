import { clientAddress } from "@/lib/http/client-address";

// The dashboard's requests reach us through Next (pages, server actions) or next-auth (sign-in),
// each with its own kind of headers; the client address is decided by the API's rule either way.

type Readable = { get(name: string): string | null; has(name: string): boolean };
export type HeaderBag = Record<string, string | string[] | undefined> | Readable;

export function headerGetter(headers: HeaderBag): Readable {
  if (typeof headers.get === "function" && typeof headers.has === "function") return headers as Readable;
  const bag = headers as Record<string, string | string[] | undefined>;
  const get = (name: string) => {
    const v = bag[name.toLowerCase()];
    return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
  };
  return { get, has: (name) => get(name) !== null };
}

export function addressOf(headers: HeaderBag): string {
  return clientAddress(headerGetter(headers));
}
