/** The control surface's checks of its arguments, which may arrive from HTTP as untrusted JSON. */
import { parseTrx } from "#src/marketplace/money";
import { SandboxError } from "./problem";
import type { ErrorCodePlacement, Scope } from "./types";
import type { ApiKeyRecord, World } from "./records";

export const SCOPES: readonly Scope[] = ["read", "purchase", "full"];
export const PLACEMENTS: readonly ErrorCodePlacement[] = ["code", "type", "type-uri", "title", "detail"];

/** Control results are for assertions and scripts: always plain numbers, whatever the API's int64 format. */
export const CONTROL_FORMAT = "number" as const;

export function badArgument(detail: string): SandboxError {
  return new SandboxError(400, "control.bad_argument", "Bad argument", detail);
}

export function amountArg(value: unknown, name: string, { allowZero = true } = {}): bigint {
  const sun = typeof value === "string" ? parseTrx(value) : typeof value === "number" ? parseTrx(String(value)) : null;
  if (sun === null || sun < 0n || (!allowZero && sun === 0n))
    throw badArgument(
      `${name} must be a ${allowZero ? "non-negative" : "positive"} decimal amount string, got ${JSON.stringify(value)}`,
    );
  return sun;
}

export function limitArg(value: unknown): bigint | null {
  return value === null || value === undefined ? null : amountArg(value, "dailyLimitTrx");
}

export function stringArg(value: unknown, name: string): string {
  if (typeof value !== "string" || value.trim() === "") throw badArgument(`${name} must be a non-empty string`);
  return value;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value))
    throw badArgument(`${name} must be one of ${allowed.join(", ")}`);
  return value as T;
}

export function requireKey(world: World, apiKey: unknown): ApiKeyRecord {
  const key = typeof apiKey === "string" ? world.keysByApiKey.get(apiKey) : undefined;
  if (!key) throw new SandboxError(404, "api_key.not_found", "Not found", "no such API key");
  return key;
}
