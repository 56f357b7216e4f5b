import { isIPv4, isIPv6 } from "node:net";
import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";

/**
 * The address a request came from, as a key for per-client limits: the TCP peer, never a
 * forwarded-for header (anyone can write one). An IPv4-mapped IPv6 address counts as its IPv4
 * address, and an IPv6 address by its /64, the block one subscriber usually holds, so walking
 * through one's own block does not buy fresh limits. "unknown" when there is no socket (in-process
 * requests).
 */
export function clientAddress(c: Context): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    address = undefined;
  }
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
  const groups = address.includes("::") ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups] : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
