import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP proxy between the bot and its PostgreSQL database, so a test can take the database away
 * without stopping the server other tests share. `down()` is what a database outage looks like to
 * its clients: every open connection is reset, and new ones are reset as soon as they arrive,
 * until `up()`.
 */
export interface DatabaseOutageProxy {
  /** The database URL with its host and port replaced by the proxy's. */
  url: string;
  /** Resets every open connection and refuses new ones. */
  down(): void;
  /** Accepts connections again (and passes them on to the database). */
  up(): void;
  /** Connections refused while down (a client that reconnects in a tight loop shows here). */
  refused(): number;
  close(): Promise<void>;
}

export async function startDatabaseOutageProxy(databaseUrl: string): Promise<DatabaseOutageProxy> {
  const target = new URL(databaseUrl);
  const targetPort = Number(target.port || 5432);
  const targetHost = target.hostname;
  /** Each open connection: the bot's side and the database's side. */
  const open = new Map<Socket, Socket>();
  let isDown = false;
  let refusedCount = 0;

  const server: Server = createServer((client) => {
    if (isDown) {
      refusedCount += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: targetPort });
    open.set(client, upstream);
    const end = () => {
      open.delete(client);
      if (!client.destroyed) client.resetAndDestroy();
      if (!upstream.destroyed) upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as AddressInfo).port);

  return {
    url: proxied.toString(),
    down() {
      isDown = true;
      // The bot's side is reset (ECONNRESET), as a vanished server's connections are.
      for (const [client, upstream] of open) {
        if (!client.destroyed) client.resetAndDestroy();
        upstream.destroy();
      }
      open.clear();
    },
    up() {
      isDown = false;
    },
    refused: () => refusedCount,
    close() {
      isDown = true;
      for (const [client, upstream] of open) {
        client.destroy();
        upstream.destroy();
      }
      open.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
