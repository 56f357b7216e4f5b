import { BlockList, isIP } from "node:net";

/**
 * The reverse proxies in front of the bot (TRUSTED_PROXIES): only a request whose TCP peer is one
 * of them has its `X-Forwarded-For` believed. Entries are addresses or CIDRs, IPv4 or IPv6; an
 * IPv4-mapped IPv6 peer (`::ffff:10.0.0.2`, what a dual-stack listener sees) counts as its IPv4
 * address.
 */
export interface TrustedProxies {
  /** True when `address` is one of the proxies. */
  trusts(address: string): boolean;
  /** The entries as configured (for logs at start). */
  readonly entries: readonly string[];
}

/**
 * Why one entry of TRUSTED_PROXIES is not an address or a CIDR, or null when it is one. The entry
 * is named by its position, never quoted (configuration values stay out of logs).
 */
export function trustedProxyEntryProblem(entry: string, position: number): string | null {
  const [address = "", prefix, extra] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return `entry ${position} is not an IP address or a CIDR`;
  if (prefix === undefined) return null;
  const bits = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)
    return `entry ${position} has a prefix length outside 0 to ${bits}`;
  return null;
}

/** Splits TRUSTED_PROXIES on commas (and spaces), dropping empty entries. */
export function trustedProxyEntries(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/** Strips brackets and a zone, and turns an IPv4-mapped IPv6 address into its IPv4 address. */
export function plainAddress(address: string): string {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .split("%")[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return mapped && isIP(mapped[1]!) === 4 ? mapped[1]! : bare;
}

/** The proxies of already-validated entries (see trustedProxyEntryProblem). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(plainAddress(address), type);
    else list.addSubnet(plainAddress(address), Number(prefix), type);
  }
  return {
    entries: [...entries],
    trusts(address) {
      const plain = plainAddress(address);
      const family = isIP(plain);
      if (family === 0 || entries.length === 0) return false;
      return list.check(plain, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/** No proxy trusted: every request is taken from its TCP peer. */
export const NO_TRUSTED_PROXIES: TrustedProxies = trustedProxies([]);

/**
 * The address a request really came from: its TCP peer, unless the peer is a trusted proxy, in
 * which case `X-Forwarded-For` is read from the right (each proxy appends the address it was
 * reached from) and the first address that is not itself a trusted proxy is the client. Left of
 * that, anyone could have written anything, so it is never read. An entry that is not an address
 * stops the walk at the last proxy that wrote it. With every hop trusted, the left-most one counts.
 */
export function forwardedClient(peer: string, forwardedFor: string | undefined, proxies: TrustedProxies): string {
  if (!forwardedFor || !proxies.trusts(peer)) return peer;
  let client = plainAddress(peer);
  const hops = forwardedFor.split(",").map(plainAddress).reverse();
  for (const hop of hops) {
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!proxies.trusts(hop)) return hop;
  }
  return client;
}
