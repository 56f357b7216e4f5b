import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createSandbox, type Sandbox } from "./sandbox";

export interface EmbeddedSandbox {
  sandbox: Sandbox;
  url: string;
  demoApiKey: string;
  stop(): Promise<void>;
}

/** The sandbox marketplace in this process, on a loopback port of its own (the bot reaches it over HTTP, as it would the real one). */
export async function startEmbeddedSandbox(options: { port?: number } = {}): Promise<EmbeddedSandbox> {
  const sandbox = createSandbox();
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: sandbox.app.fetch, port: options.port ?? 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const stopTimers = sandbox.startTimers(1000);
  const { port } = server.address() as AddressInfo;
  return {
    sandbox,
    url: `http://127.0.0.1:${port}`,
    demoApiKey: sandbox.demo.apiKey,
    stop: () =>
      new Promise<void>((resolve) => {
        stopTimers();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
