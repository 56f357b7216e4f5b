import { describe, expect, it } from "vitest";
import { forwardedClient, trustedProxies } from "#src/trusted-proxies";

const proxies = trustedProxies(["172.28.0.10", "10.0.0.0/8", "fd00::/8", "2001:db8::7"]);

describe("the client behind trusted proxies", () => {
  it("trusts listed addresses and CIDRs, IPv4 and IPv6, an IPv4-mapped peer as its IPv4 address", () => {
    for (const address of [
      "172.28.0.10",
      "10.200.1.2",
      "::ffff:10.0.0.1",
      "fd12:3456::1",
      "2001:db8::7",
      "[2001:db8::7]",
    ])
      expect(proxies.trusts(address), address).toBe(true);
    for (const address of [
      "172.28.0.11",
      "11.0.0.1",
      "::ffff:11.0.0.1",
      "fe80::1",
      "2001:db8::8",
      "not-an-address",
      "",
    ])
      expect(proxies.trusts(address), address).toBe(false);
  });

  it("takes the right-most forwarded address that is not itself a proxy, only from a trusted peer", () => {
    expect(forwardedClient("172.28.0.10", "198.51.100.7", proxies)).toBe("198.51.100.7");
    expect(forwardedClient("::ffff:172.28.0.10", "127.0.0.1, 198.51.100.7, 10.1.1.1", proxies)).toBe("198.51.100.7");
    expect(forwardedClient("fd00::2", "2001:db8:1::5", proxies)).toBe("2001:db8:1::5");
    // An untrusted peer's header is not read at all.
    expect(forwardedClient("198.51.100.9", "127.0.0.1", proxies)).toBe("198.51.100.9");
    // No header: the proxy itself is the client.
    expect(forwardedClient("172.28.0.10", undefined, proxies)).toBe("172.28.0.10");
    // Garbage stops the walk at the last proxy that wrote it; every hop trusted: the left-most.
    expect(forwardedClient("172.28.0.10", "198.51.100.7, bogus", proxies)).toBe("172.28.0.10");
    expect(forwardedClient("172.28.0.10", "10.0.0.3, 10.0.0.4", proxies)).toBe("10.0.0.3");
  });

  it("with no proxy listed, every peer is its own client", () => {
    expect(forwardedClient("127.0.0.1", "198.51.100.7", trustedProxies([]))).toBe("127.0.0.1");
  });
});
