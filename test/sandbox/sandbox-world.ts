/** A sandbox with a hand-moved clock and a small request helper, shared by the sandbox tests. */
import { createSandbox } from "#src/sandbox/index";
import type { Sandbox, SandboxOptions } from "#src/sandbox/index";

/** Valid-looking TRON addresses (T + 33 base58 characters). */
export const ADDRESS = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
export const OTHER_ADDRESS = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests poke into arbitrary JSON
  text: string;
  headers: Headers;
}

export interface SandboxWorld {
  sandbox: Sandbox;
  control: Sandbox["control"];
  now(): Date;
  advance(ms: number): void;
  setNow(iso: string): void;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
}

export function createSandboxWorld(start = "2025-03-10T12:00:00.000Z", options: SandboxOptions = {}): SandboxWorld {
  let now = new Date(start);
  const sandbox = createSandbox({ now: () => now, settleDelayMs: 3000, ...options });
  return {
    sandbox,
    control: sandbox.control,
    now: () => now,
    advance(ms) {
      now = new Date(now.getTime() + ms);
    },
    setNow(iso) {
      now = new Date(iso);
    },
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? sandbox.demo.apiKey : options.key;
      if (key !== null) headers["X-Api-Key"] = key;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers["Content-Type"] = "application/json";
      }
      const response = await sandbox.app.request(path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed, text, headers: response.headers };
    },
  };
}

/** A fresh funded account with a key of the given scope. */
export function newCustomer(
  world: SandboxWorld,
  options: { trx?: string; scope?: "read" | "purchase" | "full"; dailyLimitTrx?: string | null } = {},
) {
  const { accountId } = world.control.createAccount({ trx: options.trx ?? "100" });
  const { apiKey } = world.control.createKey({
    accountId,
    scope: options.scope ?? "purchase",
    dailyLimitTrx: options.dailyLimitTrx ?? null,
  });
  return { accountId, apiKey };
}

export function orderBody(overrides: Record<string, unknown> = {}) {
  return { resource: "energy", targetAddress: ADDRESS, volume: 65000, duration: "1h", ...overrides };
}
