/**
 * `npm run sandbox`: the sandbox marketplace on its own HTTP port. Prints two machine-readable
 * lines (MARKETPLACE_URL=…, DEMO_API_KEY=…) among the human ones, so scripts can pick them up.
 */
import { serve } from "@hono/node-server";
import { createSandbox } from "./create-sandbox";

const port = Number(process.env.SANDBOX_PORT ?? 8090);
const host = process.env.HOST ?? "127.0.0.1";
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`SANDBOX_PORT must be a port number, got ${JSON.stringify(process.env.SANDBOX_PORT)}`);
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

function shutdown(signal: string): void {
  console.log(`Received ${signal}; stopping the sandbox.`);
  stopTimers();
  server.close(() => process.exit(0));
  // Keep-alive connections can hold close() open; do not hang on them.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.once("SIGINT", () => shutdown("SIGINT"));
process.once("SIGTERM", () => shutdown("SIGTERM"));
