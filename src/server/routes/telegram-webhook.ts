import { timingSafeEqual } from "node:crypto";
import type { Bot } from "grammy";
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import type { Update } from "grammy/types";
import type { BotContext } from "../../bot/context";
import type { Database } from "../../db/schema";
import type { WriteBatcher } from "../../db/write-batcher";
import type { Logger } from "../../logger";
import { takeTurn } from "../../scale/update-turns";
import type { ServerEnv } from "../create-server";

function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface TelegramWebhookShared {
  db: Kysely<Database>;
  /** This replica's id (owner of the update leases). */
  replicaId: string;
  /** Shared commits for the turns' writes (SQLite). */
  writes: WriteBatcher;
}

/** The chat an update belongs to (its turn queue); 0 for the few chat-less kinds. */
export function chatOf(update: Update): number {
  return update.message?.chat.id ?? update.edited_message?.chat.id ?? update.callback_query?.message?.chat.id ?? update.callback_query?.from.id ?? update.my_chat_member?.chat.id ?? 0;
}

/**
 * POST /telegram in webhook mode. Only requests carrying our X-Telegram-Bot-Api-Secret-Token are
 * accepted. Updates of one chat are handled one after another and in update_id order, also when
 * they reach different replicas behind a load balancer (turns recorded in the database); a
 * redelivered update is acknowledged and not handled twice.
 */
export function registerTelegramWebhook(bot: Bot<BotContext>, secret: string, logger: Logger, shared?: TelegramWebhookShared) {
  const chains = new Map<number, Promise<void>>();
  const handle = async (update: Update, chatId: number): Promise<void> => {
    if (!shared) {
      await bot.handleUpdate(update);
      return;
    }
    const turn = await takeTurn(shared.db, update.update_id, chatId, shared.replicaId, { writes: shared.writes });
    if (turn.kind === "duplicate") {
      logger.info({ updateId: update.update_id }, "Telegram update already taken (redelivery); acknowledged, not handled again");
      return;
    }
    try {
      await bot.handleUpdate(update);
      await turn.finish();
    } catch (error) {
      await turn.abandon().catch(() => undefined);
      throw error;
    }
  };
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
      const chatId = chatOf(update);
      const previous = chains.get(chatId) ?? Promise.resolve();
      const current = previous.then(() => handle(update, chatId)).catch((error: unknown) => logger.error({ err: error, updateId: update.update_id }, "webhook update failed"));
      chains.set(chatId, current);
      await current;
      if (chains.get(chatId) === current) chains.delete(chatId);
      return c.json({ ok: true });
    });
  };
}
