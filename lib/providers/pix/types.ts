import type { ParsedBrCode } from "@/lib/pix/brcode";

export type PixCollection = { brcode: string; provider: string; providerRef: string };

export interface PixProvider {
  readonly name: string;
  /** A BR Code that pays the service's receiving key for exactly this order. */
  createCollection(args: { valueCentavos: number; txid: string; description?: string }): Promise<PixCollection>;
  /** Reads a dynamic BR Code's payload from its PSP; never fetches arbitrary URLs from the API process. */
  resolveDynamic(code: ParsedBrCode): Promise<{ pixKey: string; amountCentavos: number | null; txid: string | null }>;
}
