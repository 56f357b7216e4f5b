/**
 * `npm run sandbox`: the sandbox marketplace on its own HTTP port. Prints two machine-readable
 * lines (MARKETPLACE_URL=…, DEMO_API_KEY=…) among the human ones, so scripts can pick them up.
 */
import { serve } from "@hono/node-server";
import { createSandbox } from "./create-sandbox";

const DEFAULT_PORT = 8090;

/**
 * Unset or empty (as `SANDBOX_PORT= npm run sandbox` or an empty line in a .env gives) means the
 * default; Number("") would be 0, a random port, which no script could find. Only plain decimal
 * digits are a port: "8090abc", "0x1f90" or " 80" are refused rather than guessed at.
 */
function parsePort(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === "") return DEFAULT_PORT;
  if (!/^\d{1,5}$/.test(raw)) return null;
  const port = Number(raw);
  return port <= 65535 ? port : null;
}

const port = parsePort(process.env.SANDBOX_PORT);
const host = process.env.HOST ?? "127.0.0.1";
if (port === null) {
  console.error(
    `SANDBOX_PORT must be a port number (0-65535; empty or unset means ${DEFAULT_PORT}), got ${JSON.stringify(process.env.SANDBOX_PORT)}`,
  );
  process.exit(1);
}

const sandbox = createSandbox();
const stopTimers = sandbox.startTimers();

const server = serve({ fetch: sandbox.app.fetch, port, hostname: host }, (info) => {
  // A wildcard bind is still reachable on loopback, which is what a local script wants.
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${shownHost}:${info.port}`;
  console.log("Sandbox marketplace running (simulated; no real TRX moves).");
  console.log(`  API:      ${url}/api/v1`);
  console.log(`  Control:  ${url}/_sandbox/* (e.g. POST ${url}/_sandbox/credit-deposit)`);
  console.log(`  Demo account ${sandbox.demo.accountId}: 1000 TRX and 50 USDT-TRC20, key with purchase scope.`);
  console.log(`MARKETPLACE_URL=${url}`);
  console.log(`DEMO_API_KEY=${sandbox.demo.apiKey}`);
});

// A taken port is the usual failure here: say so in one line instead of an unhandled-error stack.
server.on("error", (error: NodeJS.ErrnoException) => {
  const reason =
    error.code === "EADDRINUSE"
      ? `port ${port} on ${host} is already in use (set SANDBOX_PORT to another port)`
      : error.message;
  console.error(`The sandbox could not listen: ${reason}`);
  stopTimers();
  process.exit(1);
});

function shutdown(signal: string): void {
  console.log(`Received ${signal}; stopping the sandbox.`);
  stopTimers();
  server.close(() => process.exit(0));
  // Keep-alive connections can hold close() open; do not hang on them.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.once("SIGINT", () => shutdown("SIGINT"));
process.once("SIGTERM", () => shutdown("SIGTERM"));
