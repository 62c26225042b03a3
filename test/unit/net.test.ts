import { describe, expect, test } from "bun:test";
import { cidrContains, parseCidr, parseIp, parseTrustedProxies, resolveClientIp, type TrustedProxies } from "../../src/domain/net.ts";

describe("IP addresses", () => {
  test("IPv4 and its IPv4-mapped IPv6 spelling are the same address", () => {
    expect(parseIp("10.0.0.1")).toBe(parseIp("::ffff:10.0.0.1"));
    expect(parseIp("10.0.0.1")).toBe(parseIp("::ffff:a00:1"));
  });

  test("IPv6 forms", () => {
    expect(parseIp("::1")).toBe(1n);
    expect(parseIp("::")).toBe(0n);
    expect(parseIp("2001:db8::1")).toBe(parseIp("2001:0db8:0:0:0:0:0:1"));
    expect(parseIp("[2001:db8::1]")).toBe(parseIp("2001:db8::1"));
    expect(parseIp("fe80::1%eth0")).toBe(parseIp("fe80::1"));
  });

  test("garbage is not an address", () => {
    for (const bad of ["", "1.2.3", "1.2.3.256", "1.2.3.4.5", "a.b.c.d", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "localhost"]) {
      expect(parseIp(bad)).toBeNull();
    }
  });

  test("CIDR ranges", () => {
    const ten = parseCidr("10.0.0.0/8");
    expect(ten).not.toBeNull();
    if (!ten) return;
    expect(cidrContains(ten, parseIp("10.200.3.4") ?? 0n)).toBe(true);
    expect(cidrContains(ten, parseIp("::ffff:10.1.1.1") ?? 0n)).toBe(true);
    expect(cidrContains(ten, parseIp("11.0.0.1") ?? 0n)).toBe(false);
    const single = parseCidr("192.168.1.5");
    expect(single && cidrContains(single, parseIp("192.168.1.5") ?? 0n)).toBe(true);
    expect(single && cidrContains(single, parseIp("192.168.1.6") ?? 0n)).toBe(false);
    const v6 = parseCidr("fd00::/8");
    expect(v6 && cidrContains(v6, parseIp("fd12::9") ?? 0n)).toBe(true);
    expect(v6 && cidrContains(v6, parseIp("fe80::1") ?? 0n)).toBe(false);
    const all = parseCidr("0.0.0.0/0");
    expect(all && cidrContains(all, parseIp("8.8.8.8") ?? 0n)).toBe(true);
    expect(parseCidr("10.0.0.0/33")).toBeNull();
    expect(parseCidr("10.0.0.0/x")).toBeNull();
    expect(parseCidr("10.0.0.0/8/1")).toBeNull();
  });
});

describe("client address behind proxies", () => {
  const rule = (text: string): TrustedProxies => {
    const parsed = parseTrustedProxies(text);
    if (!parsed) throw new Error(`bad rule ${text}`);
    return parsed;
  };

  test("rules parse", () => {
    expect(rule("false")).toEqual({ kind: "none" });
    expect(rule("true")).toEqual({ kind: "all" });
    expect(rule("0")).toEqual({ kind: "none" });
    expect(rule("2")).toEqual({ kind: "hops", hops: 2 });
    expect(rule("10.0.0.0/8, 127.0.0.1").kind).toBe("list");
    expect(parseTrustedProxies("maybe")).toBeNull();
    expect(parseTrustedProxies("10.0.0.0/8,junk")).toBeNull();
  });

  test("untrusted: the socket address, whatever the header says", () => {
    expect(resolveClientIp("203.0.113.9", "1.1.1.1", rule("false"))).toBe("203.0.113.9");
  });

  test("trust all: the left-most forwarded address", () => {
    expect(resolveClientIp("10.0.0.2", "198.51.100.7, 10.0.0.1", rule("true"))).toBe("198.51.100.7");
    expect(resolveClientIp("10.0.0.2", null, rule("true"))).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", " , ", rule("true"))).toBe("10.0.0.2");
  });

  test("hop count: that many proxies are believed", () => {
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, 198.51.100.7", rule("1"))).toBe("198.51.100.7");
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1", rule("2"))).toBe("198.51.100.7");
    expect(resolveClientIp("10.0.0.2", "198.51.100.7", rule("5"))).toBe("198.51.100.7");
  });

  test("list: skip trusted hops from the right, never believe an untrusted peer", () => {
    const trust = rule("10.0.0.0/8");
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1", trust)).toBe("198.51.100.7");
    expect(resolveClientIp("203.0.113.9", "198.51.100.7", trust)).toBe("203.0.113.9");
    expect(resolveClientIp("10.0.0.2", "10.0.0.3, 10.0.0.1", trust)).toBe("10.0.0.3");
  });
});
