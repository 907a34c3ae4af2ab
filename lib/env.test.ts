import { describe, expect, it } from "vitest";
import { parseEnv, SANDBOX_PIX_RECEIVER_KEY } from "./env";

// The PIX settings are checked as one configuration at start-up: half of one is a mistake to name,
// not a rail that fails on its first payment (CONTRACT §10).

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

describe("PIX configuration", () => {
  it("accepts a complete one, with a PEM pair or a PKCS#12 bundle, secrets given or in files", () => {
    expect(() => parseEnv(PIX)).not.toThrow();
    expect(() => parseEnv({ ...PIX, PIX_CERT_FILE: undefined, PIX_KEY_FILE: undefined, PIX_PFX_FILE: "/run/secrets/pix.p12" })).not.toThrow();
    expect(() => parseEnv({ ...PIX, PIX_CLIENT_SECRET: undefined, PIX_CLIENT_SECRET_FILE: "/run/secrets/pix-secret" })).not.toThrow();
    expect(() => parseEnv({ ...LIVE, ...PIX, PIX_RECEIVER_KEY: "chave@pixcrypto.example" })).not.toThrow();
  });

  it("names every missing or doubled piece", () => {
    expect(() => parseEnv({ PIX_API_URL: PIX.PIX_API_URL })).toThrow(
      /PIX_CLIENT_ID: is required once PIX_API_URL is set[\s\S]*PIX_CLIENT_SECRET: is required \(or PIX_CLIENT_SECRET_FILE\)[\s\S]*PIX_CERT_FILE: the PSP's mTLS client certificate is required/,
    );
    expect(() => parseEnv({ ...PIX, PIX_KEY_FILE: undefined })).toThrow(/PIX_KEY_FILE: PIX_CERT_FILE and PIX_KEY_FILE go together/);
    expect(() => parseEnv({ ...PIX, PIX_PFX_FILE: "/x.p12" })).toThrow(/PIX_PFX_FILE: set either PIX_CERT_FILE \+ PIX_KEY_FILE or PIX_PFX_FILE, not both/);
    expect(() => parseEnv({ ...PIX, PIX_CLIENT_SECRET_FILE: "/s" })).toThrow(/set either PIX_CLIENT_SECRET or PIX_CLIENT_SECRET_FILE/);
    expect(() => parseEnv({ ...PIX, PIX_API_URL: "http://pix.psp.example/v2" })).toThrow(/PIX_API_URL: must be an https URL/);
    expect(() => parseEnv({ ...PIX, PIX_REGISTER_WEBHOOK: "true" })).toThrow(/PIX_WEBHOOK_TOKEN: is required once PIX_REGISTER_WEBHOOK=true/);
    expect(() => parseEnv({ ...PIX, PIX_WEBHOOK_TOKEN: "short" })).toThrow(/PIX_WEBHOOK_TOKEN: must be at least 32/);
  });

  it("payouts need a key to pay from, and a base URL when collection is not configured", () => {
    expect(() => parseEnv({ ...PIX, PIX_PAYOUT_PROVIDER: "efi" })).toThrow(/PIX_PAYOUT_KEY: is required once PIX_PAYOUT_PROVIDER is set/);
    expect(() => parseEnv({ ...PIX, PIX_PAYOUT_PROVIDER: "efi", PIX_PAYOUT_KEY: "k" })).not.toThrow();
    expect(() => parseEnv({ ...PIX, PIX_API_URL: undefined, PIX_PAYOUT_PROVIDER: "efi", PIX_PAYOUT_KEY: "k" })).toThrow(/PIX_PAYOUT_URL: is required/);
    expect(() => parseEnv({ ...PIX, PIX_PAYOUT_PROVIDER: "woovi" })).toThrow(/PIX_PAYOUT_PROVIDER/);
  });

  it("live PIX refuses the sandbox receiving key", () => {
    expect(() => parseEnv({ ...LIVE, ...PIX })).toThrow(/PIX_RECEIVER_KEY: is still the sandbox default/);
    expect(() => parseEnv({ ...LIVE, ...PIX, PIX_RECEIVER_KEY: SANDBOX_PIX_RECEIVER_KEY })).toThrow(/PIX_RECEIVER_KEY/);
    // Sandbox mode keeps it: its BR Codes are static codes paying that key.
    expect(() => parseEnv(PIX)).not.toThrow();
  });
});
