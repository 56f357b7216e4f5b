/** X-Api-Key authentication and the read < purchase < full scope ladder. */
import type { MiddlewareHandler } from "hono";
import { SandboxError } from "../problem";
import type { Scope } from "../types";
import type { World } from "../records";
import type { ApiEnv } from "./env";

const SCOPE_RANK: Record<Scope, number> = { read: 0, purchase: 1, full: 2 };

/** The price quote is the one public endpoint. */
function isPublic(method: string, path: string): boolean {
  return method === "GET" && path === "/api/v1/pricing/quote";
}

export function apiKeyAuth(world: World): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) return next();
    const raw = c.req.header("X-Api-Key");
    if (!raw) throw new SandboxError(401, "api_key.missing", "Unauthorized", "the X-Api-Key header is required");
    const key = world.keysByApiKey.get(raw.trim());
    if (!key || key.revoked)
      throw new SandboxError(401, "api_key.invalid", "Unauthorized", "the API key is unknown or revoked");
    c.set("key", key);
    c.set("account", world.accounts.get(key.accountId)!);
    return next();
  };
}

export function requireScope(scope: Scope): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const key = c.get("key");
    if (SCOPE_RANK[key.scope] < SCOPE_RANK[scope]) {
      throw new SandboxError(
        403,
        "api_key.insufficient_scope",
        "Forbidden",
        `this endpoint needs the ${scope} scope; the key has ${key.scope}`,
      );
    }
    return next();
  };
}
