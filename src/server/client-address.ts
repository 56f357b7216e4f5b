import { isIPv4, isIPv6 } from "node:net";
import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { forwardedClient, NO_TRUSTED_PROXIES, type TrustedProxies } from "#src/trusted-proxies";

/** The TCP peer of a request, or undefined when there is no socket (in-process requests). */
export function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address || undefined;
  } catch {
    return undefined;
  }
}

/** The trusted proxies the server put on the context (none when it put none). */
export function contextProxies(c: Context): TrustedProxies {
  return (c.var as { trustedProxies?: TrustedProxies }).trustedProxies ?? NO_TRUSTED_PROXIES;
}

/**
 * The address a request came from: the TCP peer, or, when the peer is a trusted proxy
 * (TRUSTED_PROXIES), the right-most `X-Forwarded-For` address that is not itself a trusted proxy.
 * A client outside the list cannot claim an address by writing the header. Undefined when there
 * is no socket.
 */
export function requestOrigin(c: Context): string | undefined {
  const peer = peerAddress(c);
  return peer === undefined ? undefined : forwardedClient(peer, c.req.header("x-forwarded-for"), contextProxies(c));
}

/**
 * The address a request came from (see requestOrigin), as a key for per-client limits. An
 * IPv4-mapped IPv6 address counts as its IPv4 address, and an IPv6 address by its /64, the block
 * one subscriber usually holds, so walking through one's own block does not buy fresh limits.
 * "unknown" when there is no socket (in-process requests).
 */
export function clientAddress(c: Context): string {
  const address = requestOrigin(c);
  return address ? addressKey(address) : "unknown";
}

/** The limit key of one address (see clientAddress). */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("%")[0]!.toLowerCase().split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = address.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const groups = address.includes("::")
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
