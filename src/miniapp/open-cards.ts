import type { Bot, Transformer } from "grammy";
import type { InlineKeyboardButton, Update } from "grammy/types";
import type { Kysely } from "kysely";
import { MENU_DATA, MENU_IDS } from "#src/chat/callback-data";
import type { Database } from "#src/db/schema";
import type { WriteBatcher } from "#src/db/write-batcher";
import {
  findOpenRuleCards,
  findOpenRuleCardsByRef,
  forgetOpenRuleCard,
  recordOpenRuleCard,
  type OpenRuleCard,
} from "#src/db/repos/open-rule-cards";
import { findUser } from "#src/db/repos/users";
import type { Logger } from "#src/logger";
import type { BotContext } from "#src/bot/context";
import { DASHBOARD_PRESS_PREFIX } from "#src/bot/middleware/rate-limit";
import { cardChange, keyboardFingerprint, messageGone, parseKeyboard, type CardChange } from "./card-calls";

/** Messages this process remembers drawing as cards, so an edit or delete of one is noticed without a read. */
const KNOWN_KEPT = 50_000;
const OBSERVED = new Set(["sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage"]);

interface OpenCardsDeps {
  db: Kysely<Database>;
  /** The bot whose chats the cards are in: a card drawn showing a newer state of its rule redraws the chat's other cards of it. */
  bot?: Bot<BotContext>;
  /** The bot's group commit: a card's row shares the commit of the other writes of its moment. */
  writes: WriteBatcher;
  now: () => number;
  logger: Logger;
}

/** Whom a redraw is for: the rule's owner and their chat. */
interface CardOwner {
  telegramId: number;
  chatId: number;
  firstName: string;
  languageCode: string | null;
}

/**
 * The rule cards open in each chat, read from the Bot API calls themselves (an API transformer on
 * the bot, so no feature has to report them) and kept in the database: a call that draws a card
 * stores it once Telegram accepted it, so every replica, and the bot after a restart, knows it.
 * After the dashboard paused or resumed a rule, each open card of that rule is redrawn by the
 * chat's own code: a press on the card made on the user's behalf, marked outdated, which the rule
 * menu answers by drawing the card as the rule is now (the same path as a tap on an old card).
 * So are they when the rule changed anywhere else: a card drawn showing another state of its rule
 * than the chat's other cards of it (each card's buttons carry the fingerprint of the state it
 * shows) has those redrawn, and a rule the marketplace paused, or one paused or resumed from a
 * team group, has all of its cards redrawn ({@link ruleChanged}).
 */
export class OpenRuleCards {
  /** "chat:message" of the cards this process drew, oldest first. */
  private readonly known = new Set<string>();
  private updateId = 0;
  /** Redraws running, by "chat:message": a card asked for again meanwhile shares the one running. */
  private readonly redrawing = new Map<string, Promise<void>>();
  /** Redraws started in the background (a card drawn, a rule changed), for {@link idle}. */
  private readonly background = new Set<Promise<void>>();

  constructor(private readonly deps: OpenCardsDeps) {}

  /** Resolves once the redraws started in the background have ended (the app's stop waits for them). */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /**
   * The rule changed where no card of it was drawn (the marketplace paused it, a team group paused
   * or resumed it): every open card of it in the owner's private chat is redrawn as it is now, in
   * the background. Needs the bot (see OpenCardsDeps).
   */
  ruleChanged(telegramId: number, ruleId: string): void {
    const bot = this.deps.bot;
    if (!bot) return;
    this.inBackground(
      async () => {
        const owner = await this.ownerOf(telegramId);
        if (owner) await this.redraw(bot, owner, ruleId, this.deps.now());
      },
      { userId: telegramId, ruleId },
    );
  }

  /**
   * Records what goes out; swallows the answers to the dashboard's own presses. A call that
   * concerns a card resolves once its row is written (in the next group commit), so the update
   * that drew the card ends with it stored; a failed write is logged and the call still succeeds.
   */
  transformer(): Transformer {
    return async (prev, method, payload, signal) => {
      const params = payload as Record<string, unknown>;
      if (method === "answerCallbackQuery" && String(params.callback_query_id).startsWith(DASHBOARD_PRESS_PREFIX)) {
        return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
      }
      const result = await prev(method, payload, signal);
      // An edit Telegram calls "not modified" left the message showing exactly what was sent: done.
      const shown =
        result.ok || (method.startsWith("edit") && result.description?.includes("message is not modified") === true);
      const change = !OBSERVED.has(method)
        ? null
        : shown
          ? cardChange(method, params, result.ok ? result.result : true)
          : messageGone(method, params, result.description);
      if (change) await this.store(change);
      return result;
    };
  }

  private async store(change: CardChange): Promise<void> {
    const chatId = change.kind === "drawn" ? change.card.chatId : change.chatId;
    const messageId = change.kind === "drawn" ? change.card.messageId : change.messageId;
    const key = `${chatId}:${messageId}`;
    const wasKnown = this.known.delete(key);
    if (change.kind === "drawn") this.remember(key);
    else if (!wasKnown && !change.surely) return;
    try {
      await this.deps.writes.run((db) =>
        change.kind === "drawn"
          ? recordOpenRuleCard(db, change.card, this.deps.now())
          : forgetOpenRuleCard(db, chatId, messageId),
      );
    } catch (error) {
      this.deps.logger.warn(
        { err: error, chatId, messageId },
        "the chat's open rule card could not be recorded; a Pause or Resume on the dashboard leaves it as it is until its next tap",
      );
      return;
    }
    if (change.kind === "drawn" && change.fingerprint) this.followDrawn(change.card, change.fingerprint);
  }

  /**
   * A card was drawn showing the state `fingerprint` of its rule: the chat's other cards of the
   * rule that show another state (an older one: the rule changed since they were drawn) are redrawn
   * as the rule is now, in the background. Each redraw is itself a card drawn, so cards drawn while
   * the rule changed again meet the newest state within a redraw or two; cards that agree cost nothing.
   */
  private followDrawn(card: OpenRuleCard, fingerprint: string): void {
    const bot = this.deps.bot;
    // Only a private chat's cards are recorded for their owner (the chat id is the user's id).
    if (!bot || card.chatId <= 0) return;
    this.inBackground(
      async () => {
        const others = (await findOpenRuleCardsByRef(this.deps.db, card.chatId, card.ruleRef)).filter(
          (other) => other.messageId !== card.messageId && keyboardFingerprint(other.keyboard) !== fingerprint,
        );
        if (others.length === 0) return;
        const owner = await this.ownerOf(card.chatId);
        if (!owner) return;
        for (const other of others) await this.redrawCard(bot, owner, other, this.deps.now());
      },
      { chatId: card.chatId, messageId: card.messageId },
    );
  }

  private inBackground(work: () => Promise<void>, context: Record<string, unknown>): void {
    const running: Promise<void> = work()
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, ...context },
          "the chat's other cards of a changed rule could not be redrawn; each updates at its next tap",
        ),
      )
      .finally(() => this.background.delete(running));
    this.background.add(running);
  }

  /** The owner of a private chat as a redraw presses for them, from their row; null when the bot has none. */
  private async ownerOf(telegramId: number): Promise<CardOwner | null> {
    const user = await findUser(this.deps.db, telegramId);
    if (!user || user.active !== 1) return null;
    return {
      telegramId: user.telegram_id,
      chatId: user.chat_id,
      firstName: "",
      languageCode: user.language ?? user.telegram_language,
    };
  }

  private remember(key: string): void {
    this.known.add(key);
    if (this.known.size > KNOWN_KEPT) this.known.delete(this.known.values().next().value!);
  }

  /**
   * Redraws every open card of `ruleId` in the owner's chat as the rule is now, through the bot's
   * own handling of a press. Resolves once the bot has handled them; a failure is the bot's to log.
   */
  async redraw(bot: Bot<BotContext>, owner: CardOwner, ruleId: string, nowMs: number): Promise<number> {
    const cards = await findOpenRuleCards(this.deps.db, owner.chatId, owner.telegramId, ruleId);
    let redrawn = 0;
    for (const card of cards) if (await this.redrawCard(bot, owner, card, nowMs)) redrawn += 1;
    return redrawn;
  }

  /**
   * One card redrawn by the bot's handling of a press on it; false when its stored keyboard does
   * not read. A card already being redrawn shares that redraw, which reads the rule as it is then.
   */
  private async redrawCard(
    bot: Bot<BotContext>,
    owner: CardOwner,
    card: OpenRuleCard & { text: string },
    nowMs: number,
  ): Promise<boolean> {
    const keyboard = parseKeyboard(card.keyboard);
    if (!keyboard) return false;
    const key = `${card.chatId}:${card.messageId}`;
    const running = this.redrawing.get(key);
    if (running) {
      await running;
      return true;
    }
    const redraw = bot
      .handleUpdate(this.outdatedPress(bot, owner, { ...card, keyboard }, nowMs))
      .finally(() => this.redrawing.delete(key));
    this.redrawing.set(key, redraw);
    await redraw;
    return true;
  }

  /**
   * A press on the card whose data says "drawn without a fingerprint": the rule menu, which
   * fingerprints every card, takes it as outdated and draws the card as the rule is now, doing
   * nothing else. The button is added to the message as the chat has it, as a press must be on it.
   */
  private outdatedPress(
    bot: Bot<BotContext>,
    owner: CardOwner,
    card: { messageId: number; payload: string; text: string; keyboard: InlineKeyboardButton[][] },
    nowMs: number,
  ): Update {
    this.updateId -= 1;
    // Data of its own each time: two redraws of one card in a row are two presses, never a double tap.
    const data = MENU_DATA.data(MENU_IDS.rule, card.payload, `h${(-this.updateId).toString(36).slice(-12)}`);
    const from = {
      id: owner.telegramId,
      is_bot: false,
      first_name: owner.firstName || String(owner.telegramId),
      ...(owner.languageCode ? { language_code: owner.languageCode } : {}),
    };
    const message = {
      message_id: card.messageId,
      date: Math.floor(nowMs / 1000),
      chat: { id: owner.chatId, type: "private" as const, first_name: from.first_name },
      from: { id: bot.botInfo.id, is_bot: true, first_name: bot.botInfo.first_name },
      text: card.text,
      reply_markup: { inline_keyboard: [...card.keyboard, [{ text: "↻", callback_data: data }]] },
    };
    return {
      update_id: this.updateId,
      callback_query: {
        id: `${DASHBOARD_PRESS_PREFIX}${-this.updateId}`,
        from,
        chat_instance: String(owner.chatId),
        data,
        message,
      },
    };
  }
}
