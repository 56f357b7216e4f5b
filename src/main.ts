import { existsSync } from "node:fs";
import { ConfigError, startApp } from "./app";

/** `npm start`: reads .env when present, starts the app, stops cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  // Signals are watched from the first moment; one arriving during start-up stops the app once it is up.
  let requested: string | null = null;
  let onSignal: (signal: string) => void = (signal) => {
    requested = signal;
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  let app;
  try {
    app = await startApp({ env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error("Cannot start: the configuration has problems.");
      for (const problem of error.problems) console.error(`  ${problem}`);
      process.exit(2);
    }
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }

  if (app.playground) {
    const lines = [
      "",
      "┌─ Local playground ─────────────────────────────────────────────",
      `│ Open ${app.url}/play`,
      "│ This is a local simulation: no Telegram; the bot talks to a local Bot API stand-in.",
      app.sandbox ? "│ Marketplace: the embedded sandbox (no real TRX)." : `│ Marketplace: ${app.marketplaceUrl}`,
      app.sandbox ? `│ Demo API key: ${app.sandbox.demoApiKey}   (send /connect, then paste it)` : "│",
      "└────────────────────────────────────────────────────────────────",
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } else if (app.sandbox) {
    process.stdout.write(`Embedded sandbox marketplace at ${app.sandbox.url} (no real TRX). Demo API key: ${app.sandbox.demoApiKey}\n`);
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      console.error("shutdown took longer than 10 s; exiting");
      process.exit(1);
    }, 10_000);
    timer.unref();
    app
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        console.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      });
  };
  onSignal = shutdown;
  if (requested) shutdown(requested);
}

void main();
