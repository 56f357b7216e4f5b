import { timingSafeEqual } from "node:crypto";
import { BotError, type Bot } from "grammy";
import type { Hono } from "hono";
import type { Update } from "grammy/types";
import type { BotContext } from "#src/bot/context";
import type { Logger } from "#src/logger";
import type { UpdateTurns } from "#src/scale/update-turns";
import type { DatabaseHealth } from "#src/db/health";
import { failsOnEveryRetry, newUpdateEffects, withUpdateEffects, type UpdateEffects } from "#src/bot/update-effects";
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
  /** The database's health (PostgreSQL): failures it explains are not counted against an update. */
  health?: DatabaseHealth;
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
  callback_query: z
    .object({ id: z.string(), from: user, message: z.object({ message_id: id, chat: z.object({ id }) }).optional() })
    .optional(),
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
  return (
    update.message?.chat.id ??
    update.edited_message?.chat.id ??
    update.callback_query?.message?.chat.id ??
    update.callback_query?.from.id ??
    update.my_chat_member?.chat.id ??
    update.inline_query?.from.id ??
    0
  );
}

/** How often one update may fail before the user is told and Telegram is told to stop redelivering it. */
const MAX_FAILED_ATTEMPTS = 3;
/** Failed updates remembered for that count and for what they did (a redelivery comes within minutes). */
const FAILURES_REMEMBERED = 1_000;

/** A failed update's attempts so far, and what its handling did that must not be done again. */
interface Failure {
  attempts: number;
  effects: UpdateEffects;
}

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
 * redelivered update is acknowledged and not handled twice.
 *
 * When handling fails:
 * - a Bot API error no retry can change (403: blocked, deactivated, kicked; 400) is handled at
 *   once by the bot's error handler (a blocked user is marked inactive) and the update is
 *   acknowledged, never handled again;
 * - anything else (Telegram 5xx or 429, the network, a busy database) is answered 500, so
 *   Telegram delivers it again. If the handler had already done something that must happen once
 *   (see update-effects: a key linked, an order or rule placed, a rule paused), the update is
 *   recorded as done and its redelivery is acknowledged without handling it; otherwise the
 *   redelivery is handled, without deleting again a message this process already deleted;
 * - after MAX_FAILED_ATTEMPTS the bot's error handler tells the user and it is acknowledged.
 */
export function registerTelegramWebhook(
  bot: Bot<BotContext>,
  secret: string,
  logger: Logger,
  shared?: TelegramWebhookShared,
): TelegramWebhookHandle {
  const chains = new Map<number, Promise<Outcome>>();
  const inFlight = new Set<Promise<Outcome>>();
  let accepting = true;
  const updates = new WebhookUpdates(bot, logger, shared);

  return {
    register(app) {
      app.post("/telegram", async (c) => {
        if (!sameSecret(c.req.header("x-telegram-bot-api-secret-token"), secret))
          return c.json({ error: "forbidden" }, 401);
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
        const current = previous
          .then(() => updates.handle(update, chatId))
          .catch((error: unknown): Outcome => {
            const message =
              "webhook update could not take or record its turn; answered 500 so Telegram delivers it again";
            if (shared?.health?.explains(error)) logger.debug({ err: error, updateId: update.update_id }, message);
            else logger.error({ err: error, updateId: update.update_id }, message);
            return "failed";
          });
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

/** Handles webhook updates, remembering the failed ones: their attempts and what their handling did. */
class WebhookUpdates {
  private readonly failures = new Map<number, Failure>();

  constructor(
    private readonly bot: Bot<BotContext>,
    private readonly logger: Logger,
    private readonly shared?: TelegramWebhookShared,
  ) {}

  private remember(updateId: number, failure: Failure): void {
    this.failures.delete(updateId);
    this.failures.set(updateId, failure);
    if (this.failures.size > FAILURES_REMEMBERED) this.failures.delete(this.failures.keys().next().value!);
  }

  /** Handles one update in its turn; throws when its turn could not be taken or recorded. */
  async handle(update: Update, chatId: number): Promise<Outcome> {
    const failure = this.failures.get(update.update_id) ?? { attempts: 0, effects: newUpdateEffects() };
    if (failure.effects.onceDone) {
      this.logger.info(
        { updateId: update.update_id },
        "Telegram update redelivered after its handler had done what must happen once; acknowledged, not handled again",
      );
      this.failures.delete(update.update_id);
      return "handled";
    }
    const turn = this.shared ? await this.shared.turns.take(update.update_id, chatId) : null;
    if (turn?.kind === "duplicate") {
      this.logger.info(
        { updateId: update.update_id },
        "Telegram update already taken (redelivery); acknowledged, not handled again",
      );
      return "handled";
    }
    let outcome: Outcome = "handled";
    try {
      await withUpdateEffects(update, failure.effects, () => this.bot.handleUpdate(update));
      // Handled: whatever it did is done (remembered below only if recording that fails).
      failure.effects.onceDone = true;
      this.failures.delete(update.update_id);
    } catch (error) {
      outcome = await this.failed(update, error, failure);
    }
    if (!turn) return outcome;
    try {
      // Done unless it failed before doing anything that must happen once: then a redelivery handles it again.
      if (outcome === "failed" && !failure.effects.onceDone) await turn.abandon();
      else await turn.finish();
    } catch (error) {
      if (outcome === "failed") await turn.abandon().catch(() => undefined);
      else this.remember(update.update_id, failure);
      throw error;
    }
    return outcome;
  }

  /** What a failed handling comes to: answered 500 for a redelivery, or told to the user and acknowledged. */
  private async failed(update: Update, error: unknown, failure: Failure): Promise<Outcome> {
    if (this.shared?.health?.explains(error)) {
      // The database is gone (logged once by its health tracker): not an attempt of the update's own.
      this.remember(update.update_id, failure);
      this.logger.debug(
        { err: error, updateId: update.update_id },
        "webhook update failed, the database is unreachable; answered 500 so Telegram delivers it again",
      );
      return "failed";
    }
    const attempts = failure.attempts + 1;
    this.failures.delete(update.update_id);
    const final = error instanceof BotError && failsOnEveryRetry(error.error);
    if (!final && (attempts < MAX_FAILED_ATTEMPTS || !(error instanceof BotError))) {
      this.remember(update.update_id, { attempts, effects: failure.effects });
      this.logger.error(
        { err: error, updateId: update.update_id, attempts, onceDone: failure.effects.onceDone },
        "webhook update failed; answered 500 so Telegram delivers it again",
      );
      return "failed";
    }
    if (final)
      this.logger.warn(
        { updateId: update.update_id, attempts },
        "webhook update failed with a Bot API error no retry can change; handled at once and acknowledged",
      );
    // The same update keeps failing: tell the user (error id) and let Telegram move on.
    else
      this.logger.error(
        { updateId: update.update_id, attempts },
        "webhook update failed every time; the user is told and it is acknowledged",
      );
    await Promise.resolve(this.bot.errorHandler(error as BotError<BotContext>)).catch((handlerError: unknown) =>
      this.logger.warn({ err: handlerError }, "the error handler failed"),
    );
    return "handled";
  }
}
