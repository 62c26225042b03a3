/** The private-address guard of webhooks (SPEC §18): which addresses are public, and what is refused when configured and when sent. */
import { describe, expect, test } from "bun:test";
import { RefusedTarget, resolveTarget, resolveWithBun, targetProblem, type Resolve } from "../../src/alerts/guard.ts";
import { isPublicAddress, parseIp } from "../../src/domain/net.ts";

const isPublic = (text: string): boolean => {
  const address = parseIp(text);
  if (address === null) throw new Error(`not an address: ${text}`);
  return isPublicAddress(address);
};

const table = (entries: Record<string, readonly string[]>): Resolve => async (hostname) => {
  const found = entries[hostname];
  if (!found) throw new Error("ENOTFOUND");
  return found;
};

describe("public addresses", () => {
  test("loopback, private, link-local, unique-local, CGNAT, multicast, unspecified and reserved ranges are not public", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.254",
      "0.0.0.0",
      "224.0.0.1",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
      "192.0.2.10",
      "198.18.0.1",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "2001:db8::1",
      "::ffff:127.0.0.1",
      "::ffff:10.1.2.3",
      "64:ff9b::a00:1",
      "64:ff9b::169.254.169.254",
      "2002:a00:1::1",
    ]) {
      expect({ address, public: isPublic(address) }).toEqual({ address, public: false });
    }
  });

  test("ordinary internet addresses are public, in either spelling", () => {
    for (const address of ["93.184.215.14", "1.1.1.1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:93.184.215.14", "64:ff9b::808:808"]) {
      expect({ address, public: isPublic(address) }).toEqual({ address, public: true });
    }
  });
});

describe("a target as configured", () => {
  test("only absolute http and https URLs without credentials", () => {
    expect(targetProblem("https://hooks.example.org/x", false)).toBeNull();
    expect(targetProblem("http://hooks.example.org:8080/x?token=1", false)).toBeNull();
    expect(targetProblem("hooks.example.org/x", false)).toMatch(/absolute/);
    expect(targetProblem("ftp://hooks.example.org/x", false)).toMatch(/http or https/);
    expect(targetProblem("https://user:pass@hooks.example.org/x", false)).toMatch(/user name or password/);
  });

  test("literal non-public addresses and localhost are refused, naming the setting that allows them", () => {
    for (const url of ["http://127.0.0.1/", "http://10.0.0.1:8080/x", "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://[::ffff:7f00:1]/", "http://localhost:9000/", "http://api.localhost/", "http://0.0.0.0/"]) {
      expect({ url, problem: targetProblem(url, false) }).toEqual({ url, problem: expect.stringContaining("WEBHOOK_ALLOW_PRIVATE") });
      expect(targetProblem(url, true)).toBeNull();
    }
  });
});

describe("what the sender refuses is refused when saved (SPEC §16.1)", () => {
  const refusedBoth = async (url: string, allowPrivate: boolean) => {
    expect({ url, problem: targetProblem(url, allowPrivate) }).toEqual({ url, problem: expect.any(String) });
    await expect(resolveTarget(new URL(url), allowPrivate, table({ "hooks.example.org": ["93.184.215.14"] }))).rejects.toBeInstanceOf(RefusedTarget);
  };

  test("an IPv4 address in an IPv6 spelling: mapped, translated, compatible, NAT64", async () => {
    for (const url of ["http://[::ffff:0:7f00:1]/", "http://[::ffff:0:127.0.0.1]/", "http://[::ffff:0:a00:1]/x", "http://[::ffff:7f00:1]/", "http://[::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/"]) {
      await refusedBoth(url, false);
      expect(targetProblem(url, true)).toBeNull();
    }
  });

  test("port 0, whatever WEBHOOK_ALLOW_PRIVATE says", async () => {
    for (const url of ["http://hooks.example.org:0/x", "https://hooks.example.org:00/x", "http://93.184.215.14:0/"]) {
      await refusedBoth(url, false);
      await refusedBoth(url, true);
      expect(targetProblem(url, false)).toMatch(/port 0/);
    }
  });
});

describe("a target when sending", () => {
  test("a literal public address is used as it is; a private one is refused", async () => {
    expect(await resolveTarget(new URL("http://93.184.215.14/"), false, table({}))).toBe("93.184.215.14");
    expect(await resolveTarget(new URL("http://[2606:4700::1]/"), false, table({}))).toBe("2606:4700::1");
    for (const url of ["http://127.0.0.1/", "http://10.0.0.1/", "http://169.254.169.254/", "http://[::1]/"]) {
      await expect(resolveTarget(new URL(url), false, table({}))).rejects.toBeInstanceOf(RefusedTarget);
    }
  });

  test("a name is checked on every address it resolves to, and the first is the one connected to", async () => {
    const resolve = table({
      "hooks.example.org": ["93.184.215.14", "2606:4700::1"],
      "internal.example.org": ["10.1.2.3"],
      "mixed.example.org": ["93.184.215.14", "192.168.0.7"],
      "metadata.example.org": ["169.254.169.254"],
      "six.example.org": ["::1"],
    });
    expect(await resolveTarget(new URL("https://hooks.example.org/x"), false, resolve)).toBe("93.184.215.14");
    for (const host of ["internal.example.org", "mixed.example.org", "metadata.example.org", "six.example.org"]) {
      await expect(resolveTarget(new URL(`https://${host}/x`), false, resolve)).rejects.toThrow(/not a public internet address/);
    }
    await expect(resolveTarget(new URL("https://unknown.example.org/x"), false, resolve)).rejects.toThrow(/cannot resolve/);
    expect(await resolveTarget(new URL("https://internal.example.org/x"), true, resolve)).toBe("10.1.2.3");
  });

  test("localhost resolves to loopback on this machine, and a name resolving as it does is refused", async () => {
    const addresses = await resolveWithBun("localhost");
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(isPublic(address)).toBe(false);
    await expect(resolveTarget(new URL("http://localhost/"), false, resolveWithBun)).rejects.toThrow(/names this machine/);
    await expect(resolveTarget(new URL("http://alias.example.org/"), false, () => resolveWithBun("localhost"))).rejects.toThrow(/resolves to/);
    expect(await resolveTarget(new URL("http://localhost/"), true, resolveWithBun)).toBe(addresses[0] ?? "");
  });
});
