import { timingSafeEqual } from "node:crypto";
import { BotError, type Bot } from "grammy";
import type { Hono } from "hono";
import type { Update } from "grammy/types";
import type { BotContext } from "../../bot/context";
import type { Logger } from "../../logger";
import type { UpdateTurns } from "../../scale/update-turns";
import type { ServerEnv } from "../create-server";
import { z } from "zod";

function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface TelegramWebhookShared {
  /** Where an update's turn is taken: the database every replica shares, or this process (SQLite). */
  turns: UpdateTurns;
}

const id = z.number().int();
const user = z.object({ id });
const message = z.object({ message_id: id, date: z.number(), chat: z.object({ id, type: z.string() }) });
/**
 * What the bot reads of an update before its handlers do: its id and, for the kinds it handles,
 * who and which chat. Other fields and other kinds pass as Telegram sends them.
 */
const updateShape = z.object({
  update_id: id,
  message: message.optional(),
  edited_message: message.optional(),
  callback_query: z.object({ id: z.string(), from: user, message: z.object({ message_id: id, chat: z.object({ id }) }).optional() }).optional(),
  inline_query: z.object({ id: z.string(), from: user, query: z.string() }).optional(),
  chosen_inline_result: z.object({ result_id: z.string(), from: user }).optional(),
  my_chat_member: z.object({ chat: z.object({ id }), from: user }).optional(),
});

/** True when `body` has the shape of a Telegram update as far as the bot reads it (see updateShape). */
export function isTelegramUpdate(body: unknown): body is Update {
  return updateShape.safeParse(body).success;
}

/** The chat an update belongs to (its turn queue); 0 for the few chat-less kinds. */
export function chatOf(update: Update): number {
  return update.message?.chat.id ?? update.edited_message?.chat.id ?? update.callback_query?.message?.chat.id ?? update.callback_query?.from.id ?? update.my_chat_member?.chat.id ?? update.inline_query?.from.id ?? 0;
}

/** How often one update may fail before the user is told and Telegram is told to stop redelivering it. */
const MAX_FAILED_ATTEMPTS = 3;
/** Failed update ids remembered for that count (a redelivery comes within minutes). */
const FAILURES_REMEMBERED = 1_000;

export interface TelegramWebhookHandle {
  register(app: Hono<ServerEnv>): void;
  /**
   * Stops accepting updates (503: Telegram redelivers them, to another replica or after the
   * restart) and waits up to `timeoutMs` for those being handled. True when none is left.
   */
  drain(timeoutMs: number): Promise<boolean>;
}

/**
 * POST /telegram in webhook mode. Only requests carrying our X-Telegram-Bot-Api-Secret-Token are
 * accepted. Updates of one chat are handled one after another and in update_id order, also when
 * they reach different replicas behind a load balancer (turns recorded in the database; on SQLite,
 * one process by design, the turns are this process's own and only the dedupe row is stored); a
 * redelivered update is acknowledged and not handled twice. An update whose handling failed is
 * answered 500, so Telegram delivers it again (its turn was given up, so the redelivery is
 * handled); after MAX_FAILED_ATTEMPTS the bot's error handler tells the user and it is acknowledged.
 */
export function registerTelegramWebhook(bot: Bot<BotContext>, secret: string, logger: Logger, shared?: TelegramWebhookShared): TelegramWebhookHandle {
  const chains = new Map<number, Promise<Outcome>>();
  const inFlight = new Set<Promise<Outcome>>();
  const failures = new Map<number, number>();
  let accepting = true;

  const handle = async (update: Update, chatId: number): Promise<void> => {
    if (!shared) {
      await bot.handleUpdate(update);
      return;
    }
    const turn = await shared.turns.take(update.update_id, chatId);
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

  const failed = async (update: Update, error: unknown): Promise<Outcome> => {
    const attempts = (failures.get(update.update_id) ?? 0) + 1;
    failures.delete(update.update_id);
    if (attempts < MAX_FAILED_ATTEMPTS || !(error instanceof BotError)) {
      failures.set(update.update_id, attempts);
      if (failures.size > FAILURES_REMEMBERED) failures.delete(failures.keys().next().value!);
      logger.error({ err: error, updateId: update.update_id, attempts }, "webhook update failed; answered 500 so Telegram delivers it again");
      return "failed";
    }
    // The same update keeps failing: tell the user (error id) and let Telegram move on.
    logger.error({ updateId: update.update_id, attempts }, "webhook update failed every time; the user is told and it is acknowledged");
    await Promise.resolve(bot.errorHandler(error)).catch((handlerError: unknown) => logger.warn({ err: handlerError }, "the error handler failed"));
    return "handled";
  };

  return {
    register(app) {
      app.post("/telegram", async (c) => {
        if (!sameSecret(c.req.header("x-telegram-bot-api-secret-token"), secret)) return c.json({ error: "forbidden" }, 401);
        // Not ready (before bot.init) or shutting down: Telegram retries later.
        if (!accepting || !bot.isInited()) return c.json({ error: "unavailable" }, 503);
        let update: Update;
        try {
          update = (await c.req.json()) as Update;
        } catch {
          return c.json({ error: "malformed JSON" }, 400);
        }
        if (!isTelegramUpdate(update)) return c.json({ error: "not a Telegram update" }, 400);
        const chatId = chatOf(update);
        const previous = chains.get(chatId) ?? Promise.resolve<Outcome>("handled");
        const current = previous.then(() => handle(update, chatId)).then(
          (): Outcome => "handled",
          (error: unknown) => failed(update, error),
        );
        chains.set(chatId, current);
        inFlight.add(current);
        const outcome = await current;
        inFlight.delete(current);
        if (chains.get(chatId) === current) chains.delete(chatId);
        return outcome === "handled" ? c.json({ ok: true }) : c.json({ error: "update failed; deliver it again" }, 500);
      });
    },
    async drain(timeoutMs) {
      accepting = false;
      if (inFlight.size === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const done = Promise.allSettled([...inFlight]).then(() => true as const);
      const drained = await Promise.race([done, timedOut]);
      clearTimeout(timer);
      return drained;
    },
  };
}

type Outcome = "handled" | "failed";
