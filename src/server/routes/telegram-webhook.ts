import { timingSafeEqual } from "node:crypto";
import type { Bot } from "grammy";
import type { Hono } from "hono";
import type { Update } from "grammy/types";
import type { BotContext } from "../../bot/context";
import type { Logger } from "../../logger";
import type { ServerEnv } from "../create-server";

function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * POST /telegram in webhook mode. Only requests carrying our X-Telegram-Bot-Api-Secret-Token are
 * accepted. Updates of one chat are handled one after another (Telegram also delivers them so).
 */
export function registerTelegramWebhook(bot: Bot<BotContext>, secret: string, logger: Logger) {
  const chains = new Map<number, Promise<void>>();
  return (app: Hono<ServerEnv>) => {
    app.post("/telegram", async (c) => {
      if (!sameSecret(c.req.header("x-telegram-bot-api-secret-token"), secret)) return c.json({ error: "forbidden" }, 401);
      let update: Update;
      try {
        update = (await c.req.json()) as Update;
      } catch {
        return c.json({ error: "malformed JSON" }, 400);
      }
      if (typeof update !== "object" || update === null || typeof update.update_id !== "number") return c.json({ error: "not a Telegram update" }, 400);
      const chatId = update.message?.chat.id ?? update.callback_query?.message?.chat.id ?? update.callback_query?.from.id ?? 0;
      const previous = chains.get(chatId) ?? Promise.resolve();
      const current = previous.then(() => bot.handleUpdate(update)).catch((error: unknown) => logger.error({ err: error, updateId: update.update_id }, "webhook update failed"));
      chains.set(chatId, current);
      await current;
      if (chains.get(chatId) === current) chains.delete(chatId);
      return c.json({ ok: true });
    });
  };
}
