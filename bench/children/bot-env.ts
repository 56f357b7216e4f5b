import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pino from "pino";
import { startApp, type App } from "../../src/app";
import { startFakeTelegram } from "../../test/kit/telegram-driver";
import { installInstantTelegram, type InstantTelegram } from "./instant-telegram";
import { LIFTED } from "./update-drive";

/** The bot token of every bench child (its fake Telegram and its app). */
export const BENCH_TOKEN = "123456789:AAEbenchbenchbenchbenchbenchbench00";

/**
 * The environment a bench child starts the app with: its fake Telegram, loopback on a free port,
 * and a notifications poll that never fires by itself (the children drive the cycles they
 * measure). `settings` adds the database, the marketplace, the key and anything else per child.
 */
export function benchAppEnv(
  telegramApiRoot: string,
  settings: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return {
    BOT_TOKEN: BENCH_TOKEN,
    TELEGRAM_API_ROOT: telegramApiRoot,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    NOTIFICATIONS_POLL: "0 0 1 1 *",
    MARKETPLACE_TIMEOUT_MS: "10000",
    NODE_ENV: "production",
    ...settings,
  };
}

/**
 * The app as the update children measure it: the Bot API answered in-process (installed first,
 * since grammY's clients take their fetch when built), a SQLite file in a fresh directory named
 * after `prefix` (or the database `databaseUrl` names), Telegram's limits lifted, and no push jobs running.
 */
export async function startInstantApp(
  prefix: string,
  marketplaceUrl: string | undefined,
  databaseUrl?: string,
): Promise<{ app: App; instant: InstantTelegram }> {
  const instant = installInstantTelegram();
  const telegram = await startFakeTelegram({ token: BENCH_TOKEN, longPollMaxMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const app = await startApp({
    env: benchAppEnv(telegram.apiRoot, {
      MARKETPLACE_URL: marketplaceUrl,
      DATABASE_URL: databaseUrl ?? `file:${join(dir, "bot.db")}`,
      SECRET_KEY: randomBytes(32).toString("base64"),
    }),
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
    telegramBudget: LIFTED,
  });
  await app.push.stop();
  return { app, instant };
}
