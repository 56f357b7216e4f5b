import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { isLoopbackHost } from "#src/listen-address";

/** Where the server listens (HOST, 127.0.0.1 when unset) and the public origin it was given, if any. */
export interface PlaygroundAddress {
  host: string;
  publicUrl?: string | null;
}

/**
 * The playground holds a demo key and acts as any user, so it answers only requests that name this
 * server in `Host` (a DNS-rebinding page reaches the port under its own domain name), and accepts
 * actions only as JSON from its own origin: every POST must carry a same-origin `Origin` (browsers
 * send one on every fetch POST; a script must say where it comes from) and application/json (a
 * cross-site form cannot send it without a preflight).
 */
export function playgroundGuard(address: PlaygroundAddress): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header("host") ?? "").toLowerCase();
    if (!hostAllowed(host, address))
      return c.json(
        {
          error:
            "the playground answers only under the name of the server it runs on (HOST, a loopback name when HOST is loopback, or PUBLIC_URL's host)",
        },
        403,
      );
    if (c.req.method === "POST") {
      const origin = c.req.header("origin");
      if (!origin)
        return c.json(
          {
            error: `send an Origin header naming this page's origin (for example Origin: http://${host}), as a browser does`,
          },
          403,
        );
      if (safeHost(origin) !== host) return c.json({ error: "cross-origin requests are refused" }, 403);
      if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
        return c.json({ error: "send JSON with Content-Type: application/json" }, 415);
      }
    }
    await next();
  };
}

function safeHost(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

/** The host name of a `Host` header or a URL's host, lower-case, IPv6 without brackets; null when it is not one. */
function hostnameOf(host: string): string | null {
  if (!host) return null;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return null;
  }
}

const EVERY_ADDRESS = new Set(["0.0.0.0", "::"]);

/**
 * True when `Host` names the server listening on `address.host`. The port is not compared: a
 * published container port or a proxy may differ from the one listened on, and a rebinding page
 * is told apart by its name alone.
 */
export function hostAllowed(hostHeader: string, address: PlaygroundAddress): boolean {
  const name = hostnameOf(hostHeader);
  if (!name) return false;
  if (address.publicUrl && name === hostnameOf(new URL(address.publicUrl).host)) return true;
  const listen = address.host.toLowerCase().replace(/^\[|\]$/g, "");
  // On every address the machine's names are unknown; its addresses and loopback names are safe,
  // since a rebinding page always comes under a domain name.
  if (EVERY_ADDRESS.has(listen)) return isLoopbackHost(name) || isIP(name) !== 0;
  if (isLoopbackHost(listen)) return isLoopbackHost(name);
  return name === listen;
}
