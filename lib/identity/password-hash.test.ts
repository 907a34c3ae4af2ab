import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "@/lib/identity/password-hash";

describe("password hashing", () => {
  it("encodes scrypt parameters, salt and hash", async () => {
    const stored = await hashPassword("correct horse battery staple");
    const [scheme, n, r, p, salt, hash] = stored.split("$");
    expect(scheme).toBe("scrypt");
    expect([n, r, p]).toEqual(["32768", "8", "1"]);
    expect(Buffer.from(salt, "base64")).toHaveLength(16);
    expect(Buffer.from(hash, "base64").length).toBeGreaterThanOrEqual(32);
  });

  it("verifies the right password and rejects a wrong one", async () => {
    const stored = await hashPassword("s3cret-passw0rd");
    expect(await verifyPassword("s3cret-passw0rd", stored)).toBe(true);
    expect(await verifyPassword("s3cret-passw0rD", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("salts: the same password hashes differently each time", async () => {
    const a = await hashPassword("same password");
    const b = await hashPassword("same password");
    expect(a).not.toBe(b);
    expect(await verifyPassword("same password", a)).toBe(true);
    expect(await verifyPassword("same password", b)).toBe(true);
  });

  it("handles non-ASCII passwords", async () => {
    const stored = await hashPassword("senha-çãé-🔑");
    expect(await verifyPassword("senha-çãé-🔑", stored)).toBe(true);
  });

  it("returns false for malformed or hostile stored values instead of throwing", async () => {
    const good = await hashPassword("password123");
    const [, , , , salt, hash] = good.split("$");
    for (const stored of [
      "",
      "plain-text",
      "bcrypt$10$abc",
      `scrypt$32768$8$1$${salt}`,
      `scrypt$30000$8$1$${salt}$${hash}`, // N not a power of two
      `scrypt$1073741824$8$1$${salt}$${hash}`, // N beyond the cap
      `scrypt$32768$8$1$$${hash}`, // empty salt
      `scrypt$32768$8$1$${salt}$AAAA`, // truncated hash
      `scrypt$-1$8$1$${salt}$${hash}`,
    ]) {
      expect(await verifyPassword("password123", stored)).toBe(false);
    }
  });

  it("verifies with the parameters stored in the hash", async () => {
    const stored = await hashPassword("password123");
    const lowered = stored.replace("scrypt$32768$", "scrypt$16384$");
    // Same salt, different N: a different derived key, so the password no longer matches.
    expect(await verifyPassword("password123", lowered)).toBe(false);
  });
});
