import { describe, expect, it } from "vitest";
import { sessionCookie } from "./options";

describe("the dashboard session cookie", () => {
  it("is HttpOnly and SameSite=Lax always, Secure and __Secure- prefixed behind https", () => {
    expect(sessionCookie(true)).toEqual({
      name: "__Secure-next-auth.session-token",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: true },
    });
    expect(sessionCookie(false).options).toMatchObject({ httpOnly: true, sameSite: "lax", secure: false });
  });
});
