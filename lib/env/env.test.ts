import { describe, expect, it } from "vitest";
import { parseEnv, SANDBOX_PIX_RECEIVER_KEY } from ".";

// The PIX settings are checked as one configuration at start-up: half of one is a mistake to name,
// not a rail that fails on its first payment (docs/configuration.md#what-start-up-refuses).

const PIX = {
  PIX_API_URL: "https://pix.psp.example/v2",
  PIX_CLIENT_ID: "client",
  PIX_CLIENT_SECRET: "secret",
  PIX_CERT_FILE: "/run/secrets/pix.crt",
  PIX_KEY_FILE: "/run/secrets/pix.key",
};
const LIVE = {
  PAYMENTS_MODE: "live",
  AUTH_SECRET: "a".repeat(40),
  DEPOSIT_XPUB: "xpub",
  DATABASE_URL: "postgres://db/payments",
  PUBLIC_BASE_URL: "https://pay.example.com",
};

// Live mode starts with the rails that are configured; what a chain needs is asked for only once
// one is (docs/configuration.md, "What start-up refuses").
describe("live mode's chain settings", () => {
  const NODE = { EVM_RPC_URL_POLYGON: "https://polygon.node.example" };
  const KEY = { HOT_WALLET_PRIVATE_KEY: `0x${"11".repeat(32)}` };

  it("needs no DEPOSIT_XPUB nor hot-wallet key without a chain: a PIX-only deployment invents neither", () => {
    expect(() =>
      parseEnv({ ...LIVE, DEPOSIT_XPUB: undefined, ...PIX, PIX_RECEIVER_KEY: "chave@pixcrypto.example" }),
    ).not.toThrow();
    expect(() => parseEnv({ ...LIVE, DEPOSIT_XPUB: undefined })).not.toThrow();
  });

  it("refuses a chain without DEPOSIT_XPUB, or without a hot-wallet key", () => {
    expect(() => parseEnv({ ...LIVE, ...NODE, ...KEY })).not.toThrow();
    expect(() => parseEnv({ ...LIVE, ...NODE, ...KEY, DEPOSIT_XPUB: undefined })).toThrow(
      /DEPOSIT_XPUB: is required in live mode once an EVM_RPC_URL_\* is set/,
    );
    expect(() => parseEnv({ ...LIVE, ...NODE })).toThrow(
      /HOT_WALLET_PRIVATE_KEY: is required in live mode \(or HOT_WALLET_KEY_FILE\) once an EVM_RPC_URL_\* is set/,
    );
    expect(() => parseEnv({ ...LIVE, ...NODE, DEPOSIT_XPUB: undefined })).toThrow(
      /DEPOSIT_XPUB[\s\S]*HOT_WALLET_PRIVATE_KEY/,
    );
  });

  it("still refuses what is unsafe whatever the rails: no AUTH_SECRET, no DATABASE_URL, no https PUBLIC_BASE_URL", () => {
    expect(() => parseEnv({ ...LIVE, AUTH_SECRET: undefined })).toThrow(/AUTH_SECRET: is required in live mode/);
    expect(() => parseEnv({ ...LIVE, DATABASE_URL: undefined })).toThrow(/DATABASE_URL: is required in live mode/);
    expect(() => parseEnv({ ...LIVE, PUBLIC_BASE_URL: "http://pay.example.com" })).toThrow(
      /PUBLIC_BASE_URL: is required in live mode and must be an https/,
    );
  });
});

describe("PIX configuration", () => {
  it("accepts a complete one, with a PEM pair or a PKCS#12 bundle, secrets given or in files", () => {
    expect(() => parseEnv(PIX)).not.toThrow();
    expect(() =>
      parseEnv({ ...PIX, PIX_CERT_FILE: undefined, PIX_KEY_FILE: undefined, PIX_PFX_FILE: "/run/secrets/pix.p12" }),
    ).not.toThrow();
    expect(() =>
      parseEnv({ ...PIX, PIX_CLIENT_SECRET: undefined, PIX_CLIENT_SECRET_FILE: "/run/secrets/pix-secret" }),
    ).not.toThrow();
    expect(() => parseEnv({ ...LIVE, ...PIX, PIX_RECEIVER_KEY: "chave@pixcrypto.example" })).not.toThrow();
  });

  it("names every missing or doubled piece", () => {
    expect(() => parseEnv({ PIX_API_URL: PIX.PIX_API_URL })).toThrow(
      /PIX_CLIENT_ID: is required once PIX_API_URL is set[\s\S]*PIX_CLIENT_SECRET: is required \(or PIX_CLIENT_SECRET_FILE\)[\s\S]*PIX_CERT_FILE: the PSP's mTLS client certificate is required/,
    );
    expect(() => parseEnv({ ...PIX, PIX_KEY_FILE: undefined })).toThrow(
      /PIX_KEY_FILE: PIX_CERT_FILE and PIX_KEY_FILE go together/,
    );
    expect(() => parseEnv({ ...PIX, PIX_PFX_FILE: "/x.p12" })).toThrow(
      /PIX_PFX_FILE: set either PIX_CERT_FILE \+ PIX_KEY_FILE or PIX_PFX_FILE, not both/,
    );
    expect(() => parseEnv({ ...PIX, PIX_CLIENT_SECRET_FILE: "/s" })).toThrow(
      /set either PIX_CLIENT_SECRET or PIX_CLIENT_SECRET_FILE/,
    );
    expect(() => parseEnv({ ...PIX, PIX_API_URL: "http://pix.psp.example/v2" })).toThrow(
      /PIX_API_URL: must be an https URL/,
    );
    expect(() => parseEnv({ ...PIX, PIX_REGISTER_WEBHOOK: "true" })).toThrow(
      /PIX_WEBHOOK_TOKEN: is required once PIX_REGISTER_WEBHOOK=true/,
    );
    expect(() => parseEnv({ ...PIX, PIX_WEBHOOK_TOKEN: "short" })).toThrow(/PIX_WEBHOOK_TOKEN: must be at least 32/);
  });

  it("payouts need a key to pay from, and a base URL when collection is not configured", () => {
    expect(() => parseEnv({ ...PIX, PIX_PAYOUT_PROVIDER: "efi" })).toThrow(
      /PIX_PAYOUT_KEY: is required once PIX_PAYOUT_PROVIDER is set/,
    );
    expect(() => parseEnv({ ...PIX, PIX_PAYOUT_PROVIDER: "efi", PIX_PAYOUT_KEY: "k" })).not.toThrow();
    expect(() => parseEnv({ ...PIX, PIX_API_URL: undefined, PIX_PAYOUT_PROVIDER: "efi", PIX_PAYOUT_KEY: "k" })).toThrow(
      /PIX_PAYOUT_URL: is required/,
    );
    expect(() => parseEnv({ ...PIX, PIX_PAYOUT_PROVIDER: "woovi" })).toThrow(/PIX_PAYOUT_PROVIDER/);
  });

  it("live PIX refuses the sandbox receiving key", () => {
    expect(() => parseEnv({ ...LIVE, ...PIX })).toThrow(/PIX_RECEIVER_KEY: is still the sandbox default/);
    expect(() => parseEnv({ ...LIVE, ...PIX, PIX_RECEIVER_KEY: SANDBOX_PIX_RECEIVER_KEY })).toThrow(/PIX_RECEIVER_KEY/);
    // Sandbox mode keeps it: its BR Codes are static codes paying that key.
    expect(() => parseEnv(PIX)).not.toThrow();
  });
});
