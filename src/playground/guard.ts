import type { MiddlewareHandler } from "hono";

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * The playground holds a demo key and acts as any user, so it only answers pages addressed to a
 * loopback name or an IP literal (a DNS-rebinding page has a domain name), and accepts actions
 * only as same-origin JSON (a cross-site form cannot send application/json without a preflight).
 */
export function playgroundGuard(): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (!allowedHost(host)) return c.json({ error: "the playground answers only on localhost or an IP address" }, 403);
    if (c.req.method === "POST") {
      const origin = c.req.header("origin");
      if (origin && safeHost(origin) !== host.toLowerCase()) return c.json({ error: "cross-origin requests are refused" }, 403);
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

export function allowedHost(hostHeader: string): boolean {
  if (!hostHeader) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (hostname.startsWith("[") && hostname.endsWith("]")) return true;
  return IPV4.test(hostname);
}
