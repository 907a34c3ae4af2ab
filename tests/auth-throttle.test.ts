import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import type { SharedRateLimiter } from "@/lib/http/rate-limit";
import { processSlot } from "@/lib/singleton";

// Sign-in and sign-up hash a password (scrypt: tens of milliseconds and 32 MiB each), so the
// per-address limits must refuse before any hashing (docs/api.md#rate-limits). The password functions are
// counted here, and made instant, so a refusal that hashed anyway would show.

const hashing = vi.hoisted(() => ({ hash: 0, verify: 0, address: "" }));

vi.mock("@/lib/identity/password-hash", () => ({
  hashPassword: async () => {
    hashing.hash++;
    return "scrypt$32768$8$1$c2FsdA$aGFzaA";
  },
  verifyPassword: async () => {
    hashing.verify++;
    return false;
  },
}));

// What a server action sees: the request's headers, stamped by the server, and no cookies (a first visit: pt-BR).
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ [CLIENT_ADDRESS_HEADER]: hashing.address }),
  cookies: async () => ({ get: () => undefined }),
}));

const { authOptions } = await import("@/lib/identity/dashboard/options");
const { signUpAction } = await import("@/lib/identity-flows/sign-up");
const {
  SIGN_IN_ATTEMPTS_PER_ADDRESS_PER_MINUTE,
  SIGN_IN_ATTEMPTS_PER_MINUTE,
  SIGN_UPS_PER_ADDRESS_PER_MINUTE,
  TOO_MANY_ATTEMPTS,
} = await import("@/lib/identity/dashboard/throttle");
const { idle } = await import("@/lib/forms/action-state");
const { translate } = await import("@/lib/i18n");

const address = () => `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
const otherAddress = () => `192.0.2.${1 + Math.floor(Math.random() * 250)}`;
const email = () => `u-${randomBytes(4).toString("hex")}@example.com`;

type Authorize = (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown>;
const authorize = (authOptions().providers[0] as unknown as { options: { authorize: Authorize } }).options.authorize;
const signIn = (ip: string, mail: string) =>
  authorize({ email: mail, password: "wrong password" }, { headers: { [CLIENT_ADDRESS_HEADER]: ip } });

function signUpForm(mail: string) {
  const form = new FormData();
  form.set("companyName", "Loja Limite");
  form.set("email", mail);
  form.set("password", "correct horse battery");
  form.set("pixKey", "52998224725");
  return form;
}

beforeEach(async () => {
  const slot = processSlot<SharedRateLimiter>("rate-limiter");
  slot.value?.stop();
  slot.value = undefined;
  hashing.hash = hashing.verify = 0;
  // Calendar-minute windows: keep a test inside one minute.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
});

describe("sign-in", () => {
  it("is refused per client address before any password is hashed, whatever e-mails are tried", async () => {
    const ip = address();
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ADDRESS_PER_MINUTE; i++) expect(await signIn(ip, email())).toBeNull();
    expect(hashing.verify).toBe(SIGN_IN_ATTEMPTS_PER_ADDRESS_PER_MINUTE);
    await expect(signIn(ip, email())).rejects.toThrow(TOO_MANY_ATTEMPTS);
    expect(hashing.verify).toBe(SIGN_IN_ATTEMPTS_PER_ADDRESS_PER_MINUTE);
    // Another address is not affected.
    expect(await signIn(otherAddress(), email())).toBeNull();
  });

  it("is still refused per e-mail across addresses", async () => {
    const mail = email();
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) expect(await signIn(`198.51.100.${i + 1}`, mail)).toBeNull();
    await expect(signIn("198.51.100.200", mail)).rejects.toThrow(TOO_MANY_ATTEMPTS);
    expect(hashing.verify).toBe(SIGN_IN_ATTEMPTS_PER_MINUTE);
  });
});

describe("sign-up", () => {
  it("is refused per client address before the password is hashed", async () => {
    hashing.address = address();
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS_PER_MINUTE; i++)
      expect(await signUpAction(idle, signUpForm(email()))).toMatchObject({ status: "success" });
    expect(hashing.hash).toBe(SIGN_UPS_PER_ADDRESS_PER_MINUTE);
    expect(await signUpAction(idle, signUpForm(email()))).toMatchObject({
      status: "error",
      error: translate("pt-BR", "auth.tooManySignUps"),
    });
    expect(hashing.hash).toBe(SIGN_UPS_PER_ADDRESS_PER_MINUTE);
    hashing.address = otherAddress();
    expect(await signUpAction(idle, signUpForm(email()))).toMatchObject({ status: "success" });
  });
});
