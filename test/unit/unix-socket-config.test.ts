import { describe, expect, test } from "bun:test";
import { unixSocketPath } from "../../src/domain/net.ts";
import { testConfig } from "../helpers.ts";

describe("HOST as a Unix socket", () => {
  test("unix: and an absolute path name a socket; addresses and names do not", () => {
    expect(unixSocketPath("unix:/run/hub/hub.sock")).toBe("/run/hub/hub.sock");
    expect(unixSocketPath("/run/hub/hub.sock")).toBe("/run/hub/hub.sock");
    for (const host of ["0.0.0.0", "127.0.0.1", "::1", "hub.lan"]) expect(unixSocketPath(host)).toBeNull();
  });

  test("behind a socket the proxy is believed for one hop, unless TRUSTED_PROXIES says otherwise", () => {
    expect(testConfig([], { HOST: "unix:/run/hub/hub.sock" }).trustedProxies).toEqual({ kind: "hops", hops: 1 });
    expect(testConfig([], { HOST: "/run/hub/hub.sock", TRUSTED_PROXIES: "2" }).trustedProxies).toEqual({ kind: "hops", hops: 2 });
    expect(testConfig([], { HOST: "127.0.0.1" }).trustedProxies).toEqual({ kind: "none" });
  });
});
