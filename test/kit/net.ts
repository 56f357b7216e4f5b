import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (for processes that must be told their port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
