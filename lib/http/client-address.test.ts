import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import {
  addressBucket,
  CLIENT_ADDRESS_HEADER,
  clientAddress,
  resolveClientAddress,
  stampClientAddress,
} from "./client-address";
import { PlainHeaders } from "./request";

describe("resolveClientAddress", () => {
  it("is the socket's address when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress("203.0.113.9", "198.51.100.1", 0)).toBe("203.0.113.9");
    expect(resolveClientAddress("203.0.113.9", undefined, 0)).toBe("203.0.113.9");
  });

  it("counts TRUST_PROXY_HOPS entries from the right, so what a client prepends never counts", () => {
    expect(resolveClientAddress("10.0.0.2", "1.1.1.1, 198.51.100.7", 1)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.2", "1.1.1.1, 198.51.100.7, 10.0.0.5", 2)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.2", "1.1.1.1,198.51.100.7,10.0.0.5", 1)).toBe("10.0.0.5");
  });

  it("takes the left-most entry of a list shorter than the hops trusted, and the socket without a list", () => {
    expect(resolveClientAddress("10.0.0.2", "198.51.100.7", 3)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.2", undefined, 2)).toBe("10.0.0.2");
    expect(resolveClientAddress("10.0.0.2", "", 1)).toBe("10.0.0.2");
  });

  it("falls back to the socket for an entry that is not an address", () => {
    expect(resolveClientAddress("10.0.0.2", "evil, not-an-ip", 1)).toBe("10.0.0.2");
    expect(resolveClientAddress("10.0.0.2", "unknown", 1)).toBe("10.0.0.2");
  });

  it("normalises IPv4-mapped IPv6, ports, brackets and zones", () => {
    expect(resolveClientAddress("::ffff:127.0.0.1", undefined, 0)).toBe("127.0.0.1");
    expect(resolveClientAddress("10.0.0.2", "198.51.100.7:4711", 1)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.2", "[2001:DB8::1]:443", 1)).toBe("2001:db8::1");
    expect(resolveClientAddress("fe80::1%eth0", undefined, 0)).toBe("fe80::1");
    expect(resolveClientAddress(undefined, undefined, 0)).toBe("unknown");
  });
});

describe("addressBucket", () => {
  it("keeps IPv4 addresses whole and groups IPv6 by /64", () => {
    expect(addressBucket("198.51.100.7")).toBe("198.51.100.7");
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:0db8:0001:0002::")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    expect(addressBucket("2001:db8:1:3::1")).not.toBe(addressBucket("2001:db8:1:2::1"));
    expect(addressBucket("64:ff9b::198.51.100.7")).toBe("64:ff9b:0:0::/64");
    expect(addressBucket("unknown")).toBe("unknown");
  });
});

describe("stampClientAddress", () => {
  it("replaces a client-sent copy of the internal header in both places handlers read", () => {
    const rawHeaders = ["Host", "x", "X-Payments-Client-Address", "1.2.3.4", "X-Forwarded-For", "1.2.3.4"];
    const req = {
      socket: { remoteAddress: "::ffff:203.0.113.9" },
      headers: { host: "x", [CLIENT_ADDRESS_HEADER]: "1.2.3.4", "x-forwarded-for": "1.2.3.4" },
      rawHeaders,
    } as unknown as IncomingMessage;
    expect(stampClientAddress(req, 0)).toBe("203.0.113.9");
    expect(req.headers[CLIENT_ADDRESS_HEADER]).toBe("203.0.113.9");
    expect(clientAddress(new PlainHeaders(req.rawHeaders))).toBe("203.0.113.9");
    expect(rawHeaders.filter((h) => h.toLowerCase() === CLIENT_ADDRESS_HEADER)).toHaveLength(1);
  });
});
