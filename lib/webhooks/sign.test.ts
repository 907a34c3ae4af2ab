import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { generateSecret, secretKey, signature, signatureHeaders } from "./sign";

describe("webhook signing (Standard Webhooks)", () => {
  it("a secret is whsec_ + base64 of 32 random bytes, different every time", () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(generateSecret()).not.toBe(a);
  });

  it("the standardwebhooks package verifies our headers over the exact body bytes", () => {
    const secret = generateSecret();
    const body = Buffer.from(
      JSON.stringify({ id: "evt", type: "order.status_changed", data: { value: 1.5, name: "São Paulo ✓" } }),
    );
    const headers = signatureHeaders(secret, "a5d6c1b0-0000-4000-8000-000000000001", body);
    expect(new Webhook(secret).verify(body.toString("utf8"), headers)).toEqual(JSON.parse(body.toString("utf8")));
    // One changed byte, or another secret, fails.
    expect(() => new Webhook(secret).verify(body.toString("utf8").replace("1.5", "1.6"), headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body.toString("utf8"), headers)).toThrow();
  });

  it("matches the Standard Webhooks reference vector", () => {
    // From the specification's test suite (libraries/javascript/src/index.test.ts).
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const sig = signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, Buffer.from('{"test": 2432232314}'));
    expect(sig).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });
});
