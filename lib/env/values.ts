import { z } from "zod";
import { parseDatabaseUrl } from "@/lib/database-url";

// The kinds of value a variable holds, each with the message a wrong one gets at start-up.

export const bool = z.enum(["true", "false", "1", "0", ""]).transform((v) => v === "true" || v === "1");

export const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const decimalString = (fallback: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a positive decimal number like 5.40")
    .default(fallback);

// A list of hosts is allowed (h1:5432,h2:5433), which WHATWG's URL parser (zod's .url()) refuses.
export const postgresUrl = z.string().superRefine((url, ctx) => {
  const parsed = parseDatabaseUrl(url);
  if ("error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
});
/** The URLs the app writes through must not settle on a standby: only these target_session_attrs. */
export const WRITABLE_TARGETS = ["read-write", "primary"];

export const httpUrl = z
  .string()
  .url()
  .regex(/^https?:\/\//, "must be an http(s) URL");
/** The receiving key sandbox BR Codes use; live PIX must receive at the service's own key. */
export const SANDBOX_PIX_RECEIVER_KEY = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906";

// Providers holding money speak TLS only (API Pix requires mutual TLS).
export const httpsUrl = z
  .string()
  .url()
  .regex(/^https:\/\//, "must be an https URL");
export const chainId = z.coerce.number().int().positive();
export const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");
const tokenEntry = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "address must be a 0x-prefixed 20-byte hex address"),
  decimals: z.number().int().min(0).max(36),
});
export const tokenOverrides = z
  .string()
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
  })
  // Network and asset names are checked against the token table by lib/chain/config.ts at start-up.
  .pipe(z.record(z.string(), z.record(z.string(), tokenEntry)));

// The hot wallet's float on one network (lib/hot-wallet/float.ts): "USDT=100/1000,USDC=100/1000,gas=0.5/2",
// each a token (or gas, the native coin) with its minimum and target in whole units. Compared as
// decimal strings by magnitude so no float ever rounds a limit. Token names are checked against the
// network's token table by lib/chain/config.ts at start-up.
export type FloatLimit = { min: string; target: string };
const FLOAT_ENTRY = /^([A-Za-z]+)=(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/;
function decimalLte(a: string, b: string): boolean {
  const [ai, af = ""] = a.split(".");
  const [bi, bf = ""] = b.split(".");
  const width = Math.max(ai.replace(/^0+/, "").length, bi.replace(/^0+/, "").length);
  const scale = Math.max(af.length, bf.length);
  const norm = (i: string, f: string) => i.replace(/^0+/, "").padStart(width, "0") + f.padEnd(scale, "0");
  return norm(ai, af) <= norm(bi, bf);
}
export const floatSpec = z.string().transform((s, ctx) => {
  const limits: Record<string, FloatLimit> = {};
  for (const part of s
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = FLOAT_ENTRY.exec(part);
    if (!m) {
      ctx.addIssue({
        code: "custom",
        message: `"${part}" must be ASSET=MINIMUM/TARGET, e.g. USDT=100/1000 or gas=0.5/2`,
      });
      return z.NEVER;
    }
    const asset = m[1] === "GAS" ? "gas" : m[1];
    if (limits[asset]) {
      ctx.addIssue({ code: "custom", message: `${asset} is given twice` });
      return z.NEVER;
    }
    if (!decimalLte(m[2], m[3])) {
      ctx.addIssue({
        code: "custom",
        message: `${asset}: the minimum (${m[2]}) must not be above the target (${m[3]})`,
      });
      return z.NEVER;
    }
    limits[asset] = { min: m[2], target: m[3] };
  }
  return limits;
});

// Sweeping on one network (lib/treasury/sweep.ts): "USDT=50,USDC=50", each token with the balance, in
// whole units, a deposit address must hold more than to be swept (below it, the gas would cost more
// than moving the money is worth). Token names are checked against the network's table at start-up.
const SWEEP_ENTRY = /^([A-Za-z]+)=(\d+(?:\.\d+)?)$/;
export const sweepSpec = z.string().transform((s, ctx) => {
  const thresholds: Record<string, string> = {};
  for (const part of s
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = SWEEP_ENTRY.exec(part);
    if (!m) {
      ctx.addIssue({ code: "custom", message: `"${part}" must be TOKEN=THRESHOLD, e.g. USDT=50` });
      return z.NEVER;
    }
    if (thresholds[m[1]]) {
      ctx.addIssue({ code: "custom", message: `${m[1]} is given twice` });
      return z.NEVER;
    }
    thresholds[m[1]] = m[2];
  }
  return thresholds;
});
