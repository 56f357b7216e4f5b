import { run, type RunnerHandle } from "@grammyjs/runner";
import type { Bot } from "grammy";
import type { Kysely } from "kysely";
import type { Config } from "#src/config";
import type { Logger } from "#src/logger";
import type { Database } from "#src/db/schema";
import type { BotContext } from "#src/bot/context";
import { pollingRunnerOptions, telegramTimeouts, type TelegramTimeouts } from "#src/bot/create-bot";
import { startLeaderElection, type LeaderHandle } from "#src/scale/leader";

const ALLOWED_UPDATES = ["message", "edited_message", "callback_query", "my_chat_member", "inline_query"] as const;

export interface TelegramUpdatesDeps {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  bot: Bot<BotContext>;
  replicaId: string;
  webhookSecret: string;
  timeouts: Partial<TelegramTimeouts> | undefined;
}

/**
 * How updates arrive: in webhook mode Telegram is told to post to /telegram; in polling mode
 * exactly one replica calls getUpdates, the holder of the polling lease, and another takes over
 * within seconds when it dies. Resolves to the leadership in polling mode, null in webhook mode.
 */
export async function receiveTelegramUpdates({
  config,
  db,
  logger,
  bot,
  replicaId,
  webhookSecret,
  timeouts,
}: TelegramUpdatesDeps): Promise<LeaderHandle | null> {
  if (config.BOT_MODE === "webhook") {
    await bot.api.setWebhook(`${config.PUBLIC_URL}/telegram`, {
      secret_token: webhookSecret,
      allowed_updates: [...ALLOWED_UPDATES],
    });
    logger.info({ url: `${config.PUBLIC_URL}/telegram` }, "webhook mode: Telegram posts updates to /telegram");
    return null;
  }
  let runner: RunnerHandle | null = null;
  // The playground's one process polls its own Bot API stand-in: how it does so is no news to the person at the keyboard.
  const level = config.playground ? "debug" : "info";
  return startLeaderElection({
    db,
    logger,
    name: "telegram-polling",
    owner: replicaId,
    ttlMs: 10_000,
    renewMs: 2_500,
    leadLogLevel: level,
    onLead: async () => {
      await bot.api.deleteWebhook().catch((error: unknown) => logger.warn({ err: error }, "deleteWebhook failed"));
      runner = run(bot, { runner: pollingRunnerOptions(telegramTimeouts(timeouts), [...ALLOWED_UPDATES]) });
      logger[level]("long polling started");
    },
    onLose: async () => {
      const stopping: RunnerHandle | null = runner;
      runner = null;
      if (stopping) await stopping.stop();
      logger[level]("long polling stopped");
    },
  });
}
