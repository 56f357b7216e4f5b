import { isIP } from "node:net";

/**
 * The host part of a URL that reaches a server listening on `host`: a wildcard address becomes the
 * loopback of its family (0.0.0.0 → 127.0.0.1, :: → [::1]) and IPv6 literals get brackets.
 */
export function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  if (isIP(host) === 6) return `[${host}]`;
  return host;
}

/** True when a server listening on `host` is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  // ::ffff:127.x.y.z is an IPv4 loopback written as IPv6.
  return /^::ffff:127\./.test(bare);
}
