import { HDKey } from "@scure/bip32";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "viem";
import { publicKeyToAddress } from "viem/accounts";

// m/44'/60'/0' is depth 3. A key at any other depth would derive addresses the merchant's
// wallet never scans, so customer funds would arrive somewhere nobody looks.
const ACCOUNT_DEPTH = 3;
const HARDENED_OFFSET = 0x80000000;
const MAX_CACHED_KEYS = 1000;

// Parsing base58 and deriving the external chain costs far more than one child step,
// and this runs once per order; the key is public data, so caching it is harmless.
const externalChainCache = new Map<string, HDKey>();

function externalChainFor(xpub: string): HDKey {
  const cached = externalChainCache.get(xpub);
  if (cached) return cached;

  if (typeof xpub !== "string" || xpub.trim() === "") {
    throw new Error("Deposit xpub is missing");
  }
  let account: HDKey;
  try {
    account = HDKey.fromExtendedKey(xpub);
  } catch (err) {
    // Private keys are refused before the parse error is reported so the message is actionable
    // even for private formats the parser does not know (e.g. tprv).
    if (/^[a-z]prv/i.test(xpub)) throw watchOnlyError();
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Deposit xpub is not a valid BIP32 extended public key (${reason})`);
  }
  if (account.privateKey !== null) throw watchOnlyError();
  if (account.depth !== ACCOUNT_DEPTH) {
    throw new Error(
      `Deposit xpub must be the account-level key at depth ${ACCOUNT_DEPTH} (m/44'/60'/0'), got depth ${account.depth}`,
    );
  }
  const external = account.deriveChild(0);

  if (externalChainCache.size >= MAX_CACHED_KEYS) externalChainCache.clear();
  externalChainCache.set(xpub, external);
  return external;
}

function watchOnlyError(): Error {
  return new Error("Deposit keys must be watch-only: supply an extended public key (xpub), never a private key (xprv)");
}

export function deriveDepositAddress(xpub: string, index: number): `0x${string}` {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED_OFFSET) {
    throw new Error(`Deposit address index must be an integer in [0, 2^31), got ${String(index)}`);
  }
  const child = externalChainFor(xpub).deriveChild(index);
  if (!child.publicKey) throw new Error(`Could not derive a public key at index ${index}`);
  // Ethereum addresses hash the uncompressed key, while BIP32 only carries the compressed form.
  const uncompressed = secp256k1.Point.fromBytes(child.publicKey).toBytes(false);
  return publicKeyToAddress(bytesToHex(uncompressed));
}
