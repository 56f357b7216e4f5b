import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type { Hono } from "hono";
import type { ServerEnv } from "#src/server/create-server";
import { urlHost } from "#src/listen-address";

/** The HTTP server once it listens, with the URL it answers on. */
export interface Listening {
  url: string;
  /** Closes the server and every connection still open. */
  close(): Promise<void>;
}

/** Serves the app on host:port with short timeouts, resolving once it listens. */
export async function listen(http: Hono<ServerEnv>, port: number, host: string): Promise<Listening> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const started = serve({ fetch: http.fetch, port, hostname: host }, () => {
      started.off("error", reject);
      resolve(started);
    });
    // A port in use or an address not of this machine: said by the caller, not thrown as an uncaught event.
    started.once("error", reject);
  });
  // Far below Node's 300 s default: a slow client cannot hold a connection open.
  const nodeServer = server as unknown as { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number };
  nodeServer.requestTimeout = 30_000;
  nodeServer.headersTimeout = 10_000;
  nodeServer.keepAliveTimeout = 5_000;
  const address = server.address() as AddressInfo;
  return {
    url: `http://${urlHost(host)}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
