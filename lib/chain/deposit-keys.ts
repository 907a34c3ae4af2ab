import { readFileSync } from "node:fs";
import { HDKey } from "@scure/bip32";
import { sql } from "drizzle-orm";
import { bytesToHex } from "viem";
import type { Executor } from "@/db";
import { ConfigError, env } from "@/lib/env";
import { depositXpub } from "./config";
import { deriveDepositAddress } from "./hd";
import { SANDBOX_DEPOSIT_XPRV, SANDBOX_DEPOSIT_XPUB } from "./sandbox-keys";

// The deposit addresses' private keys, for the sweeper alone (lib/treasury/sweep.ts). The API server
// and the deposit watcher only ever see DEPOSIT_XPUB; the private extended key is read from the file
// DEPOSIT_XPRV_FILE names, by the one process that sweeps, and must derive exactly the addresses
// DEPOSIT_XPUB does: a key for another account would sign for addresses that hold nothing of ours,
// and the sweeper would never empty the ones that do. The key's content never reaches a log or an
// error message.

type DepositKeySource = { kind: "file"; path: string } | { kind: "sandbox" };

/** Where the deposit private key comes from, or null when this process cannot sweep. */
export function depositKeySource(): DepositKeySource | null {
  const e = env();
  if (e.DEPOSIT_XPRV_FILE) return { kind: "file", path: e.DEPOSIT_XPRV_FILE };
  // The test mnemonic's account key derives the sandbox's default deposit addresses; its keys are public.
  if (e.PAYMENTS_MODE === "sandbox" && !e.DEPOSIT_XPUB) return { kind: "sandbox" };
  return null;
}

let loaded: { id: string; external: HDKey } | null = null;

/**
 * The external chain (m/44'/60'/0'/0) of the deposit private key, checked against DEPOSIT_XPUB once
 * per source; throws, naming the variable, when the file is unreadable, not an account-level
 * extended private key, or not DEPOSIT_XPUB's.
 */
function externalChain(): HDKey {
  const source = depositKeySource();
  if (!source) throw new ConfigError("DEPOSIT_XPRV_FILE is not set: this process cannot sign for deposit addresses");
  const expected = source.kind === "sandbox" ? SANDBOX_DEPOSIT_XPUB : depositXpub();
  // Checked again when the file or DEPOSIT_XPUB changes (a test's environment, a new deployment).
  const id = `${source.kind === "file" ? `file:${source.path}` : "sandbox"}|${expected}`;
  if (loaded?.id === id) return loaded.external;
  let account: HDKey;
  if (source.kind === "sandbox") account = HDKey.fromExtendedKey(SANDBOX_DEPOSIT_XPRV);
  else {
    let text: string;
    try {
      text = readFileSync(source.path, "utf8").trim();
    } catch (err) {
      throw new ConfigError(
        `DEPOSIT_XPRV_FILE: cannot read ${source.path} (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
    try {
      account = HDKey.fromExtendedKey(text);
    } catch {
      throw new ConfigError(`DEPOSIT_XPRV_FILE: ${source.path} does not hold a BIP32 extended private key`);
    }
  }
  if (!account.privateKey)
    throw new ConfigError(
      "DEPOSIT_XPRV_FILE: the key is an extended public key; the sweeper needs the private one (xprv)",
    );
  if (account.depth !== 3)
    throw new ConfigError(
      `DEPOSIT_XPRV_FILE: the key must be the account-level key at depth 3 (m/44'/60'/0'), got depth ${account.depth}`,
    );
  if (account.publicExtendedKey !== expected)
    throw new ConfigError(
      "DEPOSIT_XPRV_FILE: its public key is not DEPOSIT_XPUB; refusing to sweep with a key for other addresses",
    );
  loaded = { id, external: account.deriveChild(0) };
  return loaded.external;
}

/** Start-up of a sweeping process: throws, naming the variable, unless the key is there and is DEPOSIT_XPUB's. */
export function checkDepositKey(): void {
  externalChain();
}

/** The private key of the deposit address at `walletIndex`; checks it derives the address we recorded. */
export function depositPrivateKey(walletIndex: number, address: string): `0x${string}` {
  const child = externalChain().deriveChild(walletIndex);
  if (!child.privateKey) throw new Error(`no private key derived at deposit index ${walletIndex}`);
  const xpub = depositKeySource()?.kind === "sandbox" ? SANDBOX_DEPOSIT_XPUB : depositXpub();
  if (deriveDepositAddress(xpub, walletIndex).toLowerCase() !== address.toLowerCase()) {
    throw new Error(`deposit index ${walletIndex} does not derive ${address} from DEPOSIT_XPUB`);
  }
  return bytesToHex(child.privateKey);
}

/** The key that signs for one of our deposit addresses, found by its address (a sweep's replacement). */
export async function depositPrivateKeyOf(ex: Executor, address: string): Promise<`0x${string}`> {
  const [row] = await ex.execute<{ wallet_index: number }>(
    sql`select wallet_index from deposit_addresses where lower(address) = ${address.toLowerCase()}`,
  );
  if (!row) throw new Error(`${address} is not one of our deposit addresses`);
  return depositPrivateKey(Number(row.wallet_index), address);
}
