/**
 * The sandbox marketplace served over real HTTP on 127.0.0.1, for the contract suite: the client
 * under test talks to it exactly as it talks to the real service.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createMarketplaceClient } from "#src/marketplace/index";
import type { MarketplaceCallInfo, MarketplaceClientOptions } from "#src/marketplace/index";
import { createSandbox } from "#src/sandbox/index";

export const ADDRESSES = [
  "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
  "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
] as const;

export async function startSandboxWorld() {
  const sandbox = createSandbox({});
  const server = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** A client as the bot builds it, with waits recorded instead of slept and every attempt logged. */
  function client(apiKey: string | undefined, options: Partial<MarketplaceClientOptions> = {}) {
    const sleeps: number[] = [];
    const calls: MarketplaceCallInfo[] = [];
    const marketplace = createMarketplaceClient({
      baseUrl,
      ...(apiKey === undefined ? {} : { apiKey: () => apiKey }),
      timeoutMs: 5_000,
      sleep: async (ms) => void sleeps.push(ms),
      onCall: (info) => calls.push(info),
      ...options,
    });
    return { marketplace, sleeps, calls };
  }

  /** A fresh account holding `trx` with one key per scope. */
  async function account(balance: { trx?: string; usdt?: string } = { trx: "1000" }) {
    const { accountId } = sandbox.control.createAccount(balance);
    const key = async (scope: "read" | "purchase" | "full", dailyLimitTrx?: string) =>
      sandbox.control.createKey({ accountId, scope, ...(dailyLimitTrx === undefined ? {} : { dailyLimitTrx }) }).apiKey;
    return { accountId, read: await key("read"), purchase: await key("purchase"), full: await key("full"), key };
  }

  async function stop() {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  }

  return { sandbox, control: sandbox.control, baseUrl, client, account, stop };
}

export type SandboxWorld = Awaited<ReturnType<typeof startSandboxWorld>>;
