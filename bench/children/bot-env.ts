/** The bot token of every bench child (its fake Telegram and its app). */
export const BENCH_TOKEN = "123456789:AAEbenchbenchbenchbenchbenchbench00";

/**
 * The environment a bench child starts the app with: its fake Telegram, loopback on a free port,
 * and a notifications poll that never fires by itself (the children drive the cycles they
 * measure). `settings` adds the database, the marketplace, the key and anything else per child.
 */
export function benchAppEnv(telegramApiRoot: string, settings: Record<string, string | undefined>): Record<string, string | undefined> {
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
