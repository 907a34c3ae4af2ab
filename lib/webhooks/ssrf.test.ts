import { describe, expect, it } from "vitest";
import { classifyAddress, guardedLookup, parseIPv6, refuseNonPublic, resolveHost } from "./ssrf";

describe("classifyAddress: IPv4", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.10", "private"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.100.100.200", "cgnat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "reserved"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.170", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.15.255.255",
    "172.32.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "169.253.255.255",
    "11.0.0.1",
    "192.169.0.1",
    "223.255.255.255",
  ])("%s is public (just outside the ranges)", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
  });
});

describe("classifyAddress: IPv6", () => {
  it.each([
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "multicast"],
    ["fec0::1", "private"],
    ["2001:db8::1", "reserved"],
    ["64:ff9b:1::1", "reserved"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:10.1.2.3", "private"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:192.168.0.1", "private"],
    ["::ffff:100.64.1.1", "cgnat"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["2002:c0a8:101::1", "private"],
  ])("an IPv4 address inside IPv6 (%s) is judged as that IPv4 address: %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:0808:0808::1",
  ])("%s is public", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
  });

  it.each(["", "localhost", "1.2.3", "1.2.3.256", "::1::2", "12345::", "1:2:3:4:5:6:7:8:9", "g::1"])(
    "%j is invalid (never public)",
    (ip) => {
      expect(classifyAddress(ip)).toBe("invalid");
    },
  );

  it("parses compressed forms and dotted tails into eight groups", () => {
    expect(parseIPv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6("1:2:3:4:5:6:7::")).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIPv6("1:2:3:4:5:6:7:8::")).toBeNull();
  });
});

describe("refuseNonPublic", () => {
  it("names the host, the address and its class", () => {
    expect(refuseNonPublic("example.com", ["93.184.216.34"])).toBeNull();
    const err = refuseNonPublic("evil.example", ["93.184.216.34", "10.0.0.5"]);
    expect(err?.message).toBe(
      "evil.example resolves to 10.0.0.5, a private address; webhooks must reach a public address",
    );
    expect(refuseNonPublic("127.0.0.1", ["127.0.0.1"])?.message).toBe(
      "127.0.0.1 is a loopback address; webhooks must reach a public address",
    );
  });
});

describe("guardedLookup", () => {
  const lookup = (allowPrivate: boolean, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      guardedLookup(allowPrivate)("localhost", { all }, (err, address) => resolve({ err, address })),
    );

  it("refuses a name that resolves to loopback unless private targets are allowed", async () => {
    const refused = await lookup(false, false);
    expect(refused.err?.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    const allowed = await lookup(true, false);
    expect(allowed.err).toBeNull();
    expect(["127.0.0.1", "::1"]).toContain(allowed.address);
    const all = await lookup(true, true);
    expect(Array.isArray(all.address)).toBe(true);
  });

  it("resolveHost returns an IP literal as it is, and the addresses of a name", async () => {
    expect(await resolveHost("[::1]")).toEqual(["::1"]);
    expect(await resolveHost("10.0.0.1")).toEqual(["10.0.0.1"]);
    expect((await resolveHost("localhost")).length).toBeGreaterThan(0);
  });
});
