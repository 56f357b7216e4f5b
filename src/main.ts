import { existsSync } from "node:fs";
import { ConfigError, startApp, StartupProblem } from "./app";
import { isLoopbackHost } from "./listen-address";

/** `npm start`: reads .env when present, starts the app, stops cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  // Signals are watched from the first moment; one arriving during start-up stops the app once it is up (or within 2 s).
  let requested: string | null = null;
  let startTimer: NodeJS.Timeout | undefined;
  let onSignal: (signal: string) => void = (signal) => {
    if (requested) return;
    requested = signal;
    // A start that hangs (a Bot API that never answers getMe) must not outlive the stop by more than 2 s.
    startTimer = setTimeout(() => {
      console.error(`stopped by ${signal} while still starting`);
      process.exit(0);
    }, 2_000).unref();
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
    if (error instanceof StartupProblem) {
      // One line an operator acts on; the original error only when asked for (LOG_LEVEL=debug).
      console.error(`Cannot start: ${error.message}`);
      if (/^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? "")) console.error(error.cause);
      process.exit(2);
    }
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  clearTimeout(startTimer);

  if (app.playground) {
    const host = app.config.HOST ?? "127.0.0.1";
    const exposed = !isLoopbackHost(host);
    const lines = [
      "",
      "┌─ Local playground ─────────────────────────────────────────────",
      `│ Open ${app.url}/play`,
      "│ This is a local simulation: no Telegram; the bot talks to a local Bot API stand-in.",
      app.sandbox ? "│ Marketplace: the embedded sandbox (no real TRX)." : `│ Marketplace: ${app.marketplaceUrl}`,
      app.sandbox ? `│ Demo API key: ${app.sandbox.demoApiKey}   (send /connect, then paste it)` : "│",
      ...(app.sandbox?.restored ? [`│ Sandbox state restored from ${app.sandbox.stateFile}.`] : []),
      ...(exposed
        ? [
            "│",
            `│ WARNING: HOST=${host} is not a loopback address and PLAYGROUND_PUBLIC=true: anyone who can`,
            "│ reach this port can chat as any simulated user, drive the sandbox and read the demo key.",
            "│ Set HOST=127.0.0.1, or BOT_TOKEN to run the real bot (the playground then does not exist).",
          ]
        : []),
      "└────────────────────────────────────────────────────────────────",
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    // The same facts in the structured log, at debug: at info they would repeat the box (no demo key: it is shown above only).
    app.logger.debug(
      {
        url: `${app.url}/play`,
        telegram: "simulated (local Bot API stand-in)",
        marketplace: app.sandbox ? "embedded sandbox (no real TRX)" : app.marketplaceUrl,
      },
      "local playground ready: open the url",
    );
    if (exposed)
      app.logger.warn(
        { host },
        "the playground listens on a non-loopback address (PLAYGROUND_PUBLIC=true): anyone who can reach it can act as any simulated user and read the demo key; set HOST=127.0.0.1 or BOT_TOKEN",
      );
  } else if (app.sandbox) {
    process.stdout.write(
      `Embedded sandbox marketplace at ${app.sandbox.url} (no real TRX). Demo API key: ${app.sandbox.demoApiKey}\n`,
    );
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
